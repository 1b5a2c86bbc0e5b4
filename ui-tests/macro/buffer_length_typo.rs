//! A param's name with two letters swapped in a buffer's length: "did you mean".
use cuda_graph::cuda_graph;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], count: u32);
        buffer mut y: [f32; cuont * 4];
        param count: u32;
        write = fill<<<1, 32>>>(y, count);
    }
}

fn main() {}
