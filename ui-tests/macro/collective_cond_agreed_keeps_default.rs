//! A collective in the body of a conditional whose condition is not agreed: the proposed
//! declaration keeps the default the user wrote (`cond go on tp = 1;`).
use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel check(y: &[f32], go: Cond);
        comm tp;
        buffer mut y: f32;
        cond go = 1;
        c = check<<<1, 32>>>(y, go);
        maybe = while go {
            ar = all_reduce(y -> y, 1024, sum) on tp;
            again = check<<<1, 32>>>(y, go);
            ar -> again;
        }
        c -> maybe;
    }
}

fn main() {}
