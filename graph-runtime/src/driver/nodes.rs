//! Every node kind's driver calls: adding it to a template and setting its parameters there
//! and on an executable graph, from the checked parts of `params.rs`; and its kind when found
//! in a captured graph. (Conditional nodes, which make body graphs, are in `graph.rs`;
//! allocation and free nodes in `mem.rs`.)

use cudarc::driver::sys;
use cudarc::driver::LaunchConfig;

use crate::block::{ArgBlock, ArgPtrs};
use cuda_graph_topology::NodeKind;

use super::graph::nodes;
use super::params::{EventRef, Launchable, Memcpy, Memset};
use super::{forget_current, is_current, CallError, DriverError};
use super::{CallResult, Callback, RawExec, RawGraph, RawNode};

/// The driver call that sets a kernel node of an executable graph.
const SET_KERNEL: &str = "cuGraphExecKernelNodeSetParams_v2";

/// Adding each kind of node to a template, and setting its parameters there.
impl<'a> RawGraph<'a> {
    pub fn add_empty(&mut self, deps: &[RawNode]) -> CallResult<RawNode> {
        let (g, d) = (self.target(), nodes(deps));
        // SAFETY: `g` is live and `d` are its nodes; `deps` outlives the call.
        self.add("cuGraphAddEmptyNode", |n| unsafe {
            sys::cuGraphAddEmptyNode(n, g, d, deps.len())
        })
    }

    #[inline(always)]
    pub fn add_kernel(
        &mut self,
        deps: &[RawNode],
        l: &Launchable,
        cfg: &LaunchConfig,
        args: &ArgBlock,
    ) -> CallResult<RawNode> {
        let mut ptrs = ArgPtrs::new();
        let p = l.params(cfg, args, &mut ptrs);
        let (g, d) = (self.target(), nodes(deps));
        // SAFETY: as in `add_empty`; `p` points into `args` and `ptrs`, alive for the call, one
        // value per parameter (`Launchable`); the function is kept by this graph.
        self.add("cuGraphAddKernelNode_v2", |n| unsafe {
            sys::cuGraphAddKernelNode_v2(n, g, d, deps.len(), &p)
        })
    }

    pub fn add_memset(&mut self, deps: &[RawNode], m: &Memset) -> CallResult<RawNode> {
        let (g, d, p, ctx) = (self.target(), nodes(deps), m.params(), self.ctx.cu_ctx());
        // SAFETY: as in `add_empty`; `p` is a plain value struct.
        self.add("cuGraphAddMemsetNode", |n| unsafe {
            sys::cuGraphAddMemsetNode(n, g, d, deps.len(), &p, ctx)
        })
    }

    pub fn add_memcpy(&mut self, deps: &[RawNode], m: &Memcpy<'a>) -> CallResult<RawNode> {
        let (g, d, p, ctx) = (self.target(), nodes(deps), m.params(), self.ctx.cu_ctx());
        // SAFETY: as in `add_empty`; host ends are borrowed for `'a` and hold at least
        // `bytes` bytes (`Memcpy::new`).
        self.add("cuGraphAddMemcpyNode", |n| unsafe {
            sys::cuGraphAddMemcpyNode(n, g, d, deps.len(), &p, ctx)
        })
    }

    pub fn add_host(&mut self, deps: &[RawNode], cb: &Callback<'a>) -> CallResult<RawNode> {
        let (g, d, p) = (self.target(), nodes(deps), cb.params());
        // SAFETY: as in `add_empty`; the closure is kept below for the graph's life.
        let n = self.add("cuGraphAddHostNode", |n| unsafe {
            sys::cuGraphAddHostNode(n, g, d, deps.len(), &p)
        })?;
        self.kept.callback(cb);
        Ok(n)
    }

    /// Adds a node running a copy of `child` (the driver clones it, with what its nodes point
    /// at, which this graph now keeps too).
    pub fn add_child(&mut self, deps: &[RawNode], child: &RawGraph<'a>) -> CallResult<RawNode> {
        let (g, d, c) = (self.target(), nodes(deps), child.raw());
        // SAFETY: as in `add_empty`; `c` is a live graph.
        let n = self.add("cuGraphAddChildGraphNode", |n| unsafe {
            sys::cuGraphAddChildGraphNode(n, g, d, deps.len(), c)
        })?;
        self.kept.extend(&child.kept);
        Ok(n)
    }

    pub fn add_event_record(&mut self, deps: &[RawNode], ev: EventRef<'a>) -> CallResult<RawNode> {
        let (g, d, e) = (self.target(), nodes(deps), ev.raw());
        // SAFETY: as in `add_empty`; the event is borrowed for `'a`.
        self.add("cuGraphAddEventRecordNode", |n| unsafe {
            sys::cuGraphAddEventRecordNode(n, g, d, deps.len(), e)
        })
    }

