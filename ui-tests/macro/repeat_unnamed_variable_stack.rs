use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer w[layers]: u32;
        buffer mut x: u32;
        param layers: u32;
        param n: u32;
        body = repeat _ in 0..layers {
            mix = lincomb_u32<<<1, 32>>>(x, 3, w, 1, x, n);
            carry mix -> mix;
        }
    }
}

fn main() {}
