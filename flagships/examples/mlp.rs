//! A 3-layer MLP inference step as a `cuda_graph!` graph: each step copies a new input from
//! pinned host memory, then runs three cuBLASLt products (captured as nodes) with the bias and
//! ReLU fused into their epilogues; the hidden activations are temporaries. Checked against a
//! CPU forward pass.
//!
//! Run: `cargo run --release -p cuda-graph-flagships --example mlp` (exits 2 with a message when there is no GPU).
#![deny(warnings)]

use std::process::ExitCode;
use std::time::Instant;

use cuda_graph_flagships::mlp;

use mlp::{DeviceWeights, Mlp, Weights, IN, OUT};

fn main() -> ExitCode {
    println!("{}", Mlp::DOT);
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("mlp needs a CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&ctx) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>,
) -> Result<bool, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let capture = ctx.new_stream()?;
    let module = mlp::compile(ctx)?;
    let wt = Weights::new();
    let dw = DeviceWeights::upload(&stream, &wt);
    let batch = 32u32;
    let plans = mlp::plans(&capture, batch)?;
    let mut ws = stream.alloc_zeros::<u8>(mlp::LT_WORKSPACE)?;
    let n_in = (batch * IN) as usize;
    // SAFETY: f32 is valid for any bits; written before read.
    let mut pinned = unsafe { ctx.alloc_pinned::<f32>(n_in) }?;
    let mut x = stream.alloc_zeros::<f32>(n_in)?;
    let mut y = stream.alloc_zeros::<f32>((batch * OUT) as usize)?;
    let layers = [0, 1, 2].map(|l| mlp::layer(&plans[l]));
    let mut exec = Mlp::build(
        &module,
        mlp::inputs(
            pinned.as_mut_slice()?,
            &mut x,
            &dw,
            &mut y,
            &mut ws,
            batch,
            &capture,
            &layers,
        ),
    )?
    .instantiate()?;
    println!(
        "batch {batch}: temporaries hold {} bytes",
        exec.temporary_bytes()
    );
    let mut ok = true;
    for step in 0..5u32 {
        let xs: Vec<f32> = (0..n_in).map(|i| mlp::input(step, i)).collect();
        let t = Instant::now();
        exec.x_host_mut()?.copy_from_slice(&xs);
        exec.launch(&stream)?;
        exec.synchronize()?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        let got = stream.clone_dtoh(exec.y()?)?;
        let want = mlp::reference(&wt, &xs, batch as usize);
        let scale = want.iter().fold(1e-6f64, |m, v| m.max(v.abs()));
        let err = got
            .iter()
            .zip(&want)
            .map(|(&g, w)| (g as f64 - w).abs() / scale)
            .fold(0.0, f64::max);
        ok &= err < 1e-4;
        println!("step {step}: {us:.1} us, max relative error vs CPU {err:.1e}");
    }
    Ok(ok)
}
