//! Conjugate gradient on 2-D Poisson matrices (`cuda_graph_flagships::cg`): the whole solve as one
//! launch (a WHILE node) against the same kernels as one graph launch per iteration and as a
//! host loop of stream launches (a synchronization per iteration), interleaved so the three
//! see the same machine. Times are whole solves, launch to result, medians.
//!
//! Results go to `$OUT/cg.json` on the device machine, else `docs/bench/raw/cg.json`;
//! `bench_report` adds them to `docs/bench/results.{json,md}`.

use cuda_graph_flagships::cg;
use cuda_graph_flagships::harness::{self, median, Gpu};

use std::time::Instant;

use cg::{Buffers, CgIteration, CgSolve, Kernels, Poisson, SCALARS};

fn main() {
    if !harness::bench_requested() {
        return;
    }
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let ctx = gpu.ctx.clone();
    let gpu_name = gpu.name.clone();
    let stream = ctx.default_stream();
    let module = cuda_graph::compile(&ctx, CgSolve::SOURCE).expect("compile cg.cu");
    let kernels = Kernels::load(&module).expect("load the kernels");
    let mut rows = Vec::new();
    println!("| grid | n | iterations | one launch (WHILE) | graph launch / iteration | host loop | host loop / WHILE | per-iteration / WHILE |");
    println!("|---|---|---|---|---|---|---|---|");
    for m in [16usize, 32, 64, 128, 256] {
        let a = Poisson::new(m);
        let b = a.rhs();
        let (n, tol, max_iters) = (a.n as u32, 1e-5, 20 * m as u32);
        let (_, iters_ref) = cg::reference(&a, &b, tol, max_iters);
        let mut d1 = Buffers::upload(&stream, &a, &b);
        let mut d2 = Buffers::upload(&stream, &a, &b);
        let mut d3 = Buffers::upload(&stream, &a, &b);
        let mut solve = CgSolve::build(&module, d1.solve_inputs(n, tol, max_iters))
            .unwrap()
            .instantiate()
            .unwrap();
        let mut per = CgIteration::build(&module, d2.iteration_inputs(n, tol, max_iters))
            .unwrap()
            .instantiate()
            .unwrap();
        let mut host = [0.0f64; SCALARS];
        let reps = if m >= 128 { 15 } else { 31 };
        let (mut tw, mut tp, mut th) = (Vec::new(), Vec::new(), Vec::new());
        let mut iters = (0, 0, 0);
        for rep in 0..reps + 2 {
            let t = Instant::now();
            cg::solve_once(&stream, &mut solve).unwrap();
            let w = t.elapsed().as_secs_f64() * 1e6;
            let t = Instant::now();
            let ip = cg::iterate(&stream, &mut per, max_iters, &mut host).unwrap();
            let p = t.elapsed().as_secs_f64() * 1e6;
            let t = Instant::now();
            let ih = cg::host_loop(&stream, &kernels, &mut d3, n, tol, max_iters, &mut host);
            let h = t.elapsed().as_secs_f64() * 1e6;
            // The first two rounds warm up (module loading, uploads, clocks).
            if rep >= 2 {
                tw.push(w);
                tp.push(p);
                th.push(h);
            }
            iters = (cg::solve_outcome(&stream, &solve).iterations, ip, ih);
        }
        let (w, p, h) = (median(tw), median(tp), median(th));
        println!(
            "| {m}x{m} | {n} | {} (CPU {iters_ref}) | {w:.1} µs | {p:.1} µs | {h:.1} µs | {:.2}x | {:.2}x |",
            iters.0,
            h / w,
            p / w
        );
        for (imp, us, it) in [
            ("cuda_graph_while", w, iters.0),
            ("cuda_graph_per_iteration", p, iters.1),
            ("host_loop", h, iters.2),
        ] {
            rows.push(format!(
                "  {{\"case\": \"cg_solve\", \"shape\": \"poisson{m}x{m}\", \"nodes\": {n}, \"impl\": \"{imp}\", \"via\": \"whole solve, {reps} runs\", \"median_us\": {us:.3}, \"iterations\": {it}, \"cpu_iterations\": {iters_ref}, \"gpu\": \"{gpu_name}\"}}"
            ));
        }
    }
    let json = format!("[\n{}\n]\n", rows.join(",\n"));
    harness::write_json("cg.json", &json);
}
