use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer x: f32;
        buffer mut y: f32;
        param n: u32;
        ag = all_gather(x -> y, n * (rank + 1)) on tp;
    }
}

fn main() {}
