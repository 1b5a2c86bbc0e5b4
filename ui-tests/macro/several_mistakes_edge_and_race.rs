//! An unknown node in an edge does not hide a race between nodes it could not have ordered:
//! the misspelt edge is reported, and so is the race between `c` and `d`; the race between `a`
//! and `b`, which the edge `a -> setp -> b` was meant to order, is not claimed.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel touch(y: &mut [f32]);
        buffer mut y: f32;
        buffer mut z: f32;
        a = touch<<<1, 32>>>(y);
        step = touch<<<1, 32>>>(y);
        b = touch<<<1, 32>>>(y);
        c = touch<<<1, 32>>>(z);
        d = touch<<<1, 32>>>(z);
        a -> setp -> b;
        a -> step;
    }
}

fn main() {}
