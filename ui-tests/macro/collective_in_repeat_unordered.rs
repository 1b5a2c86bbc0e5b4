use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        buffer mut shard: f32;
        buffer mut full: f32;
        param layers: u32;
        stack = repeat l in 0..layers {
            gather = all_gather(shard -> full, 1024) on tp;
            scatter = reduce_scatter(full -> shard, 1024, sum) on tp;
            gather -> scatter;
        }
    }
}

fn main() {}
