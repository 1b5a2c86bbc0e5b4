//! Two swapped letters in a kernel's name: "did you mean `saxpy`", no proposal to declare it.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        s = sapxy<<<1, 32>>>(2.0, x, y, 32);
    }
}

fn main() {}
