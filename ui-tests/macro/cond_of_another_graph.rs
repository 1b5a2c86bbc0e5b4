use cuda_graph::prelude::*;
cuda_graph! {
    graph A {
        kernel step(n: &mut [u32], again: Cond);
        buffer mut n: u32;
        cond again = 1;
        run = while again {
            up = step<<<1, 1>>>(n, again);
        }
    }

    graph B {
        kernel step(n: &mut [u32], again: Cond);
        buffer mut n: u32;
        up = step<<<1, 1>>>(n, again);
    }
}

fn main() {}
