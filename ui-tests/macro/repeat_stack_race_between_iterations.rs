use cuda_graph::cuda_graph;

// Iteration l reads w[l + 1], which iteration l + 1 writes (as `w[l]`): unordered.
cuda_graph! {
    graph G {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer mut w[5]: u32;
        buffer mut out[5]: u32;
        param n: u32;
        body = repeat l in 0..4 {
            fill = iota_u32<<<1, 32>>>(w[l], 1, n);
            peek = lincomb_u32<<<1, 32>>>(w[l], 1, w[l + 1], 1, out[l], n);
            fill -> peek;
        }
    }
}

fn main() {}
