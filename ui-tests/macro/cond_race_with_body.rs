use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(n: &mut [u32], again: Cond);
        kernel read(n: &[u32], out: &mut [u32]);
        buffer mut n: u32;
        buffer mut out: u32;
        cond again = 1;
        run = while again {
            up = step<<<1, 1>>>(n, again);
        }
        peek = read<<<1, 1>>>(n, out);
    }
}

fn main() {}
