use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        buffer mut y: f32;
        param n: u32;
        temp t: [f32; n];
        work gemm;
        g = capture(gemm, reads: [t], writes: [y]);
    }
}

fn main() {}
