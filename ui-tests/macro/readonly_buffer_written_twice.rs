use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(y: &mut [f32], n: u32);
        buffer y: f32;
        param n: u32;
        first = k<<<1, 32>>>(y, n);
        second = k<<<1, 32>>>(y, n);
        first -> second;
    }
}

fn main() {}
