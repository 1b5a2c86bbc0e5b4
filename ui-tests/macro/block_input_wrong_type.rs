use cuda_graph::cuda_graph;

cuda_graph! {
    block layer(l) {
        kernel scale(x: &mut [f32], w: &[f32], n: u32);
        buffer mut x: f32;
        buffer w[layers]: f32;
        param n: u32;
        s = scale<<<1, 32>>>(x, w[l], n);
    }

    graph G {
        buffer mut x: u32;
        buffer w[layers]: f32;
        param layers: u32;
        param n: u32;
        all = repeat l in 0..layers {
            one = use layer(l);
        }
    }
}

fn main() {}
