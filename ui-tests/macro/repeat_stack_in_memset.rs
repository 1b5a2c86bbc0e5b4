use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer mut w[layers]: u32;
        param layers: u32;
        param n: u32;
        clear = memset(w, 0);
        body = repeat l in 0..layers {
            fill = iota_u32<<<1, 32>>>(w[l], 1, n);
        }
        clear -> body;
    }
}

fn main() {}
