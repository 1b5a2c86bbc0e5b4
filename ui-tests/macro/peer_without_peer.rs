use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        buffer x: f32 on device;
        buffer mut y: f32;
        up = memcpy(y, x);
    }
}

fn main() {}
