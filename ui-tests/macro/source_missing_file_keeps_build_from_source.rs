//! A source file that cannot be read is the one error: `build_from_source` and `check_source`
//! keep their signatures, so the code that calls them reports nothing more.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/no_such_file.cu";
        kernel saxpy;
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
    let graph = G::build_from_source(ctx, GInputs { x, y })?;
    let _ = graph;
    Ok(())
}

fn main() {
    let _ = run;
}
