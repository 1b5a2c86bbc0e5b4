//! Buffers bound to a graph, and the typed handles nodes use to name them.
//!
//! A graph borrows every buffer its nodes touch: `&'a CudaSlice<T>` for buffers that nodes
//! only read, `&'a mut CudaSlice<T>` for buffers that some node writes, and likewise for host
//! slices. Binding happens once per buffer ([`Graph::bind`](crate::Graph::bind) and friends);
//! nodes then name the buffer by a small `Copy` handle, so several nodes can share one buffer
//! that is borrowed mutably once.
//!
//! The graph keeps the borrows for its whole life, which is what lets the borrow checker forbid
//! freeing a buffer while an executable graph may still use it. While the graph lives, reach a
//! bound buffer through [`GraphExec::buffer`](crate::GraphExec::buffer) and friends.

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr};

use crate::driver::{End, HostPtr, HostPtrMut, Idle};
use crate::error::{EditError, HandleError};
use crate::id::GraphId;

mod handles;
pub use handles::{
    Buf, BufMut, BufferId, DeviceBuf, HostBuf, HostBufMut, PeerBuf, PeerBufMut, Void,
};

/// A device slice whose cudarc stream-ordering events the graph maintains at launch.
pub(crate) trait Tracked: Any + Send + Sync {
    /// Makes `stream` wait for earlier writes, runs `f`, then records a read on `stream`.
    fn guard_read(&self, stream: &CudaStream, f: &mut dyn FnMut() -> Tracking) -> Tracking;
    /// Makes `stream` wait for earlier reads and writes, runs `f`, then records a write.
    fn guard_write(&mut self, stream: &CudaStream, f: &mut dyn FnMut() -> Tracking) -> Tracking;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// What a launch wrapped by [`Bindings::tracked`] returns.
pub(crate) type Tracking = Result<(), crate::error::LaunchError>;

impl<T: DeviceRepr + Send + Sync + 'static> Tracked for CudaSlice<T> {
    fn guard_read(&self, stream: &CudaStream, f: &mut dyn FnMut() -> Tracking) -> Tracking {
        let (_ptr, _record_on_drop) = self.device_ptr(stream);
        f()
    }
    fn guard_write(&mut self, stream: &CudaStream, f: &mut dyn FnMut() -> Tracking) -> Tracking {
        let (_ptr, _record_on_drop) = self.device_ptr_mut(stream);
        f()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A peer binding's slice, kept borrowed (read-only or writable) for the graph's life.
pub(crate) enum PeerSlice<'a> {
    Read(#[allow(dead_code)] &'a dyn Tracked),
    Write(#[allow(dead_code)] &'a mut dyn Tracked),
}

pub(crate) enum Access<'a> {
    Device(&'a dyn Tracked),
    DeviceMut(&'a mut dyn Tracked),
    /// A host slice the graph reads.
    Host(HostPtr<'a>),
    /// A host slice memcpy nodes may write.
    HostMut(HostPtrMut<'a>),
    /// A buffer of the parent graph, seen by a child graph made with `Graph::child_graph`;
    /// the parent tracks it.
    Parent(End<'a>),
    /// Graph-owned memory, made by an allocation node: it exists only during launches.
    Owned,
    /// A device buffer of another device (context `ctx`), which only memcpy nodes use. Not
    /// tracked at launch: cudarc's stream-ordering events belong to that device's context.
    Peer {
        ctx: Arc<CudaContext>,
        _slice: PeerSlice<'a>,
    },
    /// A part of another binding of this graph (a strided stack's element), which tracks it.
    Part,
}

/// One bound buffer.
#[doc(hidden)]
pub struct Binding<'a> {
    pub(crate) access: Access<'a>,
    /// Device pointer, or host address, of element 0.
    pub(crate) addr: u64,
    /// Length in elements.
    pub(crate) len: usize,
}

impl<'a> Binding<'a> {
    /// Whether this is graph-owned memory.
    pub(crate) fn is_owned(&self) -> bool {
        matches!(self.access, Access::Owned)
    }

    /// The context of a buffer bound with `bind_peer`/`bind_peer_mut` (another device's).
    pub(crate) fn peer(&self) -> Option<&Arc<CudaContext>> {
        match &self.access {
            Access::Peer { ctx, .. } => Some(ctx),
            _ => None,
        }
    }

    /// The binding as a memcpy end.
    pub(crate) fn end(&self) -> End<'a> {
        match &self.access {
            Access::Host(h) => End::Host(*h),
            Access::HostMut(h) => End::Host(h.ptr()),
            Access::Parent(e) => *e,
            Access::Device(_) | Access::DeviceMut(_) | Access::Owned | Access::Part => {
                End::Device(self.addr)
            }
            Access::Peer { .. } => End::Peer(self.addr),
        }
    }
}

/// The buffers of one graph.
///
/// Handles carry the id of the graph that bound the buffer and its index here. A child graph
/// made with `Graph::child_graph` starts with a copy of its parent's entries (addresses only),
/// which it accepts under the parent's id; what it binds itself it accepts under its own.
#[doc(hidden)]
pub struct Bindings<'a> {
    pub(crate) list: Vec<Binding<'a>>,
    pub(crate) owner: GraphId,
    /// The parent's id and how many leading entries are the parent's.
    parent: Option<(GraphId, usize)>,
}

impl<'a> Bindings<'a> {
    pub(crate) fn new(owner: GraphId) -> Self {
        Bindings {
            list: Vec::new(),
            owner,
            parent: None,
        }
    }

    fn push(&mut self, b: Binding<'a>) -> u32 {
        if self.list.capacity() == 0 {
            // A shorter path than the first push's growth.
            self.list = Vec::with_capacity(4);
        }
        self.list.push(b);
        (self.list.len() - 1) as u32
    }

    pub(crate) fn bind<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        s: &'a CudaSlice<T>,
    ) -> u32 {
        self.push(Self::device_binding(s))
    }

    pub(crate) fn bind_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        s: &'a mut CudaSlice<T>,
    ) -> u32 {
        self.push(Self::device_binding_mut(s))
    }

    pub(crate) fn bind_host<T: Copy + Send + Sync>(&mut self, s: &'a [T]) -> u32 {
        let (addr, len) = (s.as_ptr() as u64, s.len());
        self.push(Binding {
            access: Access::Host(HostPtr::of(s)),
            addr,
            len,
        })
    }

    /// A buffer of another device (`bind_peer`): only memcpy nodes use it.
    pub(crate) fn bind_peer<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        s: &'a CudaSlice<T>,
    ) -> u32 {
        let b = Self::device_binding(s);
        self.push(Binding {
            addr: b.addr,
            len: b.len,
            access: Access::Peer {
                ctx: s.context().clone(),
                _slice: PeerSlice::Read(s),
            },
        })
    }

    /// A writable buffer of another device (`bind_peer_mut`).
    pub(crate) fn bind_peer_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        s: &'a mut CudaSlice<T>,
    ) -> u32 {
        let ctx = s.context().clone();
        let b = Self::device_binding_mut(s);
        let Access::DeviceMut(slice) = b.access else {
            unreachable!("a device binding of a `&mut`")
        };
        self.push(Binding {
            addr: b.addr,
            len: b.len,
            access: Access::Peer {
                ctx,
                _slice: PeerSlice::Write(slice),
            },
        })
    }

