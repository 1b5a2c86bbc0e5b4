// A memcpy node's ends cannot move between host and device after it is made (the driver
// forbids it), so the setters only take buffers of the same location.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let host = vec![1u32; 16];
    let dev = stream.alloc_zeros::<u32>(16).unwrap();
    let mut y = stream.alloc_zeros::<u32>(16).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let hb = g.bind_host(&host);
    let db = g.bind(&dev).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let up = g.add_memcpy("upload", &[], yb, hb).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.node(up).unwrap().set_src(db).unwrap();
}
