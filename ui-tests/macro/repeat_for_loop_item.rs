use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel step(x: &mut [f32], n: u32);
        buffer mut x: f32;
        param steps: u32;
        param n: u32;
        for l in 0..steps {
            s = step<<<1, 32>>>(x, n);
        }
    }
}

fn main() {}
