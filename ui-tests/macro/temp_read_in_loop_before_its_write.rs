use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        kernel copy(src: &[u32], dst: &mut [u32], n: u32);
        kernel again(c: Cond);
        buffer mut out: u32;
        param n: u32;
        temp t: [u32; n];
        cond go = 1;
        run = while go {
            read = copy<<<1, 32>>>(t, out, n);
            write = fill<<<1, 32>>>(t, n);
            decide = again<<<1, 1>>>(go);
            read -> write -> decide;
        }
    }
}

fn main() {}
