// `set_arg::<I>` takes exactly the type of argument I; a read-only buffer cannot go where the
// node was given a writable one.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::{Graph, LaunchConfig};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let module = cuda_graph::compile(&ctx, "").unwrap();
    let f = module.function("k").unwrap();
    let x = stream.alloc_zeros::<f32>(16).unwrap();
    let mut y = stream.alloc_zeros::<f32>(16).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let xb = g.bind(&x).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let k = g
        .add_kernel("k", &[], &f, LaunchConfig::for_num_elems(16), (2.0f32, xb, yb, 16u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.node(k).unwrap().set_arg::<0>(3u32).unwrap();
    exec.node(k).unwrap().set_arg::<2>(xb).unwrap();
    exec.node(k).unwrap().set_arg::<4>(1u32).unwrap();
}
