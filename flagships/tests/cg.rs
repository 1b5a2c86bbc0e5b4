//! The conjugate-gradient flagship (`src/cg.rs`) on a GPU: the one-launch WHILE
//! solve, one graph launch per iteration and the host loop all agree with a CPU solve in `f64`;
//! a param setter reaches the check kernel inside the loop's body.

use cuda_graph_flagships::cg;
use cuda_graph_flagships::harness::Gpu;

use cg::{Buffers, CgIteration, CgSolve, Kernels, Poisson, SCALARS};

fn rel_err(x: &[f32], r: &[f64]) -> f64 {
    let num: f64 = x.iter().zip(r).map(|(&u, v)| (u as f64 - v).powi(2)).sum();
    (num / r.iter().map(|v| v * v).sum::<f64>()).sqrt()
}

#[test]
fn cg_variants_agree_with_the_cpu() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let module = cuda_graph::compile(&gpu.ctx, CgSolve::SOURCE).unwrap();
    let kernels = Kernels::load(&module).unwrap();
    for m in [32usize, 45] {
        let a = Poisson::new(m);
        let b = a.rhs();
        let (n, tol, max_iters) = (a.n as u32, 1e-5, 20 * m as u32);
        let (x_ref, iters_ref) = cg::reference(&a, &b, tol, max_iters);
        assert!(
            iters_ref > 10 && iters_ref < max_iters,
            "m {m}: {iters_ref}"
        );
        let close = |what: &str, x: &[f32], iters: u32| {
            let res = cg::relative_residual(&a, x, &b);
            assert!(res < 1e-3, "{what}, m {m}: residual {res}");
            let err = rel_err(x, &x_ref);
            assert!(err < 1e-4, "{what}, m {m}: error vs CPU {err}");
            assert!(
                iters.abs_diff(iters_ref) <= iters_ref / 20 + 2,
                "{what}, m {m}: {iters} iterations, CPU {iters_ref}"
            );
        };

        let mut d = Buffers::upload(&gpu.stream, &a, &b);
        let mut solve = CgSolve::build(&module, d.solve_inputs(n, tol, max_iters))
            .unwrap()
            .instantiate()
            .unwrap();
        cg::solve_once(&gpu.stream, &mut solve).unwrap();
        let first = cg::solve_outcome(&gpu.stream, &solve);
        close("WHILE", &first.x, first.iterations);
        // Launched again, it starts over (the condition takes its default at each launch).
        cg::solve_once(&gpu.stream, &mut solve).unwrap();
        let again = cg::solve_outcome(&gpu.stream, &solve);
        close("WHILE, relaunched", &again.x, again.iterations);
        // A param setter reaches `check`, inside the loop's body: exactly 5 iterations.
        solve.set_max_iters(5).unwrap();
        cg::solve_once(&gpu.stream, &mut solve).unwrap();
        assert_eq!(cg::solve_outcome(&gpu.stream, &solve).iterations, 5);

        let mut host = [0.0f64; SCALARS];
        let mut d2 = Buffers::upload(&gpu.stream, &a, &b);
        let mut per = CgIteration::build(&module, d2.iteration_inputs(n, tol, max_iters))
            .unwrap()
            .instantiate()
            .unwrap();
        for _ in 0..2 {
            let iters = cg::iterate(&gpu.stream, &mut per, max_iters, &mut host).unwrap();
            assert_eq!(iters, host[cg::ITERS] as u32);
            close("per-iteration graph", &gpu.read(per.x().unwrap()), iters);
        }

        let mut d3 = Buffers::upload(&gpu.stream, &a, &b);
        let iters = cg::host_loop(&gpu.stream, &kernels, &mut d3, n, tol, max_iters, &mut host);
        close("host loop", &gpu.read(&d3.x), iters);
    }
}
