use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(n: &mut [u32], again: Cond);
        kernel fill(n: &mut [u32]);
        buffer mut n: u32;
        cond again = 1;
        init = fill<<<1, 1>>>(n);
        run = while again {
            up = step<<<1, 1>>>(n, again);
        }
        init -> up;
    }
}

fn main() {}
