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
use std::marker::PhantomData;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr};

use crate::error::{Error, Result};
use crate::graph::GraphId;

/// A handle to a device buffer bound read-only ([`Graph::bind`](crate::Graph::bind)).
pub struct Buf<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a device buffer bound writable ([`Graph::bind_mut`](crate::Graph::bind_mut)).
///
/// Usable wherever a [`Buf`] is ([`BufMut::read`] converts).
pub struct BufMut<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a host slice bound read-only ([`Graph::bind_host`](crate::Graph::bind_host)),
/// usable as a memcpy source.
pub struct HostBuf<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a host slice bound writable
/// ([`Graph::bind_host_mut`](crate::Graph::bind_host_mut)), usable as a memcpy destination.
pub struct HostBufMut<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

macro_rules! handle_impls {
    ($($h:ident),*) => {$(
        impl<T> Clone for $h<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $h<T> {}
        impl<T> std::fmt::Debug for $h<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}#{}", stringify!($h), self.index)
            }
        }
        impl<T> PartialEq for $h<T> {
            fn eq(&self, other: &Self) -> bool {
                self.graph == other.graph && self.index == other.index
            }
        }
        impl<T> Eq for $h<T> {}
        impl<T> $h<T> {
            pub(crate) fn new(graph: GraphId, index: u32) -> Self {
                Self { graph, index, _t: PhantomData }
            }
        }
    )*};
}
handle_impls!(Buf, BufMut, HostBuf, HostBufMut);

/// Which binding a [`Buf`] or [`BufMut`] names, whatever its element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferId {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
}

impl<T> From<Buf<T>> for BufferId {
    fn from(h: Buf<T>) -> Self {
        BufferId {
            graph: h.graph,
            index: h.index,
        }
    }
}