    pub fn add_event_wait(&mut self, deps: &[RawNode], ev: EventRef<'a>) -> CallResult<RawNode> {
        let (g, d, e) = (self.target(), nodes(deps), ev.raw());
        // SAFETY: as in `add_event_record`.
        self.add("cuGraphAddEventWaitNode", |n| unsafe {
            sys::cuGraphAddEventWaitNode(n, g, d, deps.len(), e)
        })
    }

    #[inline]
    pub fn set_kernel(
        &mut self,
        n: RawNode,
        l: &Launchable,
        cfg: &LaunchConfig,
        args: &ArgBlock,
    ) -> CallResult<()> {
        let mut ptrs = ArgPtrs::new();
        let p = l.params(cfg, args, &mut ptrs);
        // SAFETY: `n` is a kernel node of this graph; `p` as in `add_kernel`.
        self.set("cuGraphKernelNodeSetParams_v2", || unsafe {
            sys::cuGraphKernelNodeSetParams_v2(n.0, &p)
        })
    }

    pub fn set_memset(&mut self, n: RawNode, m: &Memset) -> CallResult<()> {
        let p = m.params();
        // SAFETY: `n` is a memset node of this graph; `p` is a plain value struct.
        self.set("cuGraphMemsetNodeSetParams", || unsafe {
            sys::cuGraphMemsetNodeSetParams(n.0, &p)
        })
    }

    pub fn set_memcpy(&mut self, n: RawNode, m: &Memcpy<'a>) -> CallResult<()> {
        let p = m.params();
        // SAFETY: `n` is a memcpy node of this graph; `p` as in `add_memcpy`.
        self.set("cuGraphMemcpyNodeSetParams", || unsafe {
            sys::cuGraphMemcpyNodeSetParams(n.0, &p)
        })
    }

    pub fn set_host(&mut self, n: RawNode, cb: &Callback<'a>) -> CallResult<()> {
        let p = cb.params();
        // SAFETY: `n` is a host node of this graph; the closure is kept below.
        self.set("cuGraphHostNodeSetParams", || unsafe {
            sys::cuGraphHostNodeSetParams(n.0, &p)
        })?;
        // A template is never launched, and executable graphs keep their own copies.
        self.kept.release_unshared();
        self.kept.callback(cb);
        Ok(())
    }

    pub fn set_event_record(&mut self, n: RawNode, ev: EventRef<'a>) -> CallResult<()> {
        // SAFETY: `n` is an event record node of this graph; the event lives for `'a`.
        self.set("cuGraphEventRecordNodeSetEvent", || unsafe {
            sys::cuGraphEventRecordNodeSetEvent(n.0, ev.raw())
        })
    }

    pub fn set_event_wait(&mut self, n: RawNode, ev: EventRef<'a>) -> CallResult<()> {
        // SAFETY: `n` is an event wait node of this graph; the event lives for `'a`.
        self.set("cuGraphEventWaitNodeSetEvent", || unsafe {
            sys::cuGraphEventWaitNodeSetEvent(n.0, ev.raw())
        })
    }
}

/// Setting each kind of node's parameters on an executable graph.
impl<'a> RawExec<'a> {
    /// The setters' path: one driver call when this thread's context is the graph's (as the
    /// last call left it) and the driver accepts. Everything else (another context current, a
    /// refusal) goes out of line, so the hot path keeps its values in registers: the checked
    /// path ([`call`](Self::call)) needs them in memory, which cost a dozen stores a call.
    #[inline(always)]
    pub fn set_kernel(
        &mut self,
        n: RawNode,
        l: &Launchable,
        cfg: &LaunchConfig,
        args: &ArgBlock,
    ) -> CallResult<()> {
        if !is_current(self.ctx.cu_ctx()) {
            return self.set_kernel_checked(n, l, cfg, args);
        }
        let mut ptrs = ArgPtrs::new();
        let p = l.params(cfg, args, &mut ptrs);
        // SAFETY: as in `set_kernel_checked`.
        let r = unsafe { sys::cuGraphExecKernelNodeSetParams_v2(self.raw, n.0, &p) };
        if r == sys::CUresult::CUDA_SUCCESS {
            return Ok(());
        }
        self.set_kernel_refused(n, l, cfg, args, r)
    }

    /// `set_kernel` after the driver answered `r`: again in the graph's context if the
    /// driver said the context was not current (other code switched it), else the error.
    #[cold]
    #[inline(never)]
    fn set_kernel_refused(
        &mut self,
        n: RawNode,
        l: &Launchable,
        cfg: &LaunchConfig,
        args: &ArgBlock,
        r: sys::CUresult,
    ) -> CallResult<()> {
        if r != sys::CUresult::CUDA_ERROR_INVALID_CONTEXT {
            return Err(CallError {
                call: SET_KERNEL,
                code: DriverError(r),
            });
        }
        forget_current();
        self.set_kernel_checked(n, l, cfg, args)
    }

