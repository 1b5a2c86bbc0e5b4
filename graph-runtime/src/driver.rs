//! The driver layer: one `unsafe fn` per CUDA driver call, each returning `Result`.
//!
//! Nothing above this module touches `cudarc::driver::sys` directly. Every function names the
//! driver entry point it calls in its error ([`CallError::call`]), so the layers above can say
//! which call failed and for which node.

use std::ffi::{c_void, CStr};
use std::mem::MaybeUninit;
use std::ptr;

use cudarc::driver::sys;
use cudarc::driver::DriverError;

pub(crate) use sys::{
    CUcontext, CUevent, CUfunction, CUgraph, CUgraphExec, CUgraphNode, CUstream,
    CUDA_HOST_NODE_PARAMS as HostParams, CUDA_KERNEL_NODE_PARAMS as KernelParams,
    CUDA_MEMCPY3D as MemcpyParams, CUDA_MEMSET_NODE_PARAMS as MemsetParams,
};

/// A failed driver call: which entry point, and what it returned.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallError {
    pub call: &'static str,
    pub code: DriverError,
}

pub(crate) type CallResult<T> = Result<T, CallError>;

thread_local! {
    /// The context this thread last made current through [`make_current`].
    static CURRENT: std::cell::Cell<CUcontext> = const { std::cell::Cell::new(ptr::null_mut()) };
}

/// Runs `call` with `ctx` current on this thread (a graph may have moved to another thread).
///
/// The usual path makes no driver call: a thread-local remembers the context this thread last
/// made current. If other code switched contexts behind our back, the driver answers
/// `CUDA_ERROR_INVALID_CONTEXT`; then the context is checked for real and `call` runs again.
#[inline]
pub(crate) fn in_context<T>(ctx: CUcontext, call: impl Fn() -> CallResult<T>) -> CallResult<T> {
    make_current(ctx)?;
    match call() {
        Err(e) if e.code.0 == sys::CUresult::CUDA_ERROR_INVALID_CONTEXT => {
            CURRENT.with(|c| c.set(ptr::null_mut()));
            make_current(ctx)?;
            call()
        }
        r => r,
    }
}

/// Makes `ctx` current on this thread if it is not already. Unlike cudarc's `bind_to_thread`,
/// it does not report (and clear) errors cudarc recorded earlier.
#[inline]
pub(crate) fn make_current(ctx: CUcontext) -> CallResult<()> {
    if CURRENT.with(|c| c.get()) == ctx {
        return Ok(());
    }
    let mut current = ptr::null_mut();
    // SAFETY: `current` is a valid out-pointer.
    check("cuCtxGetCurrent", unsafe {
        sys::cuCtxGetCurrent(&mut current)
    })?;
    if current != ctx {
        // SAFETY: `ctx` is a live context (the caller holds an `Arc<CudaContext>` to it).
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(ctx) })?;
    }
    CURRENT.with(|c| c.set(ctx));
    Ok(())
}

#[inline]
fn check(call: &'static str, r: sys::CUresult) -> CallResult<()> {
    match r {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        code => Err(CallError {
            call,
            code: DriverError(code),
        }),
    }
}

/// Every driver entry point the runtime may call. [`missing_symbol`] checks them all up front so
/// an old driver is reported as an error instead of a panic deep inside a later call.
pub(crate) const SYMBOLS: &[&str] = &[
    "cuGraphCreate",
    "cuGraphDestroy",
    "cuGraphAddEmptyNode",
    "cuGraphAddKernelNode_v2",
    "cuGraphAddMemsetNode",
    "cuGraphAddMemcpyNode",
    "cuGraphAddHostNode",
    "cuGraphAddChildGraphNode",
    "cuGraphAddEventRecordNode",
    "cuGraphAddEventWaitNode",
    "cuGraphAddDependencies",
    "cuGraphRemoveDependencies",
    "cuGraphKernelNodeSetParams_v2",
    "cuGraphMemsetNodeSetParams",
    "cuGraphMemcpyNodeSetParams",
    "cuGraphHostNodeSetParams",
    "cuGraphEventRecordNodeSetEvent",
    "cuGraphEventWaitNodeSetEvent",
    "cuGraphInstantiateWithParams",
    "cuGraphExecDestroy",
    "cuGraphExecKernelNodeSetParams_v2",
    "cuGraphExecMemsetNodeSetParams",
    "cuGraphExecMemcpyNodeSetParams",
    "cuGraphExecHostNodeSetParams",
    "cuGraphExecChildGraphNodeSetParams",
    "cuGraphExecEventRecordNodeSetEvent",
    "cuGraphExecEventWaitNodeSetEvent",
    "cuGraphNodeSetEnabled",
    "cuGraphExecUpdate_v2",
    "cuGraphLaunch",
    "cuGraphUpload",
    "cuGraphDebugDotPrint",
    "cuFuncGetParamInfo",
    "cuFuncGetAttribute",
    "cuDeviceGetAttribute",
];

