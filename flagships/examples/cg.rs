//! Conjugate gradient on a 2-D Poisson matrix where the whole solve is one graph launch: the
//! iterations are a WHILE node, and a kernel decides on the device when to stop. The same
//! kernels also run driven by a host loop (stream launches, a synchronization per iteration)
//! and as one graph launch per iteration; all three are checked against a CPU solve.
//!
//! Run: `cargo run --release -p cuda-graph-flagships --example cg [m]` (an `m x m` grid, 64 by default; exits 2 with a
//! message when there is no GPU).
#![deny(warnings)]

use std::process::ExitCode;
use std::time::Instant;

use cuda_graph_flagships::cg;

use cg::{Buffers, CgIteration, CgSolve, Kernels, Poisson, SCALARS};

fn main() -> ExitCode {
    println!("{}", CgSolve::DOT);
    let m: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("cg needs a CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&ctx, m) {
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
    m: usize,
) -> Result<bool, cuda_graph::Error> {
    let stream = ctx.default_stream();
    let module = cuda_graph::compile(ctx, CgSolve::SOURCE)?;
    let a = Poisson::new(m);
    let b = a.rhs();
    let (n, tol, max_iters) = (a.n as u32, 1e-5, 20 * m as u32);
    let (x_ref, iters_ref) = cg::reference(&a, &b, tol, max_iters);
    println!(
        "Poisson {m}x{m} (n = {n}, {} nonzeros), tol {tol}: CPU reference {iters_ref} iterations",
        a.val.len()
    );

    let mut ok = true;
    let mut report = |what: &str, x: &[f32], iters: u32, secs: f64| {
        let res = cg::relative_residual(&a, x, &b);
        let err = {
            let num: f64 = x
                .iter()
                .zip(&x_ref)
                .map(|(&u, v)| (u as f64 - v).powi(2))
                .sum();
            let den: f64 = x_ref.iter().map(|v| v * v).sum();
            (num / den).sqrt()
        };
        let good = res < 1e-3 && err < 1e-4 && iters.abs_diff(iters_ref) <= iters_ref / 20 + 2;
        ok &= good;
        println!(
            "{what:<28} {iters:>5} iterations  {:>9.1} us  residual {res:.2e}  error vs CPU {err:.2e}  {}",
            secs * 1e6,
            if good { "ok" } else { "WRONG" }
        );
    };

    let mut d = Buffers::upload(&stream, &a, &b);
    let mut solve = CgSolve::build(&module, d.solve_inputs(n, tol, max_iters))?.instantiate()?;
    cg::solve_once(&stream, &mut solve)?; // warm-up
    let t = Instant::now();
    cg::solve_once(&stream, &mut solve)?;
    let secs = t.elapsed().as_secs_f64();
    let out = cg::solve_outcome(&stream, &solve);
    report("one launch (WHILE node)", &out.x, out.iterations, secs);

    let mut host = [0.0f64; SCALARS];
    let mut d2 = Buffers::upload(&stream, &a, &b);
    let mut per =
        CgIteration::build(&module, d2.iteration_inputs(n, tol, max_iters))?.instantiate()?;
    cg::iterate(&stream, &mut per, max_iters, &mut host)?;
    let t = Instant::now();
    let iters = cg::iterate(&stream, &mut per, max_iters, &mut host)?;
    let secs = t.elapsed().as_secs_f64();
    let x = stream.clone_dtoh(per.x()?)?;
    report("one graph launch/iteration", &x, iters, secs);

    let kernels = Kernels::load(&module)?;
    let mut d3 = Buffers::upload(&stream, &a, &b);
    cg::host_loop(&stream, &kernels, &mut d3, n, tol, max_iters, &mut host);
    let t = Instant::now();
    let iters = cg::host_loop(&stream, &kernels, &mut d3, n, tol, max_iters, &mut host);
    let secs = t.elapsed().as_secs_f64();
    let x = stream.clone_dtoh(&d3.x)?;
    report("host loop (stream launches)", &x, iters, secs);
    Ok(ok)
}
