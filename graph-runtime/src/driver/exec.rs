//! An executable graph, owned: launched, edited in place, updated, destroyed once its launches
//! are done.

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUgraphExec, CUgraphExecUpdateResult, CUgraphInstantiateResult};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

use super::params::Idle;
use super::{
    check, in_context, make_current_checked, CallError, CallResult, KeepAlive, RawGraph, RawNode,
};
use crate::error::{InstantiateReason, UpdateRefusal};

/// `cuGraphInstantiateWithParams` flags.
pub(crate) mod flags {
    use cudarc::driver::sys::CUgraphInstantiate_flags as F;

    /// Upload as part of instantiation.
    pub const UPLOAD: u64 = F::CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD.0 as u64;
    /// Free graph-owned allocations not freed by the graph before each launch.
    pub const AUTO_FREE_ON_LAUNCH: u64 =
        F::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.0 as u64;
    /// Launch kernel nodes with their own priority.
    pub const USE_NODE_PRIORITY: u64 = F::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY.0 as u64;
}

/// Why `cuGraphInstantiateWithParams` failed, beyond its return code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InstantiateFailure {
    pub error: CallError,
    pub node: Option<RawNode>,
    pub reason: InstantiateReason,
}

pub(super) fn instantiate_reason(r: CUgraphInstantiateResult) -> InstantiateReason {
    use CUgraphInstantiateResult::*;
    match r {
        CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE => InstantiateReason::InvalidStructure,
        CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED => {
            InstantiateReason::NodeOperationNotSupported
        }
        CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED => InstantiateReason::MultipleContexts,
        _ => InstantiateReason::Other,
    }
}

/// Why `cuGraphExecUpdate_v2` refused, beyond its return code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UpdateFailure {
    pub refusal: UpdateRefusal,
    pub node: Option<RawNode>,
}

fn refusal(r: CUgraphExecUpdateResult) -> UpdateRefusal {
    use CUgraphExecUpdateResult::*;
    match r {
        CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED => UpdateRefusal::TopologyChanged,
        CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED => UpdateRefusal::NodeTypeChanged,
        CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED
        | CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE => UpdateRefusal::FunctionChanged,
        CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED => UpdateRefusal::ParametersChanged,
        CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED => UpdateRefusal::NotSupported,
        _ => UpdateRefusal::Other,
    }
}

/// Instantiation: a template made executable. Here, beside the executable graph it makes, so
/// the template (`graph.rs`) needs nothing of the executable.
impl<'a> RawGraph<'a> {
    /// Makes an executable graph (uploaded on `upload` if given), which keeps its own copy of
    /// what this graph keeps.
    pub fn instantiate(
        &self,
        flags: u64,
        upload: Option<&Arc<CudaStream>>,
    ) -> Result<RawExec<'a>, InstantiateFailure> {
        let fail = |error| InstantiateFailure {
            error,
            node: None,
            reason: InstantiateReason::Other,
        };
        // An upload stream may be the legacy default stream: the current context must be ours.
        make_current_checked(self.ctx.cu_ctx()).map_err(fail)?;
        let mut exec = ptr::null_mut();
        let mut p = sys::CUDA_GRAPH_INSTANTIATE_PARAMS {
            flags,
            hUploadStream: upload.map_or(ptr::null_mut(), |s| s.cu_stream()),
            hErrNode_out: ptr::null_mut(),
            result_out: sys::CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_SUCCESS,
        };
        // SAFETY: the graph is live and references only what lives for `'a` or is kept here;
        // `exec` and `p` are valid for the call; the upload stream (if any) is live.
        let r = unsafe { sys::cuGraphInstantiateWithParams(&mut exec, self.raw(), &mut p) };
        match check("cuGraphInstantiateWithParams", r) {
            Ok(()) => Ok(RawExec::new(exec, self, upload)),
            Err(error) => Err(InstantiateFailure {
                error,
                node: (!p.hErrNode_out.is_null()).then_some(RawNode(p.hErrNode_out)),
                reason: instantiate_reason(p.result_out),
            }),
        }
    }
}

/// An executable graph. It keeps a copy of every function and host closure its nodes may call,
/// and the streams it was launched on: dropping it (or [`replace`](Self::replace)) waits for
/// those launches before anything kept is released.
pub(crate) struct RawExec<'a> {
    pub(super) raw: CUgraphExec,
    pub(super) ctx: Arc<CudaContext>,
    pub(super) kept: KeepAlive<'a>,
    /// The template's [`KeepAlive::added`] when `kept` last took everything the template keeps:
    /// an update from a template that added nothing since has nothing to keep.
    template_added: u64,
    /// Streams launched or uploaded on since the last [`wait`](Self::wait).
    streams: Vec<Arc<CudaStream>>,
}

// SAFETY: the executable graph handle is an identifier the driver lets any thread use; every
// call on it goes through `&mut self`, or `&self` for calls that the driver allows at the same
// time as launches (none here). `KeepAlive` and the streams are `Send + Sync`.
unsafe impl Send for RawExec<'_> {}
// SAFETY: as above; `&RawExec` makes no driver call.
unsafe impl Sync for RawExec<'_> {}

