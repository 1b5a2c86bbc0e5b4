use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/targets.cu";
        kernel step;
        buffer mut y: f32;
        s = step<<<1, 32>>>(y, 32);
    }
}

fn main() {}
