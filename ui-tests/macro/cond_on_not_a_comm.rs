use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel check(y: &[f32], go: Cond);
        comm tp;
        buffer mut y: f32;
        cond go on y;
        c = check<<<1, 32>>>(y, go);
        maybe = if go {
            ar = all_reduce(y -> y, 1024, sum) on tp;
        }
        c -> maybe;
    }
}

fn main() {}