impl<T> From<BufMut<T>> for BufferId {
    fn from(h: BufMut<T>) -> Self {
        BufferId {
            graph: h.graph,
            index: h.index,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A device buffer handle: [`Buf`] or [`BufMut`].
pub trait DeviceBuf<T>: Copy + sealed::Sealed {
    /// Which binding it names.
    fn id(&self) -> BufferId;
}

impl<T> sealed::Sealed for Buf<T> {}
impl<T> sealed::Sealed for BufMut<T> {}
impl<T> DeviceBuf<T> for Buf<T> {
    fn id(&self) -> BufferId {
        (*self).into()
    }
}
impl<T> DeviceBuf<T> for BufMut<T> {
    fn id(&self) -> BufferId {
        (*self).into()
    }
}

impl<T> From<BufMut<T>> for Buf<T> {
    /// A writable buffer, read.
    fn from(h: BufMut<T>) -> Self {
        h.read()
    }
}

impl<T> From<HostBufMut<T>> for HostBuf<T> {
    fn from(h: HostBufMut<T>) -> Self {
        h.read()
    }
}

impl<T> BufMut<T> {
    /// The same buffer, as a read-only handle.
    pub fn read(self) -> Buf<T> {
        Buf::new(self.graph, self.index)
    }
}

impl<T> HostBufMut<T> {
    /// The same slice, as a read-only handle.
    pub fn read(self) -> HostBuf<T> {
        HostBuf::new(self.graph, self.index)
    }
}

/// A device slice whose cudarc stream-ordering events the graph maintains at launch.
pub(crate) trait Tracked: Any + Send + Sync {
    /// Makes `stream` wait for earlier writes, runs `f`, then records a read on `stream`.
    fn guard_read(&self, stream: &CudaStream, f: &mut dyn FnMut() -> Result<()>) -> Result<()>;
    /// Makes `stream` wait for earlier reads and writes, runs `f`, then records a write.
    fn guard_write(&mut self, stream: &CudaStream, f: &mut dyn FnMut() -> Result<()>)
        -> Result<()>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: DeviceRepr + Send + Sync + 'static> Tracked for CudaSlice<T> {
    fn guard_read(&self, stream: &CudaStream, f: &mut dyn FnMut() -> Result<()>) -> Result<()> {
        let (_ptr, _record_on_drop) = self.device_ptr(stream);
        f()
    }
    fn guard_write(
        &mut self,
        stream: &CudaStream,
        f: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
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

pub(crate) enum Access<'a> {
    Device(&'a dyn Tracked),
    DeviceMut(&'a mut dyn Tracked),
    /// A host slice; the pointer came from a `&'a [T]` or `&'a mut [T]` the graph holds.
    Host,
    HostMut,
    /// A buffer of the parent graph, seen by a child graph made with `Graph::child_graph`;
    /// the parent tracks it.
    Parent,
}

/// One bound buffer.
#[doc(hidden)]
pub struct Binding<'a> {
    pub(crate) access: Access<'a>,
    /// Device pointer, or host address, of element 0.
    pub(crate) addr: u64,
    /// Length in elements.
    pub(crate) len: usize,
    /// `PhantomData` for the host borrow, so the graph's lifetime covers it.
    _host: PhantomData<&'a mut [u8]>,
}

impl Binding<'_> {
    pub(crate) fn is_host_mut(&self) -> bool {
        matches!(self.access, Access::HostMut)
    }
}

// SAFETY: device bindings are `Send + Sync` trait objects. Host bindings are a plain address
// from a `&'a [T]` / `&'a mut [T]` with `T: Send + Sync` (required by `bind_host*`), which the
// graph holds exclusively (or shared, for `&'a [T]`) for `'a`; moving that across threads is
// what moving the reference would be.
unsafe impl Send for Binding<'_> {}
// SAFETY: shared access only reads `addr`/`len` or calls `guard_read` on a `Sync` object.
unsafe impl Sync for Binding<'_> {}

fn parent_only() -> Error {
    Error::Invalid(
        "this buffer was bound to the parent graph; reach it through the parent's executable graph"
            .to_owned(),
    )
}

/// The buffers of one graph.
///
/// Handles carry the id of the graph that bound the buffer and its index here. A child graph
/// made with `Graph::child_graph` starts with a copy of its parent's entries (addresses only),
/// which it accepts under the parent's id; what it binds itself it accepts under its own.
#[doc(hidden)]
pub struct Bindings<'a> {
    pub(crate) list: Vec<Binding<'a>>,
    owner: GraphId,
    /// The parent's id and how many leading entries are the parent's.
    parent: Option<(GraphId, usize)>,
}

impl<'a> Bindings<'a> {
    pub fn new(owner: GraphId) -> Self {
        Bindings {
            list: Vec::new(),
            owner,
            parent: None,
        }
    }

    /// The id handles of buffers bound here carry.
    pub fn owner(&self) -> GraphId {
        self.owner
    }

    fn push(&mut self, access: Access<'a>, addr: u64, len: usize) -> u32 {
        self.list.push(Binding {
            access,
            addr,
            len,
            _host: PhantomData,
        });
        (self.list.len() - 1) as u32
    }

    pub fn bind<T: DeviceRepr + Send + Sync + 'static>(&mut self, s: &'a CudaSlice<T>) -> u32 {
        self.list.push(Self::device_binding(s));
        (self.list.len() - 1) as u32
    }

    pub fn bind_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        s: &'a mut CudaSlice<T>,
    ) -> u32 {
        self.list.push(Self::device_binding_mut(s));
        (self.list.len() - 1) as u32
    }

    /// Puts `new` in the place of binding `index` (a binding of this graph, not its parent's,
    /// of the same kind), returning the old one. Nodes keep the old address until re-set.
    pub fn replace(&mut self, graph: GraphId, index: u32, new: Binding<'a>) -> Result<Binding<'a>> {
        let own = graph == self.owner && self.parent.is_none_or(|(_, n)| index as usize >= n);
        let Some(slot) = self.list.get_mut(index as usize).filter(|_| own) else {
            return Err(Error::ForeignHandle { what: "buffer" });
        };
        if std::mem::discriminant(&slot.access) != std::mem::discriminant(&new.access) {
            return Err(Error::Invalid(
                "a buffer bound writable is swapped with `swap_buffer_mut`, one bound read-only with `swap_buffer`"
                    .to_owned(),
            ));
        }
        Ok(std::mem::replace(slot, new))
    }

    pub fn device_binding<T: DeviceRepr + Send + Sync + 'static>(
        s: &'a CudaSlice<T>,
    ) -> Binding<'a> {
        let (addr, _record) = s.device_ptr(s.stream());
        Binding {
            addr,
            len: s.len(),
            access: Access::Device(s),
            _host: PhantomData,
        }
    }

