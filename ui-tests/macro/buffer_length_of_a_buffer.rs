//! A buffer's length names another buffer: lengths use params and constants only.
use cuda_graph::cuda_graph;
cuda_graph! {
    graph G {
        kernel copy(x: &[f32], y: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: [f32; x];
        param n: u32;
        write = copy<<<1, 32>>>(x, y, n);
    }
}

fn main() {}
