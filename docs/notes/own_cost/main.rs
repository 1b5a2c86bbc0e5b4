//! Own-work profile of `cuda_graph!` build, instantiation, node setter, graph-level setter and
//! whole-graph update against the same driver calls made raw, on the stand-in driver of `cuda.c`
//! (no GPU).
//!
//! Build it as a scratch crate outside the workspace:
//!
//! ```text
//! [package]
//! name = "own-cost"
//! edition = "2021"
//! [dependencies]
//! cuda-graph = { path = "<this repository>" }
//! [profile.release]
//! debug = 1
//! ```
//!
//! then `LD_LIBRARY_PATH=<folder of libcuda.so> target/release/own-cost [case] [iterations]`
//! (no case: every case), or under `valgrind --tool=callgrind` for instruction counts (give
//! `--toggle-collect='*Chain10*build*'` to count the build alone).
use std::ffi::c_void;
use std::hint::black_box;
use std::ptr;
use std::time::Instant;
use cuda_graph::cudarc::driver::{sys, CudaContext, CudaSlice};
use cuda_graph::Module;

cuda_graph::cuda_graph! {
    pub graph Chain10 {
        kernel tiny(y: &mut [f32], offset: u32, a: f32);
        buffer mut y: f32;
        param a: f32;
        k0 = tiny<<<1, 32>>>(y, 0, a);
        k1 = tiny<<<1, 32>>>(y, 0, a);
        k2 = tiny<<<1, 32>>>(y, 0, a);
        k3 = tiny<<<1, 32>>>(y, 0, a);
        k4 = tiny<<<1, 32>>>(y, 0, a);
        k5 = tiny<<<1, 32>>>(y, 0, a);
        k6 = tiny<<<1, 32>>>(y, 0, a);
        k7 = tiny<<<1, 32>>>(y, 0, a);
        k8 = tiny<<<1, 32>>>(y, 0, a);
        k9 = tiny<<<1, 32>>>(y, 0, a);
        k0 -> k1 -> k2 -> k3 -> k4 -> k5 -> k6 -> k7 -> k8 -> k9;
    }
}

const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry tiny(\n.param .u64 tiny_param_0,\n.param .u32 tiny_param_1,\n.param .f32 tiny_param_2\n)\n{\nret;\n}\n";

struct Params { y: u64, offset: u32, a: f32, ptrs: [*mut c_void; 3] }
impl Params {
    fn new(y: u64, offset: u32, a: f32) -> Box<Self> {
        let mut p = Box::new(Params { y, offset, a, ptrs: [ptr::null_mut(); 3] });
        p.ptrs = [&mut p.y as *mut u64 as *mut c_void, &mut p.offset as *mut u32 as *mut c_void, &mut p.a as *mut f32 as *mut c_void];
        p
    }
    fn node(&mut self, f: sys::CUfunction, a: f32) -> sys::CUDA_KERNEL_NODE_PARAMS {
        self.a = a;
        sys::CUDA_KERNEL_NODE_PARAMS { func: f, gridDimX: 1, gridDimY: 1, gridDimZ: 1, blockDimX: 32, blockDimY: 1, blockDimZ: 1, sharedMemBytes: 0, kernelParams: self.ptrs.as_mut_ptr(), extra: ptr::null_mut(), kern: ptr::null_mut(), ctx: ptr::null_mut() }
    }
}
struct Raw { g: sys::CUgraph, nodes: Vec<sys::CUgraphNode>, params: Vec<Box<Params>> }
fn raw_build(f: sys::CUfunction, y: u64, n: usize) -> Raw {
    let mut g = ptr::null_mut();
    unsafe { sys::cuGraphCreate(&mut g, 0) };
    let mut nodes: Vec<sys::CUgraphNode> = Vec::with_capacity(n);
    let mut params = Vec::with_capacity(n);
    for i in 0..n {
        let deps: Vec<sys::CUgraphNode> = if i == 0 { vec![] } else { vec![nodes[i - 1]] };
        let mut p = Params::new(y, 0, 1.0);
        let kp = p.node(f, 1.0);
        let mut node = ptr::null_mut();
        unsafe { sys::cuGraphAddKernelNode_v2(&mut node, g, deps.as_ptr(), deps.len(), &kp) };
        nodes.push(node);
        params.push(p);
    }
    Raw { g, nodes, params }
}

