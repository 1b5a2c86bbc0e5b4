use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel step(y: &mut [u32]);
        kernel decide(c: Cond);
        buffer mut y: u32;
        cond again = 1;
        init = decide<<<1, 1>>>(again);
        run = while again {
            work = step<<<1, 32>>>(y);
        }
        init -> run;
    }
}

fn main() {}