impl<'a> RawExec<'a> {
    pub(super) fn new(
        raw: CUgraphExec,
        graph: &RawGraph<'a>,
        upload: Option<&Arc<CudaStream>>,
    ) -> Self {
        RawExec {
            raw,
            ctx: graph.context().clone(),
            kept: graph.kept().clone(),
            template_added: graph.kept().added(),
            streams: upload.into_iter().cloned().collect(),
        }
    }

    /// The driver's handle.
    #[inline]
    pub(crate) fn handle(&self) -> CUgraphExec {
        self.raw
    }

    #[inline(always)]
    pub(super) fn call(&self, call: &'static str, f: impl Fn() -> sys::CUresult) -> CallResult<()> {
        in_context(self.ctx.cu_ctx(), || check(call, f()))
    }

    #[inline]
    fn remember(&mut self, stream: &Arc<CudaStream>) {
        if !self.streams.iter().rev().any(|s| Arc::ptr_eq(s, stream)) {
            self.streams.push(stream.clone());
        }
    }

    /// Launches on `stream` (a stream of this graph's context).
    #[inline]
    pub fn launch(&mut self, stream: &Arc<CudaStream>) -> CallResult<()> {
        self.remember(stream);
        let (e, s) = (self.raw, stream.cu_stream());
        make_current_checked(self.ctx.cu_ctx())?;
        // SAFETY: the executable graph is live, and what it references lives for `'a` or is
        // kept here until the launch is waited for; the stream is live.
        check("cuGraphLaunch", unsafe { sys::cuGraphLaunch(e, s) })
    }

    /// Uploads to the device on `stream` ahead of the first launch.
    pub fn upload(&mut self, stream: &Arc<CudaStream>) -> CallResult<()> {
        self.remember(stream);
        let (e, s) = (self.raw, stream.cu_stream());
        make_current_checked(self.ctx.cu_ctx())?;
        // SAFETY: as in `launch`.
        check("cuGraphUpload", unsafe { sys::cuGraphUpload(e, s) })
    }

    /// Waits for every launch so far, then lets go of host closures no graph uses any more.
    /// The returned proof borrows `self`, so no launch can start while it lives.
    pub fn wait(&mut self) -> Result<Idle<'_>, DriverError> {
        let mut first = Ok(());
        for s in self.streams.drain(..) {
            if let Err(e) = s.synchronize() {
                first = first.and(Err(e));
            }
        }
        first?;
        // A closure only this list holds was replaced on every graph.
        self.kept.release_unshared();
        Ok(Idle(PhantomData))
    }

    /// Takes `new`'s place. The old executable graph is destroyed at once (the driver frees it
    /// when its launches complete); what it kept, and the streams it ran on, move here so they
    /// outlast those launches.
    pub fn replace(&mut self, new: RawExec<'a>) {
        let mut old = std::mem::replace(self, new);
        self.kept.extend(&old.kept);
        for s in old.streams.drain(..) {
            self.remember(&s);
        }
        // No stream left to wait for: this only destroys the old graph.
        drop(old);
    }

    /// `cuGraphExecUpdate_v2` from `g`: on success this graph also keeps what `g` keeps.
    #[inline(always)]
    pub fn update_from(&mut self, g: &RawGraph<'a>) -> Result<(), UpdateFailure> {
        let mut info = MaybeUninit::<sys::CUgraphExecUpdateResultInfo>::zeroed();
        let (e, raw, out) = (self.raw, g.raw(), info.as_mut_ptr());
        let r = in_context(self.ctx.cu_ctx(), || {
            // SAFETY: both graphs are live; `out` points at `info`, valid for writes.
            check("cuGraphExecUpdate_v2", unsafe {
                sys::cuGraphExecUpdate_v2(e, raw, out)
            })
        });
        // SAFETY: all-zero bytes are a valid `CUgraphExecUpdateResultInfo` (result SUCCESS,
        // null nodes), and the driver only writes valid values over them.
        let info = unsafe { info.assume_init() };
        match r {
            Ok(()) => {
                // The template's list only grows between updates (a closure it lets go of is
                // one this list shares, and keeps), so an unchanged count means nothing new.
                if g.kept().added() != self.template_added {
                    self.keep_all(g);
                    self.template_added = g.kept().added();
                }
                Ok(())
            }
            Err(_) => Err(UpdateFailure {
                refusal: refusal(info.result),
                node: (!info.errorNode.is_null()).then_some(RawNode(info.errorNode)),
            }),
        }
    }

    pub(super) fn keep_all(&mut self, g: &RawGraph<'a>) {
        self.kept.extend(g.kept());
    }

    /// Enables or disables kernel, memset or memcpy node `n`.
    #[inline]
    pub fn set_enabled(&mut self, n: RawNode, on: bool) -> CallResult<()> {
        let e = self.raw;
        // SAFETY: `n` is a node of the graph this was made from (the driver refuses other
        // kinds with an error).
        self.call("cuGraphNodeSetEnabled", || unsafe {
            sys::cuGraphNodeSetEnabled(e, n.0, on as u32)
        })
    }
}

impl Drop for RawExec<'_> {
    fn drop(&mut self) {
        let waited = self.wait().map(drop);
        self.ctx.record_err(waited);
        // SAFETY: the executable graph is live and dropped once, after its launches.
        let r = check("cuGraphExecDestroy", unsafe {
            sys::cuGraphExecDestroy(self.raw)
        });
        self.ctx.record_err(r.map_err(|e| e.code));
    }
}
