//! A kernel declaration that disagrees with its `.cu` file is the one error: `build_from_source`,
//! `check_source`, `compile_options` and `SOURCE` keep their signatures, so the code that calls
//! them reports nothing more.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/kernels.cu";
        kernel saxpy(a: f64, x: &[f32], y: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        step = saxpy<<<1, 32>>>(2.0, x, y, 32);
    }
}

fn run(
    ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>,
    x: &cuda_graph::cudarc::driver::CudaSlice<f32>,
    y: &mut cuda_graph::cudarc::driver::CudaSlice<f32>,
) -> cuda_graph::Result<()> {
    let checked = G::check_source(cuda_graph::check::Arch::SM_90);
    let _ = checked;
    let _options = G::compile_options();
    let _len = G::SOURCE.len();
    let graph = G::build_from_source(ctx, GInputs { x, y })?;
    let _ = graph;
    Ok(())
}

fn main() {
    let _ = run;
}
