#![deny(warnings)]
// Nodes of one kernel that differ only in literals (grid sizes, offsets, a float) share one
// node function arm over columns of those literals; their types come from where they are used.
use cuda_graph::cuda_graph;

cuda_graph! {
    graph Fan {
        kernel tiny(y: &mut [f32], offset: u32, a: f32);
        #[disjoint]
        buffer mut y: f32;
        k0 = tiny<<<1, 32>>>(y, 0, 1.0);
        k1 = tiny<<<1, 32>>>(y, 32, 1.5);
        k2 = tiny<<<1, 32>>>(y, 64, 2.0);
        k3 = tiny<<<1, 32>>>(y, 96, 2.5);
        k4 = tiny<<<1, 32>>>(y, 128, 3.0);
        k5 = tiny<<<2, 64>>>(y, 160, 3.5);
    }
}

fn main() {
    let _ = Fan::DOT;
}
