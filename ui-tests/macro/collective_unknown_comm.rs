use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer mut y: f32;
        ar = all_reduce(y -> y, 1024, sum) on tpp;
        bc = broadcast(y -> y, 1024, root = 0) on tp;
        ar -> bc;
    }
}

fn main() {}
