use cuda_graph::cuda_graph;

cuda_graph! {
    block scale {
        kernel k(x: &mut [f32], n: u32);
        buffer mut x: f32;
        param n: u32;
        s = k<<<1, 32>>>(x, n);
    }

    graph G {
        inputs sacle;
        one = use scale;
    }
}

fn main() {}
