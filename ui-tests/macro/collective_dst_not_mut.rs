use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer x: f32;
        buffer y: f32;
        bc = broadcast(x -> y, 1024, root = 0) on tp;
    }
}

fn main() {}
