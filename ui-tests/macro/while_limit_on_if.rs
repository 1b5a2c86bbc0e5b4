use cuda_graph::cuda_graph;
use cuda_graph::kernel::Cond;

cuda_graph! {
    graph G {
        kernel step(x: &mut [u32], n: u32);
        kernel decide(c: Cond, n: u32);
        buffer mut x: u32;
        param n: u32;
        cond c;
        pick = decide<<<1, 1>>>(c, n);
        once = if c, max 3 {
            s = step<<<1, 32>>>(x, n);
        }
        pick -> once;
    }
}

fn main() {}
