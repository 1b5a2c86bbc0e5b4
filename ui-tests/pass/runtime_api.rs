#![deny(warnings)]
// The runtime API compiles as documented, and runs (or says why not) without a GPU.
use cuda_graph::prelude::*;

fn main() {
    let Ok(ctx) = cuda_graph::context(0) else {
        return;
    };
    let stream = ctx.default_stream();
    let module = compile(
        &ctx,
        r#"extern "C" __global__ void scale(float a, float* y, unsigned n) {
            unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] *= a; }"#,
    )
    .unwrap();
    let f = module.function("scale").unwrap();
    let mut y = stream.clone_htod(&[1.0f32; 256]).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let k = g
        .add_kernel("scale", &[], &f, LaunchConfig::for_num_elems(256), (2.0f32, yb, 256u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    exec.node(k).unwrap().set_arg::<0>(3.0).unwrap();
    exec.launch(&stream).unwrap();
    let out = stream.clone_dtoh(exec.buffer(yb).unwrap()).unwrap();
    assert_eq!(out[0], 6.0);
}
