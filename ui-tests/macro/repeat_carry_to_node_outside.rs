use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer mut x: u32;
        param n: u32;
        param layers: u32;
        first = iota_u32<<<1, 32>>>(x, 0, n);
        body = repeat l in 0..layers {
            step = iota_u32<<<1, 32>>>(x, 1, n);
            carry step -> first;
        }
        first -> body;
    }
}

fn main() {}
