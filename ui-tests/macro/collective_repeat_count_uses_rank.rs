use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer mut x: f32;
        param layers: u32;
        stack = repeat l in 0..layers + rank {
            sum = all_reduce(x -> x, 4096, sum) on tp;
            carry sum -> sum;
        }
    }
}

fn main() {}
