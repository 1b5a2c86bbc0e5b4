use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer mut y: f32;
        param n: u32;
        ar = all_reduce(y -> y, n, sum) on n;
        bc = broadcast(y -> y, n, root = 0) on tp;
        ar -> bc;
    }
}

fn main() {}
