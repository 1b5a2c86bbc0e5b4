use cuda_graph::cuda_graph;

/// Misses C's `double bias`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Params {
    scale: f32,
    n: i32,
}
unsafe impl cuda_graph::cudarc::driver::DeviceRepr for Params {}

cuda_graph! {
    graph G {
        source "cu/cpp.cu";
        kernel apply(y: &mut [f32], p: Params);
        buffer mut y: f32;
        param p: Params;
        step = apply<<<1, 32>>>(y, p);
    }
}

fn main() {}
