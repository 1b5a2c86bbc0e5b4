//! A saxpy graph written with `cuda_graph!`: declared, checked at compile time, launched, and
//! edited live through the generated typed setters.
//!
//! Run: `cargo run --release --example saxpy` (exits 2 with a message when there is no GPU).
#![deny(warnings)]

use std::process::ExitCode;

use cuda_graph::prelude::*;

cuda_graph! {
    /// y = a*x + y over n elements, then total = sum(y).
    pub graph Saxpy {
        // `&[T]` parameters are read, `&mut [T]` are written: this feeds the race check.
        kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
        kernel sum(y: &[f32], total: &mut [f32], n: u32);

        buffer x: f32;
        buffer mut y: f32;
        buffer mut total: f32;
        param a: f32;
        param n: u32;

        clear  = memset(total, 0.0);
        step   = saxpy<<<n.div_ceil(256), 256>>>(a, x, y, n);
        reduce = sum<<<1, 1024>>>(y, total, n);

        step -> reduce;
        clear -> reduce;
    }
}

fn main() -> ExitCode {
    // What it runs, computed at compile time: shown with or without a GPU.
    println!("{}", Saxpy::DOT);
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("saxpy needs a CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("saxpy failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>) -> cuda_graph::Result<()> {
    let stream = ctx.default_stream();
    let module = compile(ctx, include_str!("kernels/saxpy.cu"))?;
    let n = 1u32 << 20;
    let xs: Vec<f32> = (0..n).map(|i| (i % 5) as f32).collect();
    let x = stream.clone_htod(&xs)?;
    let mut y = stream.alloc_zeros::<f32>(n as usize)?;
    let mut total = stream.alloc_zeros::<f32>(1)?;

    let graph = Saxpy::build(
        &module,
        SaxpyInputs {
            x: &x,
            y: &mut y,
            total: &mut total,
            a: 2.0,
            n,
        },
    )?;
    let mut exec = graph.instantiate()?;
    let sum_x: f64 = xs.iter().map(|&v| v as f64).sum();

    exec.launch(&stream)?;
    let t = stream.clone_dtoh(exec.total()?)?[0];
    println!("a = 2: sum(y) = {t} (expected {})", 2.0 * sum_x);

    // A graph-level setter: every node that uses `a` (here: `step`) is updated in place.
    exec.set_a(0.5)?;
    exec.launch(&stream)?;
    let t = stream.clone_dtoh(exec.total()?)?[0];
    println!("a = 0.5: sum(y) = {t} (expected {})", 2.5 * sum_x);

    // `n` is used by both kernels, as an argument and in `step`'s grid size: halving it
    // updates both nodes, the grid recomputed from `n.div_ceil(256)`.
    exec.set_n(n / 2)?;
    println!(
        "grid of step after set_n: {:?}",
        exec.step()?.launch_config().grid_dim
    );
    exec.step()?.set_a(1.0)?;
    exec.launch(&stream)?;
    let t = stream.clone_dtoh(exec.total()?)?[0];
    let half: f64 = xs[..(n / 2) as usize].iter().map(|&v| v as f64).sum();
    println!(
        "n/2, step's a = 1: sum of first half = {t} (expected {})",
        3.5 * half
    );
    Ok(())
}
