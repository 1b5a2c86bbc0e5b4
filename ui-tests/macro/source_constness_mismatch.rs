use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/kernels.cu";
        kernel saxpy(a: f32, x: &mut [f32], y: &mut [f32], n: u32);
        buffer mut x: f32;
        buffer mut y: f32;
        step = saxpy<<<1, 32>>>(2.0, x, y, 32);
    }
}

fn main() {}
