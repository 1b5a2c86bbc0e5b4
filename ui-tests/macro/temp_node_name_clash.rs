use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        kernel copy(src: &[u32], dst: &mut [u32], n: u32);
        buffer mut out: u32;
        param n: u32;
        temp t: [u32; n];
        alloc_t = fill<<<1, 32>>>(out, n);
        write = fill<<<1, 32>>>(t, n);
        read = copy<<<1, 32>>>(t, out, n);
        alloc_t -> write -> read;
    }
}

fn main() {}
