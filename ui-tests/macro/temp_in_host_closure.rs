use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [u32], n: u32);
        kernel copy(src: &[u32], dst: &mut [u32], n: u32);
        host_buffer mut out: u32;
        buffer mut dev: u32;
        param n: u32;
        temp t: [u32; n];
        write = fill<<<1, 32>>>(t, n);
        read = copy<<<1, 32>>>(t, dev, n);
        look = host(|| println!("{}", t.len()));
        back = memcpy(out, dev);
        write -> read -> back -> look;
    }
}
fn main() {}
