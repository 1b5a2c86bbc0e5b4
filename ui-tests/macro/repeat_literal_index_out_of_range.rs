use cuda_graph::cuda_graph;

// A literal index past the end of a stack of literal length.
cuda_graph! {
    graph G {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer w[3]: u32;
        buffer mut x: u32;
        param n: u32;
        head = lincomb_u32<<<1, 32>>>(x, 3, w[3], 1, x, n);
    }
}

fn main() {}
