use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        buffer x: f32;
        buffer mut y: f32;
        work gemm;
        g = capture(gemm, inputs: [x], writes: [y]);
    }
}

fn main() {}
