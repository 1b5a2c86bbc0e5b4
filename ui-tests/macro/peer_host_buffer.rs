use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        host_buffer out: f32 on peer;
        buffer mut y: f32;
        up = memcpy(y, out);
    }
}

fn main() {}
