//! Graph-owned memory nodes: an allocation node (the memory exists from it on, during a launch)
//! and a free node (it ends there). Between them, kernels, memsets and memcpys use the memory
//! through an ordinary [`BufMut`](crate::buffer::BufMut) handle.

use super::{kind, Children, Shadow, Target};
use crate::driver::{CallResult, RawGraph, RawNode};
use crate::error::EditError;
use cuda_graph_topology::NodeKind;

kind!(
    /// A node allocating graph-owned memory of `T` elements: made by
    /// [`Graph::add_mem_alloc`](crate::Graph::add_mem_alloc).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>) -> cuda_graph_runtime::Result<()> {
    /// let (alloc, tmp) = g.add_mem_alloc::<f32>("alloc_tmp", &[], 1 << 20)?;
    /// let fill = g.add_memset("fill", &[&alloc], tmp, 0.5f32)?;
    /// g.add_mem_free("free_tmp", &[&fill], tmp)?;
    /// # Ok(()) }
    /// ```
    handle MemAllocNode<T>,
    /// A view of an allocation node: its size, fixed when it was made.
    view MemAllocMut,
    shadow MemAllocShadow,
    kind MemAlloc
);

kind!(
    /// A node freeing graph-owned memory: made by
    /// [`Graph::add_mem_free`](crate::Graph::add_mem_free).
    handle MemFreeNode<>,
    /// A free node has no parameters.
    view MemFreeMut,
    shadow MemFreeShadow,
    kind MemFree
);

/// An allocation: its size.
#[derive(Clone, Copy)]
pub(crate) struct MemAllocShadow {
    pub bytes: usize,
}

impl<'a> Shadow<'a> for MemAllocShadow {
    const KIND: NodeKind = NodeKind::MemAlloc;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_mem_alloc(deps, self.bytes)
    }

    /// Nothing to resend: an allocation cannot change once made.
    fn apply(&self, _: &mut Target<'_, 'a>, _: RawNode) -> CallResult<()> {
        Ok(())
    }
}

/// A free: the address it frees.
#[derive(Clone, Copy)]
pub(crate) struct MemFreeShadow {
    pub addr: u64,
}

impl<'a> Shadow<'a> for MemFreeShadow {
    const KIND: NodeKind = NodeKind::MemFree;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_mem_free(deps, self.addr)
    }

    fn apply(&self, _: &mut Target<'_, 'a>, _: RawNode) -> CallResult<()> {
        Ok(())
    }
}

impl<T, S> MemAllocMut<'_, '_, T, S> {
    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.cx.shadow.bytes
    }

    /// Elements of `T` allocated.
    pub fn len(&self) -> usize {
        self.cx.shadow.bytes / std::mem::size_of::<T>().max(1)
    }

    /// Whether nothing is allocated (never: empty allocations are refused).
    pub fn is_empty(&self) -> bool {
        self.cx.shadow.bytes == 0
    }

    /// An error unless `len` elements fit: the size of graph-owned memory is fixed when its
    /// node is made (what `cuda_graph!`'s param setters check before changing a length).
    pub fn ensure_fits(&self, len: usize) -> Result<(), EditError> {
        let needed = len.saturating_mul(std::mem::size_of::<T>());
        if needed <= self.cx.shadow.bytes {
            Ok(())
        } else {
            Err(EditError::TemporaryTooSmall {
                node: self.cx.name().to_owned(),
                bytes: self.cx.shadow.bytes,
                needed,
            })
        }
    }
}

impl<T> super::SendAgain<usize> for MemAllocMut<'_, '_, T, super::OnExec> {
    fn send_again(&mut self, len: usize, _: u64) -> Result<(), EditError> {
        self.ensure_fits(len)
    }
}