    /// `set_kernel` with the graph's context made current first.
    #[cold]
    #[inline(never)]
    fn set_kernel_checked(
        &mut self,
        n: RawNode,
        l: &Launchable,
        cfg: &LaunchConfig,
        args: &ArgBlock,
    ) -> CallResult<()> {
        let mut ptrs = ArgPtrs::new();
        let p = l.params(cfg, args, &mut ptrs);
        let e = self.raw;
        // SAFETY: `n` is a kernel node of the graph this was made from; `p` points into `args`
        // and `ptrs`, one value per parameter (`Launchable`); the function is kept (the
        // template kept it, and this graph copied the template's list).
        self.call(SET_KERNEL, || unsafe {
            sys::cuGraphExecKernelNodeSetParams_v2(e, n.0, &p)
        })
    }

    #[inline]
    pub fn set_memset(&mut self, n: RawNode, m: &Memset) -> CallResult<()> {
        let (e, p, ctx) = (self.raw, m.params(), self.ctx.cu_ctx());
        // SAFETY: `n` is a memset node of the graph this was made from; `p` is plain values.
        self.call("cuGraphExecMemsetNodeSetParams", || unsafe {
            sys::cuGraphExecMemsetNodeSetParams(e, n.0, &p, ctx)
        })
    }

    #[inline]
    pub fn set_memcpy(&mut self, n: RawNode, m: &Memcpy<'a>) -> CallResult<()> {
        let (e, p, ctx) = (self.raw, m.params(), self.ctx.cu_ctx());
        // SAFETY: `n` is a memcpy node of the graph this was made from; host ends live for
        // `'a` and hold at least `bytes` bytes (`Memcpy::new`).
        self.call("cuGraphExecMemcpyNodeSetParams", || unsafe {
            sys::cuGraphExecMemcpyNodeSetParams(e, n.0, &p, ctx)
        })
    }

    pub fn set_host(&mut self, n: RawNode, cb: &Callback<'a>) -> CallResult<()> {
        let (e, p) = (self.raw, cb.params());
        // SAFETY: `n` is a host node of the graph this was made from; the closure is kept below.
        self.call("cuGraphExecHostNodeSetParams", || unsafe {
            sys::cuGraphExecHostNodeSetParams(e, n.0, &p)
        })?;
        self.kept.callback(cb);
        Ok(())
    }

    /// Runs a copy of `child` in child node `n` (what `child`'s nodes call is kept too).
    pub fn set_child(&mut self, n: RawNode, child: &RawGraph<'a>) -> CallResult<()> {
        let (e, c) = (self.raw, child.raw());
        // SAFETY: `n` is a child node of the graph this was made from; `c` is a live graph.
        self.call("cuGraphExecChildGraphNodeSetParams", || unsafe {
            sys::cuGraphExecChildGraphNodeSetParams(e, n.0, c)
        })?;
        self.keep_all(child);
        Ok(())
    }

    pub fn set_event_record(&mut self, n: RawNode, ev: EventRef<'a>) -> CallResult<()> {
        let e = self.raw;
        // SAFETY: `n` is an event record node of the graph this was made from; the event lives
        // for `'a`.
        self.call("cuGraphExecEventRecordNodeSetEvent", || unsafe {
            sys::cuGraphExecEventRecordNodeSetEvent(e, n.0, ev.raw())
        })
    }

    pub fn set_event_wait(&mut self, n: RawNode, ev: EventRef<'a>) -> CallResult<()> {
        let e = self.raw;
        // SAFETY: as in `set_event_record`, for an event wait node.
        self.call("cuGraphExecEventWaitNodeSetEvent", || unsafe {
            sys::cuGraphExecEventWaitNodeSetEvent(e, n.0, ev.raw())
        })
    }
}

/// The kind of a node found in a graph the driver made (a captured one).
pub(super) fn node_kind(ty: sys::CUgraphNodeType) -> NodeKind {
    use sys::CUgraphNodeType as T;
    match ty {
        T::CU_GRAPH_NODE_TYPE_KERNEL => NodeKind::Kernel,
        T::CU_GRAPH_NODE_TYPE_MEMSET => NodeKind::Memset,
        T::CU_GRAPH_NODE_TYPE_MEMCPY => NodeKind::Memcpy,
        T::CU_GRAPH_NODE_TYPE_HOST => NodeKind::Host,
        T::CU_GRAPH_NODE_TYPE_GRAPH => NodeKind::Child,
        T::CU_GRAPH_NODE_TYPE_EVENT_RECORD => NodeKind::EventRecord,
        T::CU_GRAPH_NODE_TYPE_WAIT_EVENT => NodeKind::EventWait,
        T::CU_GRAPH_NODE_TYPE_MEM_ALLOC => NodeKind::MemAlloc,
        T::CU_GRAPH_NODE_TYPE_MEM_FREE => NodeKind::MemFree,
        T::CU_GRAPH_NODE_TYPE_CONDITIONAL => NodeKind::Conditional,
        _ => NodeKind::Empty,
    }
}
