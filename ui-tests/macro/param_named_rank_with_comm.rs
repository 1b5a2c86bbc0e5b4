use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel shard(y: &mut [f32], rank: u32);
        comm tp;
        buffer mut y: f32;
        param rank: u32;
        s = shard<<<1, 32>>>(y, rank);
        ar = all_reduce(y -> y, 1024, sum) on tp;
        s -> ar;
    }
}

fn main() {}
