use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        buffer x: f32;
        buffer mut y: u32;
        copy = memcpy(y, x);
    }
}

fn main() {}