#[inline(never)]
fn time(name: &str, iters: usize, mut f: impl FnMut(usize)) -> f64 {
    for i in 0..iters / 10 { f(i); }
    let t = Instant::now();
    for i in 0..iters { f(i); }
    let ns = t.elapsed().as_nanos() as f64 / iters as f64;
    println!("{name:<24} {ns:9.1} ns");
    ns
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let iters: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(200000);
    let ctx = CudaContext::new(0).unwrap();
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let module = Module::from_ptx(&ctx, PTX).unwrap();
    let tiny = module.function("tiny").unwrap();
    let f = tiny.cuda_function().cu_function();
    let mut y: CudaSlice<f32> = stream.alloc_zeros(352).unwrap();
    let yp = { use cuda_graph::cudarc::driver::DevicePtr; let (p, _g) = y.device_ptr(&stream); p };
    let all = which.is_empty();
    if all || which == "build_only" {
        for _ in 0..3 {
        let mut tr = std::time::Duration::ZERO; let mut to = std::time::Duration::ZERO;
        for _ in 0..iters {
            let t = Instant::now(); let r = raw_build(f, yp, 10); tr += t.elapsed(); black_box(&r); unsafe { sys::cuGraphDestroy(r.g) }; drop(r);
            let t = Instant::now(); let g = Chain10::build(&module, Chain10Inputs { y: &mut y, a: 1.0 }).unwrap(); to += t.elapsed(); black_box(&g); drop(g);
        }
        println!("build only: raw {:.1} ns, ours {:.1} ns", tr.as_nanos() as f64 / iters as f64, to.as_nanos() as f64 / iters as f64);
        }
    }
    if all || which == "inst_only" {
        // Instantiation alone: the graph is built untimed, the executable graph dropped untimed.
        for _ in 0..3 {
            let (mut tr, mut to) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
            for _ in 0..iters {
                let r = raw_build(f, yp, 10);
                let t = Instant::now(); let mut e = ptr::null_mut(); unsafe { sys::cuGraphInstantiateWithFlags(&mut e, r.g, 0) }; tr += t.elapsed(); black_box(e);
                unsafe { sys::cuGraphExecDestroy(e); sys::cuGraphDestroy(r.g) }; drop(r);
                let g = Chain10::build(&module, Chain10Inputs { y: &mut y, a: 1.0 }).unwrap();
                let t = Instant::now(); let e = g.instantiate().unwrap(); to += t.elapsed(); black_box(&e); drop(e);
            }
            println!("inst only: raw {:.1} ns, ours {:.1} ns", tr.as_nanos() as f64 / iters as f64, to.as_nanos() as f64 / iters as f64);
        }
    }
    if all || which == "build_raw" {
        time("build_raw", iters, |_| { let r = raw_build(f, yp, 10); black_box(&r); unsafe { sys::cuGraphDestroy(r.g) }; });
    }
    if all || which == "build_ours" {
        time("build_ours", iters, |_| { let g = Chain10::build(&module, Chain10Inputs { y: &mut y, a: 1.0 }).unwrap(); black_box(&g); drop(g); });
    }
    let mut rr = raw_build(f, yp, 10);
    let mut re = ptr::null_mut();
    unsafe { sys::cuGraphInstantiateWithFlags(&mut re, rr.g, 0) };
    let mut exec = Chain10::build(&module, Chain10Inputs { y: &mut y, a: 1.0 }).unwrap().instantiate().unwrap();
    if all || which == "node_raw" {
        time("node_setter_raw", iters * 10, |i| { let kp = rr.params[5].node(f, i as f32); unsafe { sys::cuGraphExecKernelNodeSetParams_v2(re, rr.nodes[5], &kp) }; });
    }
    if all || which == "node_ours" {
        time("node_setter_ours", iters * 10, |i| { exec.k5().unwrap().set_a(i as f32).unwrap(); });
    }
    if all || which == "param_raw" {
        time("param_setter_raw", iters, |i| { for j in 0..10 { let kp = rr.params[j].node(f, i as f32); unsafe { sys::cuGraphExecKernelNodeSetParams_v2(re, rr.nodes[j], &kp) }; } });
    }
    if all || which == "param_ours" {
        time("param_setter_ours", iters, |i| { exec.set_a(i as f32).unwrap(); });
    }
    if all || which == "update_raw" {
        time("update_raw", iters, |i| { let kp = rr.params[5].node(f, i as f32); unsafe { sys::cuGraphKernelNodeSetParams_v2(rr.nodes[5], &kp); let mut info = std::mem::zeroed::<sys::CUgraphExecUpdateResultInfo>(); sys::cuGraphExecUpdate_v2(re, rr.g, &mut info); } });
    }
    if all || which == "update_ours" {
        let mut y2: CudaSlice<f32> = stream.alloc_zeros(352).unwrap();
        let mut g = cuda_graph::Graph::new(&ctx).unwrap();
        let yb = g.bind_mut(&mut y2).unwrap();
        let cfg = cuda_graph::cudarc::driver::LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
        let mut nodes: Vec<cuda_graph::node::KernelNode<(cuda_graph::buffer::BufMut<f32>, u32, f32)>> = Vec::new();
        for i in 0..10 {
            let deps: Vec<&dyn cuda_graph::node::Dep> = if i == 0 { vec![] } else { vec![&nodes[i - 1] as &dyn cuda_graph::node::Dep] };
            let n = g.add_kernel(&format!("k{i}"), &deps, &tiny, cfg, (yb, 0u32, 1.0f32)).unwrap();
            nodes.push(n);
        }
        let mut ex = g.instantiate().unwrap();
        let id = nodes[5];
        time("update_ours", iters, |i| { ex.graph_mut().node(id).unwrap().set_arg::<2>(i as f32).unwrap(); ex.update().unwrap(); });
    }
}
