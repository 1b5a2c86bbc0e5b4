use cuda_graph::buffer::Addr;
use cuda_graph::cuda_graph;

// `prefetch` reads `w` before it waits, which is safe only if no node writes `w`; but `gather`
// writes through `ys`, addresses of memory the graph does not track, which could be `w`'s.
cuda_graph! {
    graph G {
        source "cu/pdl.cu";
        kernel produce;
        kernel prefetch;
        kernel gather in "cu/types.cu";
        buffer mut y: f32;
        buffer w: f32;
        buffer mut z: f32;
        buffer xs: Addr<f32>;
        buffer mut ys: Addr<f32>;
        a = produce<<<1, 32>>>(y, 32);
        b = prefetch<<<1, 32>>>(w, y, z, 32);
        c = gather<<<1, 32>>>(xs, ys, 32);
        #[programmatic]
        a -> b;
    }
}

fn main() {}
