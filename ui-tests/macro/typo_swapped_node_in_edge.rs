//! Two swapped letters in a node named by an edge: "did you mean `step`".
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel touch(y: &mut [f32]);
        buffer mut y: f32;
        init = touch<<<1, 32>>>(y);
        step = touch<<<1, 32>>>(y);
        init -> setp;
    }
}

fn main() {}
