//! Buffers of another device: a memcpy node between the graph's device and a peer's buffer
//! (a peer copy, peer access checked and enabled when the graph is built), from the runtime
//! API and from `cuda_graph!` (`buffer name: T on peer;`).
//!
//! With one GPU the peer is the graph's own device (what a world of one rank sees: its
//! neighbour is itself), so the copies are plain device copies; with two, the same program
//! copies between GPU 0 and GPU 1 (`CUDA_GRAPH_REQUIRE_GPUS=2` makes a missing second GPU a
//! failure). Outputs are poisoned before each run.

use cuda_graph::cuda_graph;
use cuda_graph::cudarc::driver::CudaSlice;
use cuda_graph::Graph;
use cuda_graph_flagships::harness::Gpu;

const SRC: &str = r#"
extern "C" __global__ void scale(float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + 1.0f;
}
"#;

cuda_graph! {
    /// One rank of a ring: pull the neighbour's shard, work on it here, push the result back.
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

const N: usize = 3000;

fn shard() -> Vec<f32> {
    (0..N).map(|i| (i % 97) as f32 * 0.25 - 3.0).collect()
}

/// The ring program on `home`, its peer buffers on `peer` (another GPU, or the same one).
fn ring(home: &Gpu, peer: &Gpu) {
    let module = cuda_graph::compile(&home.ctx, SRC).unwrap();
    let src = shard();
    let theirs = peer.upload(&src);
    let mut back = peer.upload(&vec![f32::NAN; N]);
    let mut mine = home.upload(&vec![f32::NAN; N]);
    peer.stream.synchronize().unwrap();
    {
        let mut exec = Ring::build(
            &module,
            RingInputs {
                theirs: &theirs,
                back: &mut back,
                mine: &mut mine,
                a: 2.0,
                n: N as u32,
            },
        )
        .unwrap()
        .instantiate()
        .unwrap();
        exec.launch(&home.stream).unwrap();
        exec.set_a(-0.5).unwrap();
        exec.launch(&home.stream).unwrap();
        home.stream.synchronize().unwrap();
    }
    let want: Vec<f32> = src.iter().map(|&v| -0.5 * v + 1.0).collect();
    assert_eq!(home.read(&mine), want, "the copy here");
    assert_eq!(peer.read(&back), want, "the copy pushed back to the peer");
}

#[test]
fn a_peer_copy_on_one_gpu_is_a_device_copy() {
    let Some(gpu) = Gpu::find() else { return };
    let same = Gpu {
        ctx: gpu.ctx.clone(),
        stream: gpu.stream.clone(),
        name: gpu.name.clone(),
    };
    ring(&gpu, &same);
}

#[test]
fn a_peer_copy_between_two_gpus() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    ring(&gpus[0], &gpus[1]);
    ring(&gpus[1], &gpus[0]);
}

#[test]
fn runtime_api_peer_buffers_only_reach_memcpy_nodes() {
    let Some(gpu) = Gpu::find() else { return };
    let src: Vec<u32> = (0..512).map(|i| i * 7 + 1).collect();
    let theirs = gpu.upload(&src);
    let mut mine = gpu.upload(&vec![u32::MAX; 512]);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (peer, local) = (
        g.bind_peer(&theirs).unwrap(),
        g.bind_mut(&mut mine).unwrap(),
    );
    g.add_memcpy("pull", &[], local, peer).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    gpu.stream.synchronize().unwrap();
    drop(exec);
    assert_eq!(gpu.read(&mine), src);
}

#[test]
fn a_buffer_of_another_gpu_bound_as_local_is_an_error() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    let other: CudaSlice<f32> = gpus[1].upload(&[1.0; 8]);
    let mut g = Graph::new(&gpus[0].ctx).unwrap();
    let e = g.bind(&other).unwrap_err();
    assert!(
        e.to_string().contains("context"),
        "a buffer of GPU 1 bound to a graph of GPU 0: {e}"
    );
}
