use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        buffer mut out: u32;
        param n: u32;
        temp spare: [f32; n];
        write = fill<<<1, 32>>>(out, n);
    }
}

fn main() {}
