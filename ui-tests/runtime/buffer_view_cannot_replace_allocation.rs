// The executable graph hands out a bound buffer as a view: the allocation the graph points at
// cannot be swapped for another through it.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let mut y = stream.alloc_zeros::<u32>(16).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    g.add_memset("clear", &[], yb, 0u32).unwrap();
    let mut exec = g.instantiate().unwrap();
    *exec.buffer_mut(yb).unwrap() = stream.alloc_zeros::<u32>(32).unwrap();
    exec.launch(&stream).unwrap();
}
