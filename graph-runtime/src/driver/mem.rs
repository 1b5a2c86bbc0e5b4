//! Graph-owned memory: allocation and free nodes. The driver reserves an allocation's address
//! when its node is added (fixed for the graph's life) and backs it with memory only while a
//! launch runs between the allocation and its free node, reusing memory between allocations
//! whose lifetimes the graph orders apart.

use std::ptr;

use cudarc::driver::sys;

use super::graph::{nodes, RawGraph, RawNode};
use super::{check, in_context, CallResult};

impl RawGraph<'_> {
    /// Adds a node allocating `bytes` of device memory on the graph's device
    /// ([`mem_alloc_addr`](Self::mem_alloc_addr) gives its address).
    pub fn add_mem_alloc(&mut self, deps: &[RawNode], bytes: usize) -> CallResult<RawNode> {
        let (g, d) = (self.target(), nodes(deps));
        let dev = self.context().cu_device();
        self.add("cuGraphAddMemAllocNode", |n| {
            // SAFETY: an all-zero pool description is valid (no handle types, no reserved
            // bits); the fields that matter are set below.
            let mut p: sys::CUDA_MEM_ALLOC_NODE_PARAMS = unsafe { std::mem::zeroed() };
            p.poolProps.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
            p.poolProps.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
            p.poolProps.location.id = dev;
            p.accessDescs = ptr::null();
            p.bytesize = bytes;
            // SAFETY: as in `add_empty`; `p` is read (and `dptr` written) during the call.
            unsafe { sys::cuGraphAddMemAllocNode(n, g, d, deps.len(), &mut p) }
        })
    }

    /// The address of allocation node `n`'s memory.
    pub fn mem_alloc_addr(&self, n: RawNode) -> CallResult<u64> {
        in_context(self.context().cu_ctx(), || {
            // SAFETY: as above.
            let mut p: sys::CUDA_MEM_ALLOC_NODE_PARAMS = unsafe { std::mem::zeroed() };
            // SAFETY: `n` is an allocation node of this graph; `p` a valid out-pointer.
            check("cuGraphMemAllocNodeGetParams", unsafe {
                sys::cuGraphMemAllocNodeGetParams(n.0, &mut p)
            })?;
            Ok(p.dptr)
        })
    }

    /// Adds a node freeing the allocation at `addr` (made by an allocation node of this graph).
    pub fn add_mem_free(&mut self, deps: &[RawNode], addr: u64) -> CallResult<RawNode> {
        let (g, d) = (self.target(), nodes(deps));
        // SAFETY: as in `add_empty`; the driver checks that `addr` is one of this graph's
        // allocations, not yet freed.
        self.add("cuGraphAddMemFreeNode", |n| unsafe {
            sys::cuGraphAddMemFreeNode(n, g, d, deps.len(), addr)
        })
    }
}
