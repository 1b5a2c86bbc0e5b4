//! Build a CUDA graph node by node with the runtime API, launch it, and edit it live.
//!
//! The graph: `clear` (memset total) and `step` (y = a*x + y) run first, then `reduce`
//! (total = sum y), then `report` (a host callback). After a few launches the example changes the
//! kernel argument `a` in place, moves `step` onto another output buffer, and checks every value
//! against the host.
//!
//! Run: `cargo run --release --example live_edit` (exits 2 with a message when there is no GPU).
#![deny(warnings)]

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use cuda_graph::prelude::*;
use cuda_graph::topology::{NodeKind, Topology};

const N: usize = 1 << 16;

/// The graph `run` builds, as plain data: shown with or without a GPU, and checked against the
/// graph once it is built.
fn plan() -> Topology {
    let mut t = Topology::new();
    let node = |t: &mut Topology, name, kind| t.add_node(name, kind).expect("distinct names");
    let clear = node(&mut t, "clear", NodeKind::Memset);
    let step = node(&mut t, "step", NodeKind::Kernel);
    let reduce = node(&mut t, "reduce", NodeKind::Kernel);
    let report = node(&mut t, "report", NodeKind::Host);
    for (a, b) in [(step, reduce), (clear, reduce), (reduce, report)] {
        t.add_edge(a, b).expect("an acyclic plan");
    }
    t
}

fn main() -> ExitCode {
    println!("{}", plan().to_dot("saxpy"));
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("live_edit needs a CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("live_edit failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>,
) -> Result<(), Box<dyn std::error::Error>> {
    let stream = ctx.default_stream();
    let module = compile(ctx, include_str!("kernels/saxpy.cu"))?;
    let saxpy = module.function("saxpy")?;
    let sum = module.function("sum")?;

    let xs: Vec<f32> = (0..N).map(|i| (i % 7) as f32).collect();
    let x = stream.clone_htod(&xs)?;
    let mut y = stream.alloc_zeros::<f32>(N)?;
    let mut y2 = stream.alloc_zeros::<f32>(N)?;
    let mut total = stream.alloc_zeros::<f32>(1)?;
    let reports = AtomicU32::new(0);

    let mut g = Graph::new(ctx)?.with_name("saxpy");
    let xb = g.bind(&x)?;
    let yb = g.bind_mut(&mut y)?;
    let y2b = g.bind_mut(&mut y2)?;
    let tb = g.bind_mut(&mut total)?;
    let clear = g.add_memset("clear", &[], tb, 0.0f32)?;
    let step = g.add_kernel(
        "step",
        &[],
        &saxpy,
        LaunchConfig::for_num_elems(N as u32),
        (2.0f32, xb, yb, N as u32),
    )?;
    let block = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1024, 1, 1),
        shared_mem_bytes: 0,
    };
    let reduce = g.add_kernel(
        "reduce",
        &[&step, &clear],
        &sum,
        block,
        (yb.read(), tb, N as u32),
    )?;
    g.add_host("report", &[&reduce], || {
        reports.fetch_add(1, Ordering::Relaxed);
    })?;
    if g.to_dot() != plan().to_dot("saxpy") {
        return Err("the graph built differs from the plan printed".into());
    }

    let mut exec = g.instantiate()?;
    let sum_x: f64 = xs.iter().map(|&v| v as f64).sum();
    let read_total = |exec: &GraphExec<'_>| -> cuda_graph::Result<f32> {
        Ok(stream.clone_dtoh(exec.buffer(tb)?)?[0])
    };

    // Three launches with a = 2: y accumulates 2x each time.
    for k in 1..=3 {
        exec.launch(&stream)?;
        let t = read_total(&exec)?;
        println!("launch {k}: a = 2, sum(y) = {t}");
        check(t, 2.0 * k as f64 * sum_x)?;
    }

    // Live edit: a = 3. One driver call, no re-capture, no re-instantiation.
    let t0 = Instant::now();
    exec.node(step)?.set_arg::<0>(3.0)?;
    let edit = t0.elapsed();
    exec.launch(&stream)?;
    let t = read_total(&exec)?;
    println!("after set_arg::<0>(3.0) in {edit:?}: sum(y) = {t}");
    check(t, 9.0 * sum_x)?;

    // Move `step` and `reduce` onto the other output buffer.
    exec.node(step)?.set_arg::<2>(y2b)?;
    exec.node(reduce)?.set_arg::<0>(y2b.read())?;
    exec.launch(&stream)?;
    let t = read_total(&exec)?;
    println!("after moving to y2: sum(y2) = {t}");
    check(t, 3.0 * sum_x)?;

    // How long one setter takes, averaged (no launch in between: the driver call alone).
    let rounds = 10_000;
    let t0 = Instant::now();
    for i in 0..rounds {
        exec.node(step)?.set_arg::<0>(i as f32)?;
    }
    println!(
        "set_arg: {:.0} ns per call over {rounds} calls",
        t0.elapsed().as_nanos() as f64 / rounds as f64
    );
    exec.synchronize()?;
    println!(
        "host callback ran {} times",
        reports.load(Ordering::Relaxed)
    );
    Ok(())
}

fn check(got: f32, want: f64) -> Result<(), Box<dyn std::error::Error>> {
    if (got as f64 - want).abs() <= want.abs() * 1e-6 {
        Ok(())
    } else {
        Err(format!("expected {want}, got {got}").into())
    }
}
