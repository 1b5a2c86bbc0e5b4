use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], v: f32) in "cu/kernels.cu";
        buffer mut y: f32;
        step = fill<<<1, 32>>>(y, 1.0);
    }
}

fn main() {}
