use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel k(flags: &mut [bool], n: u32);
        buffer mut flags: bool;
        param n: u32;
        clear = memset(flags, false);
        mark = k<<<1, 32>>>(flags, n);
        clear -> mark;
    }
}

fn main() {}
