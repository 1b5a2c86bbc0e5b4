use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        param n: u32;
        temp t: [u32; n];
        write = fill<<<t, 32>>>(t, n);
    }
}

fn main() {}
