//! A buffer's length counts elements: a float literal is refused where it is written.
use cuda_graph::cuda_graph;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], n: u32);
        buffer mut y: [f32; n * 2.5];
        param n: u32;
        write = fill<<<1, 32>>>(y, n);
    }
}

fn main() {}
