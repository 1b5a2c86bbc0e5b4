use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(y: &mut [f32], n: u32);
        #[concurrent]
        buffer mut y: f32;
        param n: u32;
        step = k<<<1, 32>>>(y, n);
    }
}

fn main() {}
