use cuda_graph::cuda_graph;

// `const float* const* xs` is an array of device addresses: `&[Addr<f32>]`, not `&[u64]`.
cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel gather(xs: &[u64], ys: &mut [cuda_graph::buffer::Addr<f32>], n: i32);
        buffer xs: u64;
        buffer mut ys: cuda_graph::buffer::Addr<f32>;
        step = gather<<<1, 32>>>(xs, ys, 32);
    }
}

fn main() {}
