use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/cpp.cu";
        kernel extra;
        buffer mut y: f32;
        step = extra<<<1, 32>>>(y);
    }
}

fn main() {}
