use cuda_graph::prelude::*;

cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        kernel copy(src: &[u32], dst: &mut [u32], n: u32);
        buffer mut out: u32;
        param n: u32;
        temp t: [u32; n];
        write = fill<<<1, 32>>>(t, n);
        read = copy<<<1, 32>>>(t, out, n);
        write -> read;
    }
}

// A temporary exists only while a launch runs: it is no input and has no accessor.
fn peek(exec: &GExec<'_>) {
    let _ = exec.t();
}

fn main() {}
