use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer mut x: f32;
        buffer mut y: f32;
        param n: u32;
        ax = all_reduce(x -> x, n, sum) on tp;
        ay = all_reduce(y -> y, n, sum) on tp;
    }
}

fn main() {}
