//! Peer access between two devices: whether one can read and write the other's memory directly
//! (NVLink or PCIe), and turning it on, for memcpy nodes between a graph's device and a buffer
//! of another. Two switches: the contexts' peer access (memory from `cuMemAlloc`), and the
//! access of the graph's device to the other device's current memory pool (memory from
//! `cuMemAllocAsync`, which cudarc uses where pools are supported: peer access of the contexts
//! does not reach it).

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
        sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
        r => check("cuCtxEnablePeerAccess", r)?,
    }
    let mut pools = 0;
    // SAFETY: a valid out-pointer and a live device.
    check("cuDeviceGetAttribute", unsafe {
        sys::cuDeviceGetAttribute(
            &mut pools,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            peer.cu_device(),
        )
    })?;
    if pools == 0 {
        return Ok(true);
    }
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and a live device.
    check("cuDeviceGetMemPool", unsafe {
        sys::cuDeviceGetMemPool(&mut pool, peer.cu_device())
    })?;
    let access = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: ctx.cu_device(),
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: `pool` is the peer device's live pool; one descriptor.
    check("cuMemPoolSetAccess", unsafe {
        sys::cuMemPoolSetAccess(pool, &access, 1)
    })?;
    Ok(true)
}
