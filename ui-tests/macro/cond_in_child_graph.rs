use cuda_graph::prelude::*;
cuda_graph! {
    graph Inner {
        kernel step(n: &mut [u32], again: u64);
        buffer mut n: u32;
        param again: u64;
        up = step<<<1, 1>>>(n, again);
    }

    graph Outer {
        kernel step(n: &mut [u32], again: Cond);
        buffer mut n: u32;
        cond again = 1;
        run = while again {
            up = step<<<1, 1>>>(n, again);
        }
        sub = child(Inner { n: n, again: again });
        run -> sub;
    }
}

fn main() {}
