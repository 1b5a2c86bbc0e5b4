use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        buffer x: f32;
        buffer mut y: f32;
        buffer mut z: f32;
        work gemm;
        g1 = capture(gemm, reads: [x], writes: [y]);
        g2 = capture(gemm, reads: [x], writes: [z]);
    }
}

fn main() {}
