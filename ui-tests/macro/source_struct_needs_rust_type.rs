use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/cpp.cu";
        kernel apply;
        buffer mut y: f32;
        step = apply<<<1, 32>>>(y, 0);
    }
}

fn main() {}
