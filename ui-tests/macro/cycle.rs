use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(y: &mut [f32], n: u32);
        buffer mut y: f32;
        param n: u32;
        a = k<<<1, 32>>>(y, n);
        b = k<<<1, 32>>>(y, n);
        c = k<<<1, 32>>>(y, n);
        a -> b -> c;
        c -> a;
    }
}

fn main() {}
