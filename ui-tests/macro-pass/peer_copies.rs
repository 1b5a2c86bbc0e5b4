#![deny(warnings)]
// Buffers of another device (`on peer`) reach the graph only through memcpy nodes: a rank
// pulls its neighbour's shard, works on its own copy, and pushes the result back.

use cuda_graph::cuda_graph;
use cuda_graph::cudarc::driver::CudaSlice;

cuda_graph! {
    /// One rank of a ring: pull the neighbour's shard, scale it here, push it back.
    pub graph Ring {
        kernel scale(x: &mut [f32], a: f32, n: u32);
        buffer theirs: f32 on peer;
        buffer mut back: f32 on peer;
        buffer mut mine: f32;
        param a: f32;
        param n: u32;
        pull = memcpy(mine, theirs);
        work = scale<<<n.div_ceil(256), 256>>>(mine, a, n);
        push = memcpy(back, mine);
        pull -> work -> push;
    }
}

/// Built and instantiated; the param setter still reaches the kernel.
pub fn build<'a>(
    module: &cuda_graph::Module,
    theirs: &'a CudaSlice<f32>,
    back: &'a mut CudaSlice<f32>,
    mine: &'a mut CudaSlice<f32>,
) -> cuda_graph::Result<RingExec<'a>> {
    let mut exec = Ring::build(
        module,
        RingInputs {
            theirs,
            back,
            mine,
            a: 2.0,
            n: 1024,
        },
    )?
    .instantiate()?;
    exec.set_a(3.0)?;
    let _ = exec.mine()?;
    Ok(exec)
}

fn main() {
    let _ = build;
    let _ = Ring::DOT;
}
