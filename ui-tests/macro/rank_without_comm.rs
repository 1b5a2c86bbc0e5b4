use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel shard(y: &mut [f32], rank: u32);
        buffer mut y: f32;
        s = shard<<<1, 32>>>(y, rank);
    }
}

fn main() {}
