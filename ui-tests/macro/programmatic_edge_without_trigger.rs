// Correct, but with little overlap: a warning (denied here to show it).
#![deny(deprecated)]
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "cu/pdl.cu";
        kernel no_trigger;
        kernel consume;
        buffer mut y: f32;
        buffer mut z: f32;
        param n: i32;
        a = no_trigger<<<4, 256>>>(y, n);
        b = consume<<<4, 256>>>(y, z, n);
        #[programmatic]
        a -> b;
    }
}

fn main() {}
