use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/targets.cu";
        kernel rmsnorm<f32, 256>;
        buffer mut y: f32;
        buffer x: f32;
        n = rmsnorm<<<1, 256>>>(y, x);
    }
}

fn main() {}
