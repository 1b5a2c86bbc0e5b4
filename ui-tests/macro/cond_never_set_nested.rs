use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(y: &mut [u32]);
        kernel decide(c: Cond);
        buffer mut y: u32;
        cond again = 1;
        cond extra;
        run = while again {
            maybe = if extra {
                work = step<<<1, 32>>>(y);
            }
            check = decide<<<1, 1>>>(again);
            maybe -> check;
        }
    }
}

fn main() {}