/// The first symbol of [`SYMBOLS`] that the loaded driver library lacks.
///
/// # Safety
/// libcuda must be present (`sys::is_culib_present()` returned true), or this panics inside
/// cudarc.
pub(crate) unsafe fn missing_symbol() -> Option<&'static str> {
    // SAFETY: the caller guarantees the library is present; `get` only looks a name up.
    let lib = unsafe { sys::culib() };
    SYMBOLS.iter().copied().find(|name| {
        // SAFETY: the symbol is looked up, never called, so its type does not matter.
        unsafe { lib.get::<*const c_void>(name.as_bytes()) }.is_err()
    })
}

/// Creates an empty graph.
///
/// # Safety
/// The driver must be loaded and initialised (a context exists).
pub(crate) unsafe fn graph_create() -> CallResult<CUgraph> {
    let mut g = ptr::null_mut();
    // SAFETY: `g` is a valid out-pointer.
    check("cuGraphCreate", unsafe { sys::cuGraphCreate(&mut g, 0) })?;
    Ok(g)
}

/// # Safety
/// `g` is a live graph not used again afterwards.
pub(crate) unsafe fn graph_destroy(g: CUgraph) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphDestroy", unsafe { sys::cuGraphDestroy(g) })
}

/// # Safety
/// `g` is a live graph and every node of `deps` belongs to it.
pub(crate) unsafe fn add_empty(g: CUgraph, deps: &[CUgraphNode]) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: `deps` outlives the call; `n` is a valid out-pointer.
    check("cuGraphAddEmptyNode", unsafe {
        sys::cuGraphAddEmptyNode(&mut n, g, deps.as_ptr(), deps.len())
    })?;
    Ok(n)
}

/// # Safety
/// As [`add_empty`]; `p.func` is a live function and `p.kernelParams` points at one valid
/// argument per kernel parameter (the driver copies them before returning).
pub(crate) unsafe fn add_kernel(
    g: CUgraph,
    deps: &[CUgraphNode],
    p: &KernelParams,
) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: forwarded from the caller; `n` is a valid out-pointer.
    check("cuGraphAddKernelNode_v2", unsafe {
        sys::cuGraphAddKernelNode_v2(&mut n, g, deps.as_ptr(), deps.len(), p)
    })?;
    Ok(n)
}

/// # Safety
/// As [`add_empty`]; `p.dst` is device memory of `ctx` covering the range described by `p`.
pub(crate) unsafe fn add_memset(
    g: CUgraph,
    deps: &[CUgraphNode],
    p: &MemsetParams,
    ctx: CUcontext,
) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: forwarded from the caller.
    check("cuGraphAddMemsetNode", unsafe {
        sys::cuGraphAddMemsetNode(&mut n, g, deps.as_ptr(), deps.len(), p, ctx)
    })?;
    Ok(n)
}

/// # Safety
/// As [`add_empty`]; source and destination of `p` are valid for `p.WidthInBytes` bytes for
/// as long as any executable graph made from `g` may run.
pub(crate) unsafe fn add_memcpy(
    g: CUgraph,
    deps: &[CUgraphNode],
    p: &MemcpyParams,
    ctx: CUcontext,
) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: forwarded from the caller.
    check("cuGraphAddMemcpyNode", unsafe {
        sys::cuGraphAddMemcpyNode(&mut n, g, deps.as_ptr(), deps.len(), p, ctx)
    })?;
    Ok(n)
}

