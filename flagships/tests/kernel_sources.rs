//! Every graph of the flagships library that names its CUDA source, compiled as
//! `build_from_source` will (its defines and template instances), to machine code, with no
//! GPU. The Llama and MLP kernels run `griddepcontrol` themselves (Hopper and later): sm_90
//! only; the conjugate gradient's also for sm_80.

use cuda_graph::check::{Arch, GraphCheck};
use cuda_graph_flagships::llama::{graph, loop_graph, tp, tp_loop};
use cuda_graph_flagships::{cg, mlp, tp_mlp};

fn check(graphs: &[GraphCheck], archs: &[Arch]) {
    if let Err(e) = cuda_graph::check::graphs(graphs, archs) {
        panic!("{e}");
    }
}

#[test]
fn the_llama_graphs_compile_for_sm_90() {
    check(
        &[
            ("StepF32", graph::StepF32::check_source),
            ("StepBf16", graph::StepBf16::check_source),
            ("GenF32", loop_graph::GenF32::check_source),
            ("GenBf16", loop_graph::GenBf16::check_source),
            ("TpStepF32", tp::TpStepF32::check_source),
            ("TpStepBf16", tp::TpStepBf16::check_source),
            ("GenTpF32", tp_loop::GenTpF32::check_source),
            ("GenTpBf16", tp_loop::GenTpBf16::check_source),
        ],
        &[Arch::SM_90],
    );
}

#[test]
fn the_mlp_graphs_compile_for_sm_90() {
    check(
        &[
            ("MlpVec", mlp::MlpVec::check_source),
            ("MlpSplit", mlp::MlpSplit::check_source),
            ("TpMlpVec", tp_mlp::TpMlpVec::check_source),
            ("TpMlp", tp_mlp::TpMlp::check_source),
        ],
        &[Arch::SM_90],
    );
}

#[test]
fn the_conjugate_gradient_compiles_for_sm_90_and_sm_80() {
    check(
        &[
            ("CgSolve", cg::CgSolve::check_source),
            ("CgIteration", cg::CgIteration::check_source),
        ],
        &[Arch::SM_90, Arch::SM_80],
    );
}
