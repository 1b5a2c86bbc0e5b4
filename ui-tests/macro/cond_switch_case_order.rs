use cuda_graph::prelude::*;
cuda_graph! {
    graph G {
        kernel pick(n: &mut [u32], c: Cond);
        kernel fill(n: &mut [u32], v: u32);
        buffer mut n: u32;
        cond c;
        choose = pick<<<1, 1>>>(n, c);
        cases = switch c {
            0 => { zero = fill<<<1, 1>>>(n, 0); }
            2 => { two = fill<<<1, 1>>>(n, 2); }
        }
        choose -> cases;
    }
}

fn main() {}
