use cuda_graph::cuda_graph;

// `ScaleMode` has `kPerTensor`; the enumerator is misspelled.
cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel scale<f32, ScaleMode::kPerTensr>;
        buffer mut y: f32;
        step = scale<<<1, 32>>>(y, 32);
    }
}

fn main() {}
