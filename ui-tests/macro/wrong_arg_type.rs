use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        param n: u32;
        param scale: u32;
        step = saxpy<<<1, 32>>>(scale, x, y, n);
    }
}

fn main() {}
