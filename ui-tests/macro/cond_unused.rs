use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(n: &mut [u32], c: Cond);
        buffer mut n: u32;
        cond c;
        cond spare = 1;
        test = step<<<1, 1>>>(n, c);
        maybe = if c {
            again = step<<<1, 1>>>(n, c);
        }
        test -> maybe;
    }
}

fn main() {}
