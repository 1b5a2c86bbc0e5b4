use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel saxpy;
        buffer x: f32;
        buffer mut y: f32;
        step = saxpy<<<1, 32>>>(2.0, x, y, 32);
    }
}

fn main() {}
