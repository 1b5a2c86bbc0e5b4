use cuda_graph::cuda_graph;

cuda_graph! {
    graph Inner {
        kernel k(y: &mut [f32], n: u32);
        buffer mut y: f32;
        param n: u32;
        step = k<<<1, 32>>>(y, n);
    }
}

cuda_graph! {
    graph Outer {
        kernel r(x: &[f32], n: u32);
        buffer x: f32;
        param n: u32;
        look = r<<<1, 32>>>(x, n);
        sub = child(Inner { y: x, n: 4 });
        look -> sub;
    }
}

fn main() {}
