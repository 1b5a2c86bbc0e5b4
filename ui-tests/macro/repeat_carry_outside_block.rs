use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer mut x: u32;
        param n: u32;
        a = iota_u32<<<1, 32>>>(x, 1, n);
        b = iota_u32<<<1, 32>>>(x, 2, n);
        carry a -> b;
    }
}

fn main() {}
