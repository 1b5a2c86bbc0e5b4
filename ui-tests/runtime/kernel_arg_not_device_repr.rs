// Kernel arguments are by-value scalars or buffer handles, nothing else.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::{Graph, LaunchConfig};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let module = cuda_graph::compile(&ctx, "").unwrap();
    let f = module.function("k").unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let host = vec![1.0f32; 4];
    g.add_kernel("k", &[], &f, LaunchConfig::for_num_elems(4), (&host, 4u32)).unwrap();
}
