use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(y: &mut [f32], N: u32, n: u32);
        buffer mut y: f32;
        param len: u32;
        step = k<<<1, 32>>>(y, len, len);
    }
}

fn main() {}
