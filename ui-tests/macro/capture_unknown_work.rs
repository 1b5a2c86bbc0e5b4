use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        buffer x: f32;
        buffer mut y: f32;
        work gemm;
        g = capture(gem, reads: [x], writes: [y]);
    }
}

fn main() {}
