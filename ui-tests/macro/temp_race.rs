use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        param n: u32;
        temp t: [u32; n];
        a = fill<<<1, 32>>>(t, n);
        b = fill<<<1, 32>>>(t, n);
    }
}

fn main() {}
