//! A buffer's length uses a repeat block's loop variable, known only inside its body.
use cuda_graph::cuda_graph;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], n: u32);
        buffer mut w[2]: [f32; n * l];
        param n: u32;
        layers = repeat l in 0..2 {
            write = fill<<<1, 32>>>(w[l], n);
        }
    }
}

fn main() {}
