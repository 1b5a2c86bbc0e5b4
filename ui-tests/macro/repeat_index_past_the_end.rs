use cuda_graph::cuda_graph;

// `w[l + 1]` in the last of four iterations is `w[4]`; the stack holds four buffers.
cuda_graph! {
    graph G {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer w[4]: u32;
        buffer mut x: u32;
        param n: u32;
        body = repeat l in 0..4 {
            mix = lincomb_u32<<<1, 32>>>(x, 3, w[l + 1], 1, x, n);
            carry mix -> mix;
        }
    }
}

fn main() {}