    /// Graph-owned memory of `len` elements at `addr` (an allocation node's).
    pub(crate) fn bind_owned(&mut self, addr: u64, len: usize) -> u32 {
        self.push(Binding {
            access: Access::Owned,
            addr,
            len,
        })
    }

    /// Elements `offset .. offset + len` of binding `of` (a device buffer of this graph, of
    /// element type `T`), as a binding of their own.
    pub(crate) fn bind_part<T>(&mut self, of: u32, offset: usize, len: usize) -> u32 {
        let addr = self.list[of as usize].addr + (offset * std::mem::size_of::<T>()) as u64;
        self.push(Binding {
            access: Access::Part,
            addr,
            len,
        })
    }

    pub(crate) fn bind_host_mut<T: Copy + Send + Sync + 'static>(&mut self, s: &'a mut [T]) -> u32 {
        let (addr, len) = (s.as_mut_ptr() as u64, s.len());
        self.push(Binding {
            access: Access::HostMut(HostPtr::of_mut(s)),
            addr,
            len,
        })
    }

    /// Puts `new` in the place of binding `index` (a binding of this graph, not its parent's,
    /// of the same kind), returning the old one. Nodes keep the old address until re-set.
    pub(crate) fn replace(
        &mut self,
        graph: GraphId,
        index: u32,
        new: Binding<'a>,
    ) -> Result<Binding<'a>, EditError> {
        let own = graph == self.owner && self.parent.is_none_or(|(_, n)| index as usize >= n);
        let Some(slot) = self.list.get_mut(index as usize).filter(|_| own) else {
            return Err(HandleError::Foreign { what: "buffer" }.into());
        };
        if matches!(slot.access, Access::Owned) {
            return Err(HandleError::GraphOwned.into());
        }
        if matches!(slot.access, Access::Part) {
            return Err(HandleError::StackPart.into());
        }
        match (&slot.access, &new.access) {
            (Access::Device(_), Access::Device(_))
            | (Access::DeviceMut(_), Access::DeviceMut(_)) => Ok(std::mem::replace(slot, new)),
            (Access::DeviceMut(_), _) => Err(EditError::SwapKind {
                bound: "writable",
                method: "swap_buffer_mut",
            }),
            _ => Err(EditError::SwapKind {
                bound: "read-only",
                method: "swap_buffer",
            }),
        }
    }

    // A binding only needs the buffer's address: no work is queued on it when it is bound, so
    // the use cudarc would record when the guard `device_ptr` returns is dropped (an event
    // record on the buffer's stream, a driver call per buffer per build) is left out
    // (`mem::forget`: the guard holds references only). Each launch orders the graph after the
    // buffer's other uses and records its own (`Tracked`).
    pub(crate) fn device_binding<T: DeviceRepr + Send + Sync + 'static>(
        s: &'a CudaSlice<T>,
    ) -> Binding<'a> {
        let (addr, no_use_yet) = s.device_ptr(s.stream());
        std::mem::forget(no_use_yet);
        Binding {
            addr,
            len: s.len(),
            access: Access::Device(s),
        }
    }

    pub(crate) fn device_binding_mut<T: DeviceRepr + Send + Sync + 'static>(
        s: &'a mut CudaSlice<T>,
    ) -> Binding<'a> {
        let len = s.len();
        let stream = s.stream().clone();
        let (addr, no_use_yet) = s.device_ptr_mut(&stream);
        std::mem::forget(no_use_yet);
        Binding {
            addr,
            len,
            access: Access::DeviceMut(s),
        }
    }

    #[inline]
    pub(crate) fn get(&self, graph: GraphId, index: u32) -> Result<&Binding<'a>, HandleError> {
        let i = index as usize;
        let known = match self.parent {
            Some((parent, n)) if graph == parent => i < n,
            _ => graph == self.owner && self.parent.is_none_or(|(_, n)| i >= n),
        };
        match self.list.get(i) {
            Some(b) if known => Ok(b),
            _ => Err(HandleError::Foreign { what: "buffer" }),
        }
    }

    /// The bindings of a child graph `child` of this graph: this graph's buffers, addresses
    /// only, accepted under this graph's id.
    pub(crate) fn for_child(&self, child: GraphId) -> Bindings<'a> {
        Bindings {
            owner: child,
            parent: Some((self.owner, self.list.len())),
            list: self
                .list
                .iter()
                .map(|b| Binding {
                    access: Access::Parent(b.end()),
                    addr: b.addr,
                    len: b.len,
                })
                .collect(),
        }
    }

    pub(crate) fn device<T: 'static>(&self, index: u32) -> Result<&CudaSlice<T>, HandleError> {
        let any = match &self.list[index as usize].access {
            Access::Device(s) => s.as_any(),
            Access::DeviceMut(s) => s.as_any(),
            Access::Owned => return Err(HandleError::GraphOwned),
            Access::Part => return Err(HandleError::StackPart),
            _ => return Err(HandleError::ParentBuffer),
        };
        Ok(any
            .downcast_ref()
            .expect("a handle's element type is the one it was bound with"))
    }

    pub(crate) fn device_mut<T: 'static>(
        &mut self,
        index: u32,
    ) -> Result<&mut CudaSlice<T>, HandleError> {
        let any = match &mut self.list[index as usize].access {
            Access::DeviceMut(s) => s.as_any_mut(),
            Access::Owned => return Err(HandleError::GraphOwned),
            Access::Part => return Err(HandleError::StackPart),
            _ => return Err(HandleError::ParentBuffer),
        };
        Ok(any
            .downcast_mut()
            .expect("a handle's element type is the one it was bound with"))
    }

    /// A host slice bound writable by this graph, while `idle` shows no launch writes it.
    pub(crate) fn host<T: Copy + 'static>(
        &self,
        index: u32,
        idle: &Idle<'_>,
    ) -> Result<&[T], HandleError> {
        match &self.list[index as usize].access {
            Access::HostMut(h) => Ok(h
                .slice(idle)
                .expect("a handle's element type is the one it was bound with")),
            _ => Err(HandleError::ParentBuffer),
        }
    }

    /// As [`host`](Self::host), writable.
    pub(crate) fn host_mut<T: Copy + 'static>(
        &mut self,
        index: u32,
        idle: &Idle<'_>,
    ) -> Result<&mut [T], HandleError> {
        match &mut self.list[index as usize].access {
            Access::HostMut(h) => Ok(h
                .slice_mut(idle)
                .expect("a handle's element type is the one it was bound with")),
            _ => Err(HandleError::ParentBuffer),
        }
    }

    /// Runs `f` with cudarc's stream-ordering events maintained for every bound device buffer:
    /// `stream` first waits for earlier uses, and each buffer records its use on `stream` after
    /// `f`. Recursion keeps every guard alive across `f` without allocating.
    pub(crate) fn tracked(
        list: &mut [Binding<'a>],
        stream: &CudaStream,
        f: &mut dyn FnMut() -> Tracking,
    ) -> Tracking {
        match list.split_first_mut() {
            None => f(),
            Some((first, rest)) => {
                let mut next = || Self::tracked(rest, stream, f);
                match &mut first.access {
                    Access::Device(s) => s.guard_read(stream, &mut next),
                    Access::DeviceMut(s) => s.guard_write(stream, &mut next),
                    Access::Host(_)
                    | Access::HostMut(_)
                    | Access::Parent(_)
                    | Access::Owned
                    | Access::Part
                    | Access::Peer { .. } => next(),
                }
            }
        }
    }
}
