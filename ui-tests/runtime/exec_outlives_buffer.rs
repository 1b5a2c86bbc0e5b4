// An executable graph cannot outlive a buffer it writes.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::{Graph, LaunchConfig};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let module = cuda_graph::compile(&ctx, "").unwrap();
    let f = module.function("k").unwrap();
    let exec;
    {
        let mut y = stream.alloc_zeros::<f32>(16).unwrap();
        let mut g = Graph::new(&ctx).unwrap();
        let yb = g.bind_mut(&mut y).unwrap();
        g.add_kernel("k", &[], &f, LaunchConfig::for_num_elems(16), (yb,)).unwrap();
        exec = g.instantiate().unwrap();
    }
    drop(exec);
}
