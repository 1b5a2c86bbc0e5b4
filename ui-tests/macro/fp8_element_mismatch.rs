use cuda_graph::cuda_graph;
use cuda_graph::fp8::{F8E4M3, F8E5M2};

cuda_graph! {
    graph G {
        source "cu/fp8.cu";
        kernel dequant(x: &[F8E5M2], y: &mut [f32], s: F8E4M3, n: i32);
        buffer x: F8E5M2;
        buffer mut y: f32;
        param s: F8E4M3;
        step = dequant<<<1, 32>>>(x, y, s, 32);
    }
}

fn main() {}
