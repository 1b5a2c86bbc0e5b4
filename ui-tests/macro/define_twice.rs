use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/cpp.cu";
        define WITH_EXTRA;
        define WITH_EXTRA = 2;
        kernel extra;
        buffer mut y: f32;
        step = extra<<<1, 32>>>(y);
    }
}

fn main() {}
