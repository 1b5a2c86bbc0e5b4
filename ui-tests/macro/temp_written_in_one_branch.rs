use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        kernel copy(src: &[u32], dst: &mut [u32], n: u32);
        kernel pick(c: Cond);
        buffer mut out: u32;
        buffer mut log: u32;
        param n: u32;
        temp t: [u32; n];
        cond c;
        choose = pick<<<1, 1>>>(c);
        branch = if c {
            write = fill<<<1, 32>>>(t, n);
        } else {
            note = fill<<<1, 32>>>(log, n);
        }
        read = copy<<<1, 32>>>(t, out, n);
        choose -> branch -> read;
    }
}

fn main() {}
