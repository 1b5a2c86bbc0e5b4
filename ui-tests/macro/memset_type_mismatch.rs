use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        buffer mut total: f32;
        clear = memset(total, 0u32);
    }
}

fn main() {}
