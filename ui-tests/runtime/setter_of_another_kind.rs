// A handle's type fixes the node kind: a memset has no launch setters, a kernel no `set_value`.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::{Graph, LaunchConfig};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let module = cuda_graph::compile(&ctx, "").unwrap();
    let f = module.function("k").unwrap();
    let mut y = stream.alloc_zeros::<u32>(16).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let m = g.add_memset("clear", &[], yb, 0u32).unwrap();
    let k = g.add_kernel("k", &[&m], &f, LaunchConfig::for_num_elems(16), (yb,)).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.node(m).unwrap().set_grid((2, 1, 1)).unwrap();
    exec.node(k).unwrap().set_value(3u32).unwrap();
}
