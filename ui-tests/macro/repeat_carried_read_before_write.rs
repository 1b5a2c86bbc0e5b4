use cuda_graph::cuda_graph;

// `h` is handed from one iteration to the next, but nothing writes it before iteration 0.
cuda_graph! {
    graph G {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer w[layers]: u32;
        buffer mut out: u32;
        param layers: u32;
        param n: u32;
        temp h: [u32; n];
        body = repeat l in 0..layers {
            use_h = lincomb_u32<<<1, 32>>>(h, 1, w[l], 1, out, n);
            make_h = lincomb_u32<<<1, 32>>>(out, 2, w[l], 0, h, n);
            use_h -> make_h;
            carry make_h -> use_h;
        }
    }
}

fn main() {}
