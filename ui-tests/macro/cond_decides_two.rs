use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(n: &mut [u32], c: Cond);
        buffer mut n: u32;
        cond c = 1;
        first = while c {
            a = step<<<1, 1>>>(n, c);
        }
        second = if c {
            b = step<<<1, 1>>>(n, c);
        }
        first -> second;
    }
}

fn main() {}
