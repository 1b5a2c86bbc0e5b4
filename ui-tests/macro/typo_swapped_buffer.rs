//! Two swapped letters in a buffer of a memset: "did you mean `state`", nothing declared anew.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        buffer mut state: f32;
        clear = memset(sttae, 0.0);
    }
}

fn main() {}
