use cuda_graph::cuda_graph;

cuda_graph! {
    graph Inner {
        kernel k(y: &mut [f32], n: u32);
        buffer mut y: f32;
        param n: u32;
        step = k<<<1, 32>>>(y, n);
    }

    graph Outer {
        buffer mut x: f32;
        sub = child(Inner { y: x, count: 4 });
    }
}

fn main() {}
