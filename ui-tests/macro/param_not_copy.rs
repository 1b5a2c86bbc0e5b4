use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(y: &mut [f32], n: u32);
        buffer mut y: f32;
        param n: u32;
        param label: String;
        step = k<<<1, 32>>>(y, n);
        note = host(|| ());
        step -> note;
        tag = memset(y, label.len() as f32);
        note -> tag;
    }
}

fn main() {}
