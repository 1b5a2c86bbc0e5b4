use cuda_graph::cuda_graph;

struct Particle {
    x: f32,
}

cuda_graph! {
    graph G {
        kernel k(p: &mut [Particle], n: u32);
        buffer mut p: Particle;
        param n: u32;
        step = k<<<1, 32>>>(p, n);
    }
}

fn main() {}
