use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(y: &mut [f64], n: u32);
        buffer mut y: f64;
        param n: u32;
        fill = memset(y, 1.5);
        step = k<<<1, 32>>>(y, n);
        fill -> step;
    }
}

fn main() {}
