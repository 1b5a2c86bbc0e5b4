use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(n: &mut [u32], again: Cond);
        kernel decide(n: &mut [u32], c: Cond);
        buffer mut n: u32;
        buffer mut m: u32;
        cond again = 1;
        cond inner;
        early = decide<<<1, 1>>>(m, inner);
        run = while again {
            up = step<<<1, 1>>>(n, again);
            maybe = if inner {
                more = step<<<1, 1>>>(n, again);
            }
            up -> maybe;
        }
        early -> run;
    }
}

fn main() {}
