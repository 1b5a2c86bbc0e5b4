//! Blocks exported by one crate and placed by another: this crate (`cuda-graph-bench`, its own
//! manifest directory) imports the conjugate-gradient blocks the flagships crate exports
//! (`pub block cg_setup`, `pub block cg_step`), whose CUDA source lives there, and places them
//! in a graph of its own. One launch of it (the setup and one step) leaves `x` and `r`
//! bit-identical to the flagship's `CgIteration` after its first launch, and both match one CG
//! step computed on the CPU in `f64`.

use cuda_graph::prelude::*;
use cuda_graph_flagships::cg::{self, Buffers, CgIteration, Poisson};
use cuda_graph_flagships::harness::Gpu;

cuda_graph! {
    use cuda_graph_flagships::cg::cg_setup;
    use cuda_graph_flagships::cg::cg_step;

    /// The setup, then one step down the first direction.
    graph FirstStep {
        inputs cg_setup;                // every buffer and param the two blocks declare
        inputs cg_step;
        setup = use cg_setup;
        step = use cg_step;
        setup -> step;
    }
}

/// `x1 = alpha b`, `r1 = b - alpha A b` with `alpha = b.b / b.Ab` (CG from `x0 = 0`).
fn first_step_on_cpu(a: &Poisson, b: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let b: Vec<f64> = b.iter().map(|&v| v as f64).collect();
    let ab: Vec<f64> = (0..a.n)
        .map(|i| {
            (a.rowptr[i] as usize..a.rowptr[i + 1] as usize)
                .map(|k| a.val[k] as f64 * b[a.col[k] as usize])
                .sum()
        })
        .collect();
    let rr: f64 = b.iter().map(|v| v * v).sum();
    let pap: f64 = b.iter().zip(&ab).map(|(u, v)| u * v).sum();
    let alpha = rr / pap;
    let x = b.iter().map(|v| alpha * v).collect();
    let r = b.iter().zip(&ab).map(|(u, v)| u - alpha * v).collect();
    (x, r)
}

#[test]
fn an_imported_block_runs_as_the_exporting_crate_places_it() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let a = Poisson::new(40);
    let b = a.rhs();
    let (n, tol) = (a.n as u32, 1e-5);

    let mut mine = Buffers::upload(&gpu.stream, &a, &b);
    let inputs = FirstStepInputs {
        rowptr: &mine.rowptr,
        col: &mine.col,
        val: &mine.val,
        b: &mine.b,
        x: &mut mine.x,
        r: &mut mine.r,
        p: &mut mine.p,
        ap: &mut mine.ap,
        s: &mut mine.s,
        n,
        tol,
    };
    // The blocks name the flagship's file by its absolute path: built from its module.
    let module = cuda_graph::compile(&gpu.ctx, cg::CgSolve::SOURCE).unwrap();
    let mut exec = FirstStep::build(&module, inputs)
        .unwrap()
        .instantiate()
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    drop(exec);
    let (x, r) = (
        gpu.stream.clone_dtoh(&mine.x).unwrap(),
        gpu.stream.clone_dtoh(&mine.r).unwrap(),
    );

    let mut theirs = Buffers::upload(&gpu.stream, &a, &b);
    let mut exec = CgIteration::build(&module, theirs.iteration_inputs(n, tol, 100))
        .unwrap()
        .instantiate()
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    drop(exec);
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&x), bits(&gpu.stream.clone_dtoh(&theirs.x).unwrap()));
    assert_eq!(bits(&r), bits(&gpu.stream.clone_dtoh(&theirs.r).unwrap()));

    let (x_ref, r_ref) = first_step_on_cpu(&a, &b);
    let worst = |got: &[f32], want: &[f64]| {
        let scale = want.iter().fold(0f64, |m, v| m.max(v.abs()));
        got.iter()
            .zip(want)
            .map(|(&g, w)| (g as f64 - w).abs() / scale)
            .fold(0f64, f64::max)
    };
    assert!(worst(&x, &x_ref) < 1e-5, "x: {}", worst(&x, &x_ref));
    assert!(worst(&r, &r_ref) < 1e-5, "r: {}", worst(&r, &r_ref));
    assert!(x.iter().chain(&r).all(|v| v.is_finite()));
}
