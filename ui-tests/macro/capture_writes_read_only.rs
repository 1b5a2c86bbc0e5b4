use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        buffer x: f32;
        buffer w: f32;
        work gemm;
        g = capture(gemm, reads: [w], writes: [x]);
    }
}

fn main() {}
