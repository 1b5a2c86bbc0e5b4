//! Three independent mistakes in one block, each reported once in one build: an unknown param
//! (two letters swapped), a temporary read before any node writes it, and a race.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], n: u32);
        kernel apply(x: &[f32], y: &mut [f32], n: u32);
        param n: u32;
        param count: u32;
        temp t: [f32; n];
        buffer mut y: f32;
        buffer mut z: f32;
        w = fill<<<1, 32>>>(z, cuont);
        r = apply<<<1, 32>>>(t, y, n);
        a = fill<<<1, 32>>>(y, count);
        w -> r;
    }
}

fn main() {}
