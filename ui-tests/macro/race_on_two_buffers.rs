//! Two nodes racing on two buffers: one error naming both, `#[disjoint]` proposed once.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel both(x: &mut [f32], y: &mut [f32]);
        buffer mut x: f32;
        buffer mut y: f32;
        a = both<<<1, 32>>>(x, y);
        b = both<<<1, 32>>>(x, y);
    }
}

fn main() {}
