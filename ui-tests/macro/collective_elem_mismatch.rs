use cuda_graph::prelude::*;
use cuda_graph::half::f16;
cuda_graph! {
    graph G {
        comm tp;
        buffer part: f32;
        buffer mut y: f16;
        ar = all_reduce(part -> y, 1024, sum) on tp;
    }
}

fn main() {}
