// A memset node's element type is fixed: its value and destination must match it.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let mut a = stream.alloc_zeros::<u32>(16).unwrap();
    let mut b = stream.alloc_zeros::<u16>(16).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let ab = g.bind_mut(&mut a).unwrap();
    let bb = g.bind_mut(&mut b).unwrap();
    let m = g.add_memset("fill", &[], ab, 1u32).unwrap();
    g.add_memset("bad", &[], bb, 1u32).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.node(m).unwrap().set_value(1.5f32).unwrap();
    exec.node(m).unwrap().set_dst(bb).unwrap();
}
