use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/helpers_only.cu";
        kernel twice(v: f32);
        param v: f32;
        step = twice<<<1, 1>>>(v);
    }
}

fn main() {}
