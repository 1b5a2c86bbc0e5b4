use cuda_graph::cuda_graph;

// `ScaleMode` is an `enum class`: C++ names its enumerators through it.
cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel scale<f32, kPerTensor>;
        buffer mut y: f32;
        step = scale<<<1, 32>>>(y, 32);
    }
}

fn main() {}
