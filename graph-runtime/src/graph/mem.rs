//! Graph-owned memory: allocation and free nodes, and the footprint of what a graph allocates.

use cudarc::driver::DeviceRepr;

use super::add::Deps;
use super::Graph;
use crate::bind::BufMut;
use crate::error::{BuildError, HandleError};
use crate::id::Dep;
use crate::kinds::mem::{MemAllocNode, MemAllocShadow, MemFreeNode, MemFreeShadow};

impl<'a> Graph<'a> {
    /// Adds a node allocating `len` elements of `T` of graph-owned memory, and returns it with
    /// a handle to the memory, which kernel, memset and memcpy nodes ordered after it (and
    /// before its [`add_mem_free`](Self::add_mem_free) node) use like any bound buffer. The
    /// memory starts uninitialised; the driver backs it only while a launch runs between the
    /// two nodes, and may reuse it for allocations the graph orders apart.
    pub fn add_mem_alloc<T: DeviceRepr>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        len: usize,
    ) -> Result<(MemAllocNode<T>, BufMut<T>), BuildError> {
        let bytes = len.saturating_mul(std::mem::size_of::<T>());
        if bytes == 0 {
            return Err(BuildError::EmptyAllocation {
                node: name.to_owned(),
            });
        }
        let at = self.add_node(name, Deps::Handles(deps), MemAllocShadow { bytes })?;
        let raw = self.nodes[at.id.index as usize].raw;
        let addr = self.raw.mem_alloc_addr(raw).map_err(|e| e.at(Some(name)))?;
        let index = self.bindings.bind_owned(addr, len);
        Ok((MemAllocNode::new(at), BufMut::new(self.id, index)))
    }

    /// Adds a node freeing graph-owned memory made by [`add_mem_alloc`](Self::add_mem_alloc);
    /// it must come after every node that uses the memory.
    pub fn add_mem_free<T>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        mem: BufMut<T>,
    ) -> Result<MemFreeNode, BuildError> {
        let b = self.bindings.get(mem.graph, mem.index)?;
        if !b.is_owned() {
            return Err(HandleError::NotGraphOwned.into());
        }
        let addr = b.addr;
        let at = self.add_node(name, Deps::Handles(deps), MemFreeShadow { addr })?;
        Ok(MemFreeNode::new(at))
    }

    /// Bytes of graph-owned memory the graph's allocation nodes hold, all together (the driver
    /// may need less at once, reusing memory between allocations ordered apart).
    pub fn temporary_bytes(&self) -> usize {
        self.stores.alloc.items.iter().map(|a| a.bytes).sum()
    }
}
