use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/pdl.cu";
        kernel produce;
        kernel consume_late;
        buffer mut y: f32;
        buffer mut z: f32;
        param n: i32;
        a = produce<<<4, 256>>>(y, n);
        b = consume_late<<<4, 256>>>(y, z, n);
        #[programmatic]
        a -> b;
    }
}

fn main() {}
