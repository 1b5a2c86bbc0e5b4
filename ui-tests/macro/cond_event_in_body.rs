use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel decide(n: &mut [u32], c: Cond);
        buffer mut n: u32;
        event ev;
        cond c;
        test = decide<<<1, 1>>>(n, c);
        maybe = if c {
            mark = record(ev);
        }
        test -> maybe;
    }
}

fn main() {}
