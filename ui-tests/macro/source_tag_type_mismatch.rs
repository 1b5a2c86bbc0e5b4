use cuda_graph::cuda_graph;

// `std::bool_constant<Atomic>` is an empty tag type: `Tag`, one byte no kernel reads.
cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel reduce<f32, true>(out: &mut [f32], input: &[f32], n: i32, atomic: bool);
        buffer mut out: f32;
        buffer input: f32;
        step = reduce<<<1, 32>>>(out, input, 32, true);
    }
}

fn main() {}
