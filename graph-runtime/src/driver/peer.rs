//! Peer access between two devices: whether one can read and write the other's memory directly
//! (NVLink or PCIe), and turning it on, for memcpy nodes between a graph's device and a buffer
//! of another.

use cudarc::driver::sys;
use cudarc::driver::CudaContext;

use super::{check, make_current_checked, CallResult};

/// Whether `ctx`'s device can reach `peer`'s memory directly; when it can, access from `ctx` to
/// `peer` is enabled (once: enabling it again is no error). The same device needs nothing.
pub(crate) fn enable_peer_access(ctx: &CudaContext, peer: &CudaContext) -> CallResult<bool> {
    if ctx.cu_ctx() == peer.cu_ctx() || ctx.cu_device() == peer.cu_device() {
        return Ok(true);
    }
    let mut can = 0;
    // SAFETY: `can` is a valid out-pointer; both devices come from live contexts.
    check("cuDeviceCanAccessPeer", unsafe {
        sys::cuDeviceCanAccessPeer(&mut can, ctx.cu_device(), peer.cu_device())
    })?;
    if can == 0 {
        return Ok(false);
    }
    make_current_checked(ctx.cu_ctx())?;
    // SAFETY: `peer` is a live context; flags must be 0.
    match unsafe { sys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) } {
        sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(true),
        r => check("cuCtxEnablePeerAccess", r).map(|()| true),
    }
}
