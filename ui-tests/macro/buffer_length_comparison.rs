//! A buffer's length is an integer: a comparison is refused at its operator.
use cuda_graph::cuda_graph;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], n: u32);
        buffer mut y: [f32; n >= 4];
        param n: u32;
        write = fill<<<1, 32>>>(y, n);
    }
}

fn main() {}
