use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/pdl.cu";
        kernel produce;
        buffer mut y: f32;
        param n: i32;
        #[programmatic]
        a = produce<<<4, 256>>>(y, n);
    }
}

fn main() {}
