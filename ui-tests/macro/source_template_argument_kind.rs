use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/cpp.cu";
        kernel fill<f32, f32>;
        buffer mut y: f32;
        step = fill<<<1, 32>>>(y, 1.0, 32);
    }
}

fn main() {}
