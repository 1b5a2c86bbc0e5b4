use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(y: &mut [f32], n: u32);
        buffer mut y: f32;
        step = k<<<len.div_ceil(256), 256>>>(y, len);
    }
}

fn main() {}
