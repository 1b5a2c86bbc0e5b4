//! The raw driver floor: the same graphs built, launched and edited through the driver API
//! (`cudarc::driver::sys`) with `*mut c_void` argument arrays, as a user without cuda-graph writes them.

use super::*;

pub struct Params {
    y: u64,
    offset: u32,
    a: f32,
    ptrs: [*mut c_void; 3],
}

impl Params {
    pub fn new(y: u64, offset: u32, a: f32) -> Box<Self> {
        let mut p = Box::new(Params {
            y,
            offset,
            a,
            ptrs: [ptr::null_mut(); 3],
        });
        p.ptrs = [
            &mut p.y as *mut u64 as *mut c_void,
            &mut p.offset as *mut u32 as *mut c_void,
            &mut p.a as *mut f32 as *mut c_void,
        ];
        p
    }

    pub fn node(&mut self, f: sys::CUfunction, a: f32) -> sys::CUDA_KERNEL_NODE_PARAMS {
        self.a = a;
        sys::CUDA_KERNEL_NODE_PARAMS {
            func: f,
            gridDimX: 1,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: 32,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            kernelParams: self.ptrs.as_mut_ptr(),
            extra: ptr::null_mut(),
            kern: ptr::null_mut(),
            ctx: ptr::null_mut(),
        }
    }
}

pub struct RawGraph {
    pub g: CUgraph,
    pub nodes: Vec<CUgraphNode>,
    // Boxed: each holds pointers into itself.
    #[allow(clippy::vec_box)]
    pub params: Vec<Box<Params>>,
}

pub fn check(r: sys::CUresult) {
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
}

pub fn build(f: sys::CUfunction, y: u64, shape: Shape, n: usize) -> RawGraph {
    let mut g = ptr::null_mut();
    // SAFETY (all driver calls in this module): valid out-pointers, live handles made
    // here, and kernel parameters that match `tiny(float*, unsigned, float)`.
    unsafe { check(sys::cuGraphCreate(&mut g, 0)) };
    let mut nodes: Vec<CUgraphNode> = Vec::with_capacity(n);
    let mut params = Vec::with_capacity(n);
    for i in 0..n {
        let (deps, offset) = shape.node(i, n);
        let deps: Vec<CUgraphNode> = deps.iter().map(|&d| nodes[d]).collect();
        let mut p = Params::new(y, offset, 1.0);
        let kp = p.node(f, 1.0);
        let mut node = ptr::null_mut();
        unsafe {
            check(sys::cuGraphAddKernelNode_v2(
                &mut node,
                g,
                deps.as_ptr(),
                deps.len(),
                &kp,
            ))
        };
        nodes.push(node);
        params.push(p);
    }
    RawGraph { g, nodes, params }
}

/// A graph built and instantiated.
pub fn make(f: sys::CUfunction, y: u64, shape: Shape, n: usize) -> (RawGraph, CUgraphExec) {
    let g = build(f, y, shape, n);
    let e = instantiate(g.g);
    (g, e)
}

pub fn instantiate(g: CUgraph) -> CUgraphExec {
    let mut e = ptr::null_mut();
    unsafe { check(sys::cuGraphInstantiateWithFlags(&mut e, g, 0)) };
    e
}

pub fn destroy(g: RawGraph, e: Option<CUgraphExec>) {
    unsafe {
        if let Some(e) = e {
            check(sys::cuGraphExecDestroy(e));
        }
        check(sys::cuGraphDestroy(g.g));
    }
}

pub fn launch(e: CUgraphExec, s: sys::CUstream) {
    unsafe {
        check(sys::cuGraphLaunch(e, s));
        check(sys::cuStreamSynchronize(s));
    }
}

pub fn set(e: CUgraphExec, g: &mut RawGraph, f: sys::CUfunction, i: usize, a: f32) {
    set_node(e, g.nodes[i], f, &mut g.params[i], a);
}

/// Sets kernel node `node` of executable graph `e` (the floor's, or cuda-graph's through its
/// raw handles) to launch `f` with `p`, its scalar now `a`.
pub fn set_node(e: CUgraphExec, node: CUgraphNode, f: sys::CUfunction, p: &mut Params, a: f32) {
    let kp = p.node(f, a);
    unsafe { check(sys::cuGraphExecKernelNodeSetParams_v2(e, node, &kp)) };
}

/// The kernel nodes of graph `g` (a template), in the order the driver lists them.
pub fn kernel_nodes(g: CUgraph) -> Vec<CUgraphNode> {
    let mut count = 0usize;
    unsafe { check(sys::cuGraphGetNodes(g, ptr::null_mut(), &mut count)) };
    let mut all = vec![ptr::null_mut(); count];
    unsafe { check(sys::cuGraphGetNodes(g, all.as_mut_ptr(), &mut count)) };
    all.truncate(count);
    all.retain(|&node| {
        let mut ty = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
        unsafe { check(sys::cuGraphNodeGetType(node, &mut ty)) };
        ty == sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL
    });
    all
}

/// Edits node `i` of the template (its scalar to `a`), then updates the executable graph from it.
pub fn update(e: CUgraphExec, g: &mut RawGraph, f: sys::CUfunction, i: usize, a: f32) {
    let kp = g.params[i].node(f, a);
    unsafe {
        check(sys::cuGraphKernelNodeSetParams_v2(g.nodes[i], &kp));
        let mut info = std::mem::zeroed::<sys::CUgraphExecUpdateResultInfo>();
        check(sys::cuGraphExecUpdate_v2(e, g.g, &mut info));
    }
}

pub fn launch_stream(f: sys::CUfunction, y: u64, shape: Shape, n: usize, a: f32, s: sys::CUstream) {
    // The driver copies the arguments at launch: one parameter block serves all.
    let mut p = Params::new(y, 0, a);
    for i in 0..n {
        p.offset = shape.offset(i, n);
        unsafe {
            check(sys::cuLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                s,
                p.ptrs.as_mut_ptr(),
                ptr::null_mut(),
            ))
        };
    }
    unsafe { check(sys::cuStreamSynchronize(s)) };
}
