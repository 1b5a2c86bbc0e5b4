//! Programmatic dependent launch: chains of 10, 100 and 1000 small kernels, and a 64-kernel
//! decode-like chain (norm, elementwise, reduction, scale on 4K and 16K elements), each three
//! ways in one run: the raw driver with plain edges (`raw_plain`), the raw driver with
//! programmatic edges (`raw_programmatic`, `cuGraphAddDependencies_v2` with edge data), and a
//! `cuda_graph!` graph whose edges the macro made programmatic after proving each kernel waits
//! (`cuda_graph_programmatic`). The kernels are the same (`kernels/pdl.cu`): each triggers its
//! dependent at once and waits for its predecessor before it touches memory.
//!
//! A step is a launch and a stream synchronize, timed on the host; medians. Each graph's result
//! is checked against the others (and the chain's against its count) before timing. Results go
//! to `$OUT/pdl.json` on the device machine, else `docs/bench/raw/pdl.json`.
//!
//! Run: `cargo bench -p cuda-graph-bench --bench pdl` on a GPU machine (compute capability 9.0
//! or newer).

use std::ffi::c_void;
use std::ptr;
use std::time::{Duration, Instant};

use cuda_graph::cudarc::driver::sys::{self, CUgraph, CUgraphExec, CUgraphNode};
use cuda_graph::cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use cuda_graph::{compile, Module};
use cuda_graph_flagships::harness::{measure, write_rows, Gpu};

include!(concat!(env!("OUT_DIR"), "/bench_pdl.rs"));

const SRC: &str = include_str!("kernels/pdl.cu");

fn check(r: sys::CUresult) {
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
}

/// One kernel node of a raw graph: its function, launch shape and arguments (each in an
/// 8-byte slot the driver reads from its start).
struct RawKernel {
    f: sys::CUfunction,
    grid: u32,
    block: u32,
    args: Vec<u64>,
}

/// A raw driver chain of `nodes` (plain or programmatic edges), instantiated.
struct RawChain {
    g: CUgraph,
    e: CUgraphExec,
}

impl RawChain {
    fn new(nodes: &mut [RawKernel], programmatic: bool) -> RawChain {
        let mut g = ptr::null_mut();
        // SAFETY (every call here): valid out-pointers, live handles made here, and argument
        // slots that live (in `nodes`) until the graph has copied them.
        unsafe { check(sys::cuGraphCreate(&mut g, 0)) };
        let mut made: Vec<CUgraphNode> = Vec::with_capacity(nodes.len());
        for k in nodes.iter_mut() {
            let mut ptrs: Vec<*mut c_void> = k
                .args
                .iter_mut()
                .map(|a| a as *mut u64 as *mut c_void)
                .collect();
            let p = sys::CUDA_KERNEL_NODE_PARAMS {
                func: k.f,
                gridDimX: k.grid,
                gridDimY: 1,
                gridDimZ: 1,
                blockDimX: k.block,
                blockDimY: 1,
                blockDimZ: 1,
                sharedMemBytes: 0,
                kernelParams: ptrs.as_mut_ptr(),
                extra: ptr::null_mut(),
                kern: ptr::null_mut(),
                ctx: ptr::null_mut(),
            };
            let deps: Vec<CUgraphNode> = match (programmatic, made.last()) {
                (false, Some(&d)) => vec![d],
                _ => Vec::new(),
            };
            let mut node = ptr::null_mut();
            unsafe {
                check(sys::cuGraphAddKernelNode_v2(
                    &mut node,
                    g,
                    deps.as_ptr(),
                    deps.len(),
                    &p,
                ))
            };
            if programmatic {
                if let Some(&d) = made.last() {
                    let data = sys::CUgraphEdgeData {
                        from_port: sys::CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC as u8,
                        to_port: 0,
                        type_: sys::CUgraphDependencyType::CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
                            as u8,
                        reserved: [0; 5],
                    };
                    unsafe { check(sys::cuGraphAddDependencies_v2(g, &d, &node, &data, 1)) };
                }
            }
            made.push(node);
        }
        let mut e = ptr::null_mut();
        unsafe { check(sys::cuGraphInstantiateWithFlags(&mut e, g, 0)) };
        RawChain { g, e }
    }

