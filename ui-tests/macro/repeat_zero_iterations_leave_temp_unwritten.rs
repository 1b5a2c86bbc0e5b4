use cuda_graph::cuda_graph;

// When `layers` is 0 the block writes nothing, and `after` reads `t` unwritten.
cuda_graph! {
    graph G {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer mut out: u32;
        param n: u32;
        param layers: u32;
        temp t: [u32; n];
        body = repeat l in 0..layers {
            fill = iota_u32<<<1, 32>>>(t, l as u32, n);
            carry fill -> fill;
        }
        after = lincomb_u32<<<1, 32>>>(t, 1, t, 1, out, n);
        body -> after;
    }
}

fn main() {}
