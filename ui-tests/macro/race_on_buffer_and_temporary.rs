//! Two nodes racing on a buffer and a temporary: one error naming both, and no `#[disjoint]`
//! (a temporary cannot be marked so, and marking the buffer alone would leave the race).
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel init(t: &mut [f32]);
        kernel both(t: &mut [f32], y: &mut [f32]);
        kernel out(t: &[f32], y: &mut [f32]);
        param n: u32;
        temp t: [f32; n];
        buffer mut y: f32;
        i = init<<<1, 32>>>(t);
        a = both<<<1, 32>>>(t, y);
        b = both<<<1, 32>>>(t, y);
        o = out<<<1, 32>>>(t, y);
        i -> [a, b] -> o;
    }
}

fn main() {}
