use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel check(y: &[f32], go: Cond);
        comm tp;
        comm dp;
        buffer mut y: f32;
        // Agreed on `dp`, but the body's collective runs on `tp`.
        cond go on dp;
        c = check<<<1, 32>>>(y, go);
        maybe = if go {
            ar = all_reduce(y -> y, 1024, sum) on tp;
        }
        other = all_reduce(y -> y, 1024, sum) on dp;
        c -> maybe -> other;
    }
}

fn main() {}
