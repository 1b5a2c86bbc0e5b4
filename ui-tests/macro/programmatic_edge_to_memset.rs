use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/pdl.cu";
        kernel produce;
        buffer mut y: f32;
        buffer mut z: f32;
        param n: i32;
        a = produce<<<4, 256>>>(y, n);
        clear = memset(z, 0.0f32);
        #[programmatic]
        a -> clear;
    }
}

fn main() {}
