use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel produce(y: &mut [f32], n: i32);
        kernel consume(y: &[f32], z: &mut [f32], n: i32);
        buffer mut y: f32;
        buffer mut z: f32;
        param n: i32;
        a = produce<<<4, 256>>>(y, n);
        b = consume<<<4, 256>>>(y, z, n);
        #[programmatic]
        a -> b;
    }
}

fn main() {}
