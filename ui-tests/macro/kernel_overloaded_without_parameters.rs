use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/targets.cu";
        kernel fill;
        buffer mut y: f32;
        f = fill<<<1, 32>>>(y, 1.0f32, 32);
    }
}

fn main() {}
