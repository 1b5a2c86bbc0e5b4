use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        kernel copy(src: &[u32], dst: &mut [u32], n: u32);
        buffer mut out: u32;
        param n: u32;
        temp t: [u32; n];
        first = copy<<<1, 32>>>(t, out, n);
        second = fill<<<1, 32>>>(t, n);
        first -> second;
    }
}

fn main() {}
