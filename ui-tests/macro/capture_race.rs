use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel scale(y: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        param n: u32;
        work gemm;
        g = capture(gemm, reads: [x], writes: [y]);
        s = scale<<<1, 32>>>(y, n);
    }
}

fn main() {}
