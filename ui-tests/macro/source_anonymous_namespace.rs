use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/cpp.cu";
        kernel internal;
        buffer mut y: f32;
        step = internal<<<1, 32>>>(y);
    }
}

fn main() {}
