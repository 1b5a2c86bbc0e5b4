//! Two swapped letters in a param: "did you mean `alpha`", and no proposal to declare `alhpa`.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel scale(y: &mut [f32], a: f32);
        buffer mut y: f32;
        param alpha: f32;
        s = scale<<<1, 32>>>(y, alhpa);
    }
}

fn main() {}