    fn step(&self, s: &CudaStream) {
        // SAFETY: a live executable graph and stream.
        unsafe {
            check(sys::cuGraphLaunch(self.e, s.cu_stream()));
            check(sys::cuStreamSynchronize(s.cu_stream()));
        }
    }
}

impl Drop for RawChain {
    fn drop(&mut self) {
        // SAFETY: made here, destroyed once.
        unsafe {
            check(sys::cuGraphExecDestroy(self.e));
            check(sys::cuGraphDestroy(self.g));
        }
    }
}

fn ptr_of(b: &CudaSlice<f32>, s: &CudaStream) -> u64 {
    b.device_ptr(s).0
}

fn f(module: &Module, name: &str) -> sys::CUfunction {
    module.function(name).unwrap().cuda_function().cu_function()
}

/// The median step of `step`, in µs.
fn time(mut step: impl FnMut()) -> f64 {
    for _ in 0..20 {
        step();
    }
    measure(200, Duration::from_millis(400), || {
        let t = Instant::now();
        step();
        t.elapsed()
    })
    .0
}

fn row(case: &str, shape: &str, nodes: usize, imp: &str, us: f64, gpu: &str) -> String {
    println!("{case:>11} {shape:>7} {nodes:>5} {imp:>24}: {us:>10.2} us");
    format!(
        r#"  {{"case": "{case}", "shape": "{shape}", "nodes": {nodes}, "impl": "{imp}", "via": "launch + sync", "median_us": {us:.3}, "gpu": "{gpu}"}}"#
    )
}

macro_rules! chain {
    ($rows:expr, $gpu:expr, $module:expr, $n:expr, $graph:ident, $inputs:ident) => {{
        let (gpu, module, n): (&Gpu, &Module, usize) = ($gpu, $module, $n);
        let s = &gpu.stream;
        let step_fn = f(module, "pdl_step");
        let mut ys: Vec<CudaSlice<f32>> = (0..3).map(|_| gpu.upload(&[0.0f32; 32])).collect();
        let raws: Vec<RawChain> = [false, true]
            .iter()
            .enumerate()
            .map(|(k, &programmatic)| {
                let y = ptr_of(&ys[k], s);
                let mut nodes: Vec<RawKernel> = (0..n)
                    .map(|_| RawKernel {
                        f: step_fn,
                        grid: 1,
                        block: 32,
                        args: vec![y],
                    })
                    .collect();
                RawChain::new(&mut nodes, programmatic)
            })
            .collect();
        let mut ours = $graph::build(module, $inputs { y: &mut ys[2] })
            .unwrap()
            .instantiate()
            .unwrap();
        raws[0].step(s);
        raws[1].step(s);
        ours.launch(s).unwrap();
        s.synchronize().unwrap();
        let got = gpu.read(ours.y().unwrap());
        assert!(
            got.iter().all(|&v| v == n as f32),
            "cuda-graph chain of {n}: {got:?}"
        );
        drop(ours);
        for (k, y) in ys[..2].iter().enumerate() {
            let got = gpu.read(y);
            assert!(
                got.iter().all(|&v| v == n as f32),
                "raw chain {k} of {n}: {got:?}"
            );
        }
        let mut ours = $graph::build(module, $inputs { y: &mut ys[2] })
            .unwrap()
            .instantiate()
            .unwrap();
        let name = &gpu.name;
        $rows.push(row(
            "pdl_chain",
            "chain",
            n,
            "raw_plain",
            time(|| raws[0].step(s)),
            name,
        ));
        $rows.push(row(
            "pdl_chain",
            "chain",
            n,
            "raw_programmatic",
            time(|| raws[1].step(s)),
            name,
        ));
        let t = time(|| {
            ours.launch(s).unwrap();
            s.synchronize().unwrap();
        });
        $rows.push(row(
            "pdl_chain",
            "chain",
            n,
            "cuda_graph_programmatic",
            t,
            name,
        ));
    }};
}

