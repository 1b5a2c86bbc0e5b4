// Enabling or disabling a node exists on executable graphs only (the driver has no template
// equivalent), and only for kernel, memset and memcpy nodes.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let mut y = stream.alloc_zeros::<u32>(16).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let m = g.add_memset("clear", &[], yb, 0u32).unwrap();
    let h = g.add_host("tick", &[&m], || {}).unwrap();
    g.node(m).unwrap().disable().unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.node(h).unwrap().disable().unwrap();
}
