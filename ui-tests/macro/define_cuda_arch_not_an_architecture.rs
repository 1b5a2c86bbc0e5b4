use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/targets.cu";
        define __CUDA_ARCH__ = 90;
        kernel relu_f32;
        buffer mut y: f32;
        r = relu_f32<<<1, 32>>>(y, 32);
    }
}

fn main() {}