/// # Safety
/// As [`add_empty`]; `p.fn_` may be called with `p.userData` on a driver thread for as long as
/// any executable graph made from `g` may run.
pub(crate) unsafe fn add_host(
    g: CUgraph,
    deps: &[CUgraphNode],
    p: &HostParams,
) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: forwarded from the caller.
    check("cuGraphAddHostNode", unsafe {
        sys::cuGraphAddHostNode(&mut n, g, deps.as_ptr(), deps.len(), p)
    })?;
    Ok(n)
}

/// # Safety
/// As [`add_empty`]; `child` is a live graph (the driver clones it).
pub(crate) unsafe fn add_child(
    g: CUgraph,
    deps: &[CUgraphNode],
    child: CUgraph,
) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: forwarded from the caller.
    check("cuGraphAddChildGraphNode", unsafe {
        sys::cuGraphAddChildGraphNode(&mut n, g, deps.as_ptr(), deps.len(), child)
    })?;
    Ok(n)
}

/// # Safety
/// As [`add_empty`]; `ev` is a live event that outlives every executable graph made from `g`.
pub(crate) unsafe fn add_event_record(
    g: CUgraph,
    deps: &[CUgraphNode],
    ev: CUevent,
) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: forwarded from the caller.
    check("cuGraphAddEventRecordNode", unsafe {
        sys::cuGraphAddEventRecordNode(&mut n, g, deps.as_ptr(), deps.len(), ev)
    })?;
    Ok(n)
}

/// # Safety
/// As [`add_event_record`].
pub(crate) unsafe fn add_event_wait(
    g: CUgraph,
    deps: &[CUgraphNode],
    ev: CUevent,
) -> CallResult<CUgraphNode> {
    let mut n = ptr::null_mut();
    // SAFETY: forwarded from the caller.
    check("cuGraphAddEventWaitNode", unsafe {
        sys::cuGraphAddEventWaitNode(&mut n, g, deps.as_ptr(), deps.len(), ev)
    })?;
    Ok(n)
}

/// # Safety
/// `from` and `to` are nodes of the live graph `g`.
pub(crate) unsafe fn add_edge(g: CUgraph, from: CUgraphNode, to: CUgraphNode) -> CallResult<()> {
    // SAFETY: one edge, both arrays of length one live on the stack for the call.
    check("cuGraphAddDependencies", unsafe {
        sys::cuGraphAddDependencies(g, &from, &to, 1)
    })
}

/// # Safety
/// As [`add_edge`]; the edge exists.
pub(crate) unsafe fn remove_edge(g: CUgraph, from: CUgraphNode, to: CUgraphNode) -> CallResult<()> {
    // SAFETY: as in `add_edge`.
    check("cuGraphRemoveDependencies", unsafe {
        sys::cuGraphRemoveDependencies(g, &from, &to, 1)
    })
}

/// # Safety
/// `n` is a kernel node of a live graph; `p` as in [`add_kernel`].
pub(crate) unsafe fn kernel_set(n: CUgraphNode, p: &KernelParams) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphKernelNodeSetParams_v2", unsafe {
        sys::cuGraphKernelNodeSetParams_v2(n, p)
    })
}

/// # Safety
/// `n` is a memset node of a live graph; `p` as in [`add_memset`].
pub(crate) unsafe fn memset_set(n: CUgraphNode, p: &MemsetParams) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphMemsetNodeSetParams", unsafe {
        sys::cuGraphMemsetNodeSetParams(n, p)
    })
}

/// # Safety
/// `n` is a memcpy node of a live graph; `p` as in [`add_memcpy`].
pub(crate) unsafe fn memcpy_set(n: CUgraphNode, p: &MemcpyParams) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphMemcpyNodeSetParams", unsafe {
        sys::cuGraphMemcpyNodeSetParams(n, p)
    })
}

/// # Safety
/// `n` is a host node of a live graph; `p` as in [`add_host`].
pub(crate) unsafe fn host_set(n: CUgraphNode, p: &HostParams) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphHostNodeSetParams", unsafe {
        sys::cuGraphHostNodeSetParams(n, p)
    })
}

/// # Safety
/// `n` is an event record node of a live graph; `ev` as in [`add_event_record`].
pub(crate) unsafe fn event_record_set(n: CUgraphNode, ev: CUevent) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphEventRecordNodeSetEvent", unsafe {
        sys::cuGraphEventRecordNodeSetEvent(n, ev)
    })
}

