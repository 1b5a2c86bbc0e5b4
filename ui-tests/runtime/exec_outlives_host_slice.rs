// An executable graph cannot outlive a host slice a memcpy node writes.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let src = stream.alloc_zeros::<u32>(16).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let sb = g.bind(&src).unwrap();
    {
        let mut out = vec![0u32; 16];
        let ob = g.bind_host_mut(&mut out);
        g.add_memcpy("back", &[], ob, sb).unwrap();
    }
    let exec = g.instantiate().unwrap();
    drop(exec);
}
