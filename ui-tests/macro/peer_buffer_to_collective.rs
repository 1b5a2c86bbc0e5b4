use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer mut part: f32 on peer;
        ar = all_reduce(part -> part, 4096, sum) on tp;
    }
}

fn main() {}
