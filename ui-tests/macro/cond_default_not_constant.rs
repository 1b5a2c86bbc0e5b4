use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(n: &mut [u32], again: Cond, start: u32);
        buffer mut n: u32;
        param start: u32;
        cond again = start;
        run = while again {
            up = step<<<1, 1>>>(n, again, start);
        }
    }
}

fn main() {}