    pub fn device_binding_mut<T: DeviceRepr + Send + Sync + 'static>(
        s: &'a mut CudaSlice<T>,
    ) -> Binding<'a> {
        let len = s.len();
        let stream = s.stream().clone();
        let (addr, record) = s.device_ptr_mut(&stream);
        drop(record);
        Binding {
            addr,
            len,
            access: Access::DeviceMut(s),
            _host: PhantomData,
        }
    }

    pub fn bind_host<T: Copy + Send + Sync>(&mut self, s: &'a [T]) -> u32 {
        self.push(Access::Host, s.as_ptr() as u64, s.len())
    }

    pub fn bind_host_mut<T: Copy + Send + Sync>(&mut self, s: &'a mut [T]) -> u32 {
        self.push(Access::HostMut, s.as_mut_ptr() as u64, s.len())
    }

    pub fn get(&self, graph: GraphId, index: u32) -> Result<&Binding<'a>> {
        let i = index as usize;
        let known = match self.parent {
            Some((parent, n)) if graph == parent => i < n,
            _ => graph == self.owner && self.parent.is_none_or(|(_, n)| i >= n),
        };
        match self.list.get(i) {
            Some(b) if known => Ok(b),
            _ => Err(Error::ForeignHandle { what: "buffer" }),
        }
    }

    /// The bindings of a child graph `child` of this graph: this graph's buffers, addresses
    /// only, accepted under this graph's id.
    pub fn for_child(&self, child: GraphId) -> Bindings<'a> {
        Bindings {
            owner: child,
            parent: Some((self.owner, self.list.len())),
            list: self
                .list
                .iter()
                .map(|b| Binding {
                    access: Access::Parent,
                    addr: b.addr,
                    len: b.len,
                    _host: PhantomData,
                })
                .collect(),
        }
    }

    pub fn device<T: 'static>(&self, index: u32) -> Result<&CudaSlice<T>> {
        let any = match &self.list[index as usize].access {
            Access::Device(s) => s.as_any(),
            Access::DeviceMut(s) => s.as_any(),
            _ => return Err(parent_only()),
        };
        Ok(any
            .downcast_ref()
            .expect("a handle's element type is the one it was bound with"))
    }

    pub fn device_mut<T: 'static>(&mut self, index: u32) -> Result<&mut CudaSlice<T>> {
        let any = match &mut self.list[index as usize].access {
            Access::DeviceMut(s) => s.as_any_mut(),
            _ => return Err(parent_only()),
        };
        Ok(any
            .downcast_mut()
            .expect("a handle's element type is the one it was bound with"))
    }

    /// # Safety
    /// `index` names a host binding made from a `&'a [T]` or `&'a mut [T]` with this `T`, and
    /// no launch that may access it is in flight.
    pub unsafe fn host<T>(&self, index: u32) -> &[T] {
        let b = &self.list[index as usize];
        // SAFETY: the address and length came from a live slice of `T` borrowed for `'a`,
        // which outlives `&self`; the caller rules out concurrent device access.
        unsafe { std::slice::from_raw_parts(b.addr as *const T, b.len) }
    }

    /// # Safety
    /// As [`Bindings::host`], and `index` names a `&'a mut [T]` binding.
    pub unsafe fn host_mut<T>(&mut self, index: u32) -> &mut [T] {
        let b = &self.list[index as usize];
        // SAFETY: as in `host`; the slice was borrowed mutably and `&mut self` makes this the
        // only access.
        unsafe { std::slice::from_raw_parts_mut(b.addr as *mut T, b.len) }
    }

    /// Runs `f` with cudarc's stream-ordering events maintained for every bound device buffer:
    /// `stream` first waits for earlier uses, and each buffer records its use on `stream` after
    /// `f`. Recursion keeps every guard alive across `f` without allocating.
    pub fn tracked(
        list: &mut [Binding<'a>],
        stream: &CudaStream,
        f: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        match list.split_first_mut() {
            None => f(),
            Some((first, rest)) => {
                let mut next = || Self::tracked(rest, stream, f);
                match &mut first.access {
                    Access::Device(s) => s.guard_read(stream, &mut next),
                    Access::DeviceMut(s) => s.guard_write(stream, &mut next),
                    Access::Host | Access::HostMut | Access::Parent => next(),
                }
            }
        }
    }
}
