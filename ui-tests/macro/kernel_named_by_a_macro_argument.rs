use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/targets.cu";
        kernel relu;
        buffer mut y: f32;
        r = relu<<<1, 32>>>(y, 32);
    }
}

fn main() {}