fn decode(rows: &mut Vec<String>, gpu: &Gpu, module: &Module, n: usize) {
    let s = &gpu.stream;
    let x0: Vec<f32> = (0..n)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
        .collect();
    let blocks = n.div_ceil(256) as u32;
    let (norm, axpy, sum, scale) = (
        f(module, "pdl_norm"),
        f(module, "pdl_axpy"),
        f(module, "pdl_sum"),
        f(module, "pdl_scale"),
    );
    let mut bufs: Vec<[CudaSlice<f32>; 3]> = (0..3)
        .map(|_| {
            [
                gpu.upload(&x0),
                gpu.upload(&vec![0.0f32; n]),
                gpu.upload(&[0.0f32]),
            ]
        })
        .collect();
    let raws: Vec<RawChain> = [false, true]
        .iter()
        .enumerate()
        .map(|(k, &programmatic)| {
            let [x, h, sm] = &bufs[k];
            let (x, h, sm) = (ptr_of(x, s), ptr_of(h, s), ptr_of(sm, s));
            let (nn, a) = (n as u64, 0.25f32.to_bits() as u64);
            let mut nodes: Vec<RawKernel> = (0..64)
                .map(|i| match i % 4 {
                    0 => RawKernel {
                        f: norm,
                        grid: 1,
                        block: 1024,
                        args: vec![x, h, nn],
                    },
                    1 => RawKernel {
                        f: axpy,
                        grid: blocks,
                        block: 256,
                        args: vec![h, x, a, nn],
                    },
                    2 => RawKernel {
                        f: sum,
                        grid: 1,
                        block: 1024,
                        args: vec![x, sm, nn],
                    },
                    _ => RawKernel {
                        f: scale,
                        grid: blocks,
                        block: 256,
                        args: vec![sm, x, nn],
                    },
                })
                .collect();
            RawChain::new(&mut nodes, programmatic)
        })
        .collect();
    let [x2, h2, s2] = &mut bufs[2];
    let mut ours = PdlDecode::build(
        module,
        PdlDecodeInputs {
            x: x2,
            h: h2,
            s: s2,
            n: n as i32,
            blocks,
        },
    )
    .unwrap()
    .instantiate()
    .unwrap();
    // One step each from the same input: the three agree (within float reassociation of the
    // block reductions, which all three do alike: exactly).
    raws[0].step(s);
    raws[1].step(s);
    ours.launch(s).unwrap();
    s.synchronize().unwrap();
    let got = gpu.read(ours.x().unwrap());
    drop(ours);
    for (k, b) in bufs[..2].iter().enumerate() {
        assert_eq!(gpu.read(&b[0]), got, "decode chain {k}, n = {n}");
    }
    let [x2, h2, s2] = &mut bufs[2];
    let mut ours = PdlDecode::build(
        module,
        PdlDecodeInputs {
            x: x2,
            h: h2,
            s: s2,
            n: n as i32,
            blocks,
        },
    )
    .unwrap()
    .instantiate()
    .unwrap();
    let shape = format!("n{n}");
    let name = &gpu.name;
    rows.push(row(
        "pdl_decode",
        &shape,
        64,
        "raw_plain",
        time(|| raws[0].step(s)),
        name,
    ));
    rows.push(row(
        "pdl_decode",
        &shape,
        64,
        "raw_programmatic",
        time(|| raws[1].step(s)),
        name,
    ));
    let t = time(|| {
        ours.launch(s).unwrap();
        s.synchronize().unwrap();
    });
    rows.push(row(
        "pdl_decode",
        &shape,
        64,
        "cuda_graph_programmatic",
        t,
        name,
    ));
}

fn main() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    // SAFETY: set before any buffer exists; every step synchronizes its stream.
    unsafe { gpu.ctx.disable_event_tracking() };
    let module = compile(&gpu.ctx, SRC).unwrap();
    let mut rows = Vec::new();
    chain!(rows, &gpu, &module, 10, PdlChain10, PdlChain10Inputs);
    chain!(rows, &gpu, &module, 100, PdlChain100, PdlChain100Inputs);
    chain!(rows, &gpu, &module, 1000, PdlChain1000, PdlChain1000Inputs);
    for n in [4096, 16384] {
        decode(&mut rows, &gpu, &module, n);
    }
    write_rows("pdl.json", &rows);
}
