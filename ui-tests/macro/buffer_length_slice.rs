//! `[f32]` is no length: a buffer is `T` or `[T; len]`.
use cuda_graph::cuda_graph;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], n: u32);
        buffer mut y: [f32];
        param n: u32;
        write = fill<<<1, 32>>>(y, n);
    }
}

fn main() {}
