use cuda_graph::cuda_graph;

// `rows` reads an address from `xs` before it waits: what that address points at is memory
// the graph does not track, which `produce` may be writing while `rows` starts.
cuda_graph! {
    graph G {
        source "cu/types.cu";
        kernel produce;
        kernel rows;
        buffer mut y: f32;
        buffer xs: cuda_graph::buffer::Addr<f32>;
        buffer mut z: f32;
        a = produce<<<1, 32>>>(y, 32);
        b = rows<<<1, 32>>>(xs, z, 32);
        #[programmatic]
        a -> b;
    }
}

fn main() {}
