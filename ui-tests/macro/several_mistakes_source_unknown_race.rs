//! Three independent mistakes in one block, each reported once in one build: a declaration
//! that disagrees with its `.cu` file, an unknown buffer, and a race between two other nodes.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel saxpy(a: f64, x: &[f32], y: &mut [f32], n: u32) in "cu/kernels.cu";
        kernel scale(y: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        buffer mut z: f32;
        param n: u32;
        first = saxpy<<<1, 32>>>(2.0, x, y, n);
        second = scale<<<1, 32>>>(zz, n);
        a = scale<<<1, 32>>>(z, n);
        b = scale<<<1, 32>>>(z, n);
        first -> second;
    }
}

fn main() {}
