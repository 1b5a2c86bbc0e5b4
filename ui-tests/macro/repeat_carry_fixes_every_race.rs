//! Iterations race on `x` three ways (`w` with the next `w`, `w` with the next `r`, `r` with
//! the next `w`): the proposed carry edges end all of them, not only the first.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel wr(x: &mut [f32]);
        kernel rd(x: &[f32], y: &mut [f32]);
        buffer mut x: f32;
        buffer mut y: f32;
        param layers: u32;
        body = repeat l in 0..layers {
            w = wr<<<1, 32>>>(x);
            r = rd<<<1, 32>>>(x, y);
            w -> r;
            carry r -> r;
        }
    }
}

fn main() {}
