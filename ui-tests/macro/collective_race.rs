use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel scale(y: &mut [f32], n: u32);
        comm tp;
        buffer part: f32;
        buffer mut y: f32;
        param n: u32;
        ar = all_reduce(part -> y, n, sum) on tp;
        s = scale<<<1, 32>>>(y, n);
    }
}

fn main() {}
