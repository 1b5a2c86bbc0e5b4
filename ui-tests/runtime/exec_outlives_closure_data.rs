// An executable graph cannot outlive what a host callback borrows.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;
use std::sync::atomic::{AtomicU32, Ordering};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    {
        let count = AtomicU32::new(0);
        g.add_host("tick", &[], || {
            count.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    }
    let exec = g.instantiate().unwrap();
    drop(exec);
}
