use cuda_graph::cuda_graph;

/// 16 bytes like C's `Params`, but 4-byte aligned: its fields are not C's (`double bias`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Params {
    scale: f32,
    n: i32,
    bias: [f32; 2],
}
unsafe impl cuda_graph::cudarc::driver::DeviceRepr for Params {}

cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel apply(y: &mut [f32], p: Params);
        buffer mut y: f32;
        param p: Params;
        step = apply<<<1, 32>>>(y, p);
    }
}

fn main() {}
