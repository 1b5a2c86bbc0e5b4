use cuda_graph::cuda_graph;

// `prefetch` reads its first argument before it waits: given a `buffer mut`, which a node
// may be writing while it starts, that is a race on a programmatic edge.
cuda_graph! {
    graph G {
        source "cu/pdl.cu";
        kernel produce;
        kernel prefetch;
        buffer mut w: f32;
        buffer mut y: f32;
        buffer mut z: f32;
        param n: i32;
        a = produce<<<4, 256>>>(y, n);
        b = prefetch<<<4, 256>>>(w, y, z, n);
        #[programmatic]
        a -> b;
    }
}

fn main() {}
