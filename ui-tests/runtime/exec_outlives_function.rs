// An executable graph cannot outlive a kernel function it launches.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::{Graph, LaunchConfig};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let module = cuda_graph::compile(&ctx, "").unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    {
        let f = module.function("k").unwrap();
        g.add_kernel("k", &[], &f, LaunchConfig::for_num_elems(1), (1u32,)).unwrap();
    }
    let exec = g.instantiate().unwrap();
    drop(exec);
}
