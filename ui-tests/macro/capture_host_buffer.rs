use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        host_buffer x: f32;
        buffer mut y: f32;
        work copy;
        g = capture(copy, reads: [x], writes: [y]);
    }
}

fn main() {}
