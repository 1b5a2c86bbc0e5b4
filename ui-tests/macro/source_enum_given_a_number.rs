use cuda_graph::cuda_graph;

// C++ converts no integer to an enum: the template argument must be an enumerator.
cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel scale<f32, 1>;
        buffer mut y: f32;
        step = scale<<<1, 32>>>(y, 32);
    }
}

fn main() {}
