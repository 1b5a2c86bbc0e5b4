use cuda_graph::prelude::*;
cuda_graph! {
    graph Inner {
        kernel k(y: &mut [f64], n: u32);
        buffer mut y: f64;
        param n: u32;
        step = k<<<1, 32>>>(y, n);
    }
    graph Outer {
        kernel r(x: &[f32], n: u32);
        buffer mut x: f32;
        param n: u32;
        look = r<<<1, 32>>>(x, n);
        sub = child(Inner { y: x, n: 4 });
        look -> sub;
    }
}
fn main() {}