/// # Safety
/// `n` is an event wait node of a live graph; `ev` as in [`add_event_record`].
pub(crate) unsafe fn event_wait_set(n: CUgraphNode, ev: CUevent) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphEventWaitNodeSetEvent", unsafe {
        sys::cuGraphEventWaitNodeSetEvent(n, ev)
    })
}

/// Why `cuGraphInstantiateWithParams` failed, beyond its return code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InstantiateFailure {
    pub error: CallError,
    pub node: CUgraphNode,
    pub result: sys::CUgraphInstantiateResult,
}

/// # Safety
/// `g` is a live graph whose nodes reference only live resources; `upload` is null or a live
/// stream of the graph's context.
pub(crate) unsafe fn instantiate(
    g: CUgraph,
    flags: u64,
    upload: CUstream,
) -> Result<CUgraphExec, InstantiateFailure> {
    let mut exec = ptr::null_mut();
    let mut p = sys::CUDA_GRAPH_INSTANTIATE_PARAMS {
        flags,
        hUploadStream: upload,
        hErrNode_out: ptr::null_mut(),
        result_out: sys::CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_SUCCESS,
    };
    // SAFETY: `exec` and `p` are valid for the call.
    let r = unsafe { sys::cuGraphInstantiateWithParams(&mut exec, g, &mut p) };
    match check("cuGraphInstantiateWithParams", r) {
        Ok(()) => Ok(exec),
        Err(error) => Err(InstantiateFailure {
            error,
            node: p.hErrNode_out,
            result: p.result_out,
        }),
    }
}

/// # Safety
/// `e` is a live executable graph not used again afterwards (it may still be running: the
/// driver frees it once it completes).
pub(crate) unsafe fn exec_destroy(e: CUgraphExec) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecDestroy", unsafe { sys::cuGraphExecDestroy(e) })
}

/// # Safety
/// `e` was instantiated from the graph of kernel node `n`; `p` as in [`add_kernel`].
#[inline]
pub(crate) unsafe fn exec_kernel_set(
    e: CUgraphExec,
    n: CUgraphNode,
    p: &KernelParams,
) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecKernelNodeSetParams_v2", unsafe {
        sys::cuGraphExecKernelNodeSetParams_v2(e, n, p)
    })
}

/// # Safety
/// `e` was instantiated from the graph of memset node `n`; `p` as in [`add_memset`].
#[inline]
pub(crate) unsafe fn exec_memset_set(
    e: CUgraphExec,
    n: CUgraphNode,
    p: &MemsetParams,
    ctx: CUcontext,
) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecMemsetNodeSetParams", unsafe {
        sys::cuGraphExecMemsetNodeSetParams(e, n, p, ctx)
    })
}

/// # Safety
/// `e` was instantiated from the graph of memcpy node `n`; `p` as in [`add_memcpy`].
#[inline]
pub(crate) unsafe fn exec_memcpy_set(
    e: CUgraphExec,
    n: CUgraphNode,
    p: &MemcpyParams,
    ctx: CUcontext,
) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecMemcpyNodeSetParams", unsafe {
        sys::cuGraphExecMemcpyNodeSetParams(e, n, p, ctx)
    })
}

/// # Safety
/// `e` was instantiated from the graph of host node `n`; `p` as in [`add_host`].
pub(crate) unsafe fn exec_host_set(
    e: CUgraphExec,
    n: CUgraphNode,
    p: &HostParams,
) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecHostNodeSetParams", unsafe {
        sys::cuGraphExecHostNodeSetParams(e, n, p)
    })
}

/// # Safety
/// `e` was instantiated from the graph of child node `n`; `child` is a live graph.
pub(crate) unsafe fn exec_child_set(
    e: CUgraphExec,
    n: CUgraphNode,
    child: CUgraph,
) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecChildGraphNodeSetParams", unsafe {
        sys::cuGraphExecChildGraphNodeSetParams(e, n, child)
    })
}

/// # Safety
/// `e` was instantiated from the graph of event record node `n`; `ev` is a live event.
pub(crate) unsafe fn exec_event_record_set(
    e: CUgraphExec,
    n: CUgraphNode,
    ev: CUevent,
) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecEventRecordNodeSetEvent", unsafe {
        sys::cuGraphExecEventRecordNodeSetEvent(e, n, ev)
    })
}

