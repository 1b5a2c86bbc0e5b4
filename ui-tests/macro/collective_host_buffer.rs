use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        comm tp;
        host_buffer x: f32;
        s = send(x, 1024, to = (rank + 1) % world) on tp;
    }
}

fn main() {}
