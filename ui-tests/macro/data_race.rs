use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
        kernel sum(y: &[f32], total: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        buffer mut total: f32;
        param n: u32;
        step = saxpy<<<1, 32>>>(2.0, x, y, n);
        reduce = sum<<<1, 32>>>(y, total, n);
    }
}

fn main() {}