/// # Safety
/// `e` was instantiated from the graph of event wait node `n`; `ev` is a live event.
pub(crate) unsafe fn exec_event_wait_set(
    e: CUgraphExec,
    n: CUgraphNode,
    ev: CUevent,
) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphExecEventWaitNodeSetEvent", unsafe {
        sys::cuGraphExecEventWaitNodeSetEvent(e, n, ev)
    })
}

/// # Safety
/// `e` was instantiated from the graph of node `n`, a kernel, memset or memcpy node.
#[inline]
pub(crate) unsafe fn node_set_enabled(e: CUgraphExec, n: CUgraphNode, on: bool) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphNodeSetEnabled", unsafe {
        sys::cuGraphNodeSetEnabled(e, n, on as u32)
    })
}

/// Why `cuGraphExecUpdate_v2` refused, beyond its return code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UpdateFailure {
    pub result: sys::CUgraphExecUpdateResult,
    pub node: CUgraphNode,
}

/// # Safety
/// `e` is a live executable graph and `g` a live graph.
pub(crate) unsafe fn exec_update(e: CUgraphExec, g: CUgraph) -> Result<(), UpdateFailure> {
    let mut info = MaybeUninit::<sys::CUgraphExecUpdateResultInfo>::zeroed();
    // SAFETY: `info` is valid for writes; zeroed is a valid value of the struct.
    let r = unsafe { sys::cuGraphExecUpdate_v2(e, g, info.as_mut_ptr()) };
    // SAFETY: all-zero bytes are a valid `CUgraphExecUpdateResultInfo` (result SUCCESS, nulls),
    // and the driver only writes valid values over them.
    let info = unsafe { info.assume_init() };
    match check("cuGraphExecUpdate_v2", r) {
        Ok(()) => Ok(()),
        Err(_) => Err(UpdateFailure {
            result: info.result,
            node: info.errorNode,
        }),
    }
}

/// # Safety
/// `e` is a live executable graph and `s` a live stream of its context.
#[inline]
pub(crate) unsafe fn launch(e: CUgraphExec, s: CUstream) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphLaunch", unsafe { sys::cuGraphLaunch(e, s) })
}

/// # Safety
/// As [`launch`].
pub(crate) unsafe fn upload(e: CUgraphExec, s: CUstream) -> CallResult<()> {
    // SAFETY: forwarded from the caller.
    check("cuGraphUpload", unsafe { sys::cuGraphUpload(e, s) })
}

/// # Safety
/// `g` is a live graph.
pub(crate) unsafe fn debug_dot_print(g: CUgraph, path: &CStr, flags: u32) -> CallResult<()> {
    // SAFETY: `path` is NUL-terminated and outlives the call.
    check("cuGraphDebugDotPrint", unsafe {
        sys::cuGraphDebugDotPrint(g, path.as_ptr(), flags)
    })
}

/// Offset and size in bytes of parameter `index` of `f`.
///
/// # Safety
/// `f` is a live function.
pub(crate) unsafe fn param_info(f: CUfunction, index: usize) -> CallResult<(usize, usize)> {
    let (mut offset, mut size) = (0usize, 0usize);
    // SAFETY: both out-pointers are valid.
    check("cuFuncGetParamInfo", unsafe {
        sys::cuFuncGetParamInfo(f, index, &mut offset, &mut size)
    })?;
    Ok((offset, size))
}

/// # Safety
/// `f` is a live function.
pub(crate) unsafe fn func_attribute(
    f: CUfunction,
    attr: sys::CUfunction_attribute,
) -> CallResult<i32> {
    let mut v = 0;
    // SAFETY: `v` is a valid out-pointer.
    check("cuFuncGetAttribute", unsafe {
        sys::cuFuncGetAttribute(&mut v, attr, f)
    })?;
    Ok(v)
}

/// # Safety
/// `dev` is a device handle returned by the driver.
pub(crate) unsafe fn device_attribute(
    dev: sys::CUdevice,
    attr: sys::CUdevice_attribute,
) -> CallResult<i32> {
    let mut v = 0;
    // SAFETY: `v` is a valid out-pointer.
    check("cuDeviceGetAttribute", unsafe {
        sys::cuDeviceGetAttribute(&mut v, attr, dev)
    })?;
    Ok(v)
}
