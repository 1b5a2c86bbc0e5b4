use cuda_graph::buffer::Addr;
use cuda_graph::cuda_graph;

// `const float* const* xs`: the kernel cannot write the array of addresses, so the buffer is
// read-only (`&[..]`).
cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel gather(xs: &mut [Addr<f32>], ys: &mut [Addr<f32>], n: i32);
        buffer mut xs: Addr<f32>;
        buffer mut ys: Addr<f32>;
        step = gather<<<1, 32>>>(xs, ys, 32);
    }
}

fn main() {}
