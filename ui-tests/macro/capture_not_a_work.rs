use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        buffer x: f32;
        buffer mut y: f32;
        param gemm: u32;
        g = capture(gemm, reads: [x], writes: [y]);
    }
}

fn main() {}
