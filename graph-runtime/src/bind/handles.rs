//! The typed handles nodes name bound buffers by: device buffers ([`Buf`], [`BufMut`]), host
//! slices ([`HostBuf`], [`HostBufMut`]) and buffers of another device ([`PeerBuf`],
//! [`PeerBufMut`]), each a graph's identity and a position in its bindings, `Copy`.

use std::marker::PhantomData;

use crate::id::GraphId;

/// A handle to a device buffer bound read-only ([`Graph::bind`](crate::Graph::bind)).
///
/// ```no_run
/// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, x: &'a cudarc::driver::CudaSlice<f32>)
/// #   -> cuda_graph_runtime::Result<()> {
/// let xb: cuda_graph_runtime::buffer::Buf<f32> = g.bind(x)?;   // `Copy`: name it in as many nodes as needed
/// # let _ = xb; Ok(()) }
/// ```
pub struct Buf<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a device buffer bound writable ([`Graph::bind_mut`](crate::Graph::bind_mut)).
///
/// Usable wherever a [`Buf`] is ([`BufMut::read`] converts).
///
/// ```no_run
/// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, y: &'a mut cudarc::driver::CudaSlice<f32>)
/// #   -> cuda_graph_runtime::Result<()> {
/// let yb = g.bind_mut(y)?;
/// let clear = g.add_memset("clear", &[], yb, 0.0f32)?;      // writes it
/// let as_input: cuda_graph_runtime::buffer::Buf<f32> = yb.read();  // or reads it
/// # let _ = (clear, as_input); Ok(()) }
/// ```
pub struct BufMut<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a host slice bound read-only ([`Graph::bind_host`](crate::Graph::bind_host)),
/// usable as a memcpy source.
///
/// ```no_run
/// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, d: cuda_graph_runtime::buffer::BufMut<u32>,
/// #             input: &'a [u32]) -> cuda_graph_runtime::Result<()> {
/// let src = g.bind_host(input);
/// let upload = g.add_memcpy("upload", &[], d, src)?;   // host to device, every launch
/// # let _ = upload; Ok(()) }
/// ```
pub struct HostBuf<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a host slice bound writable
/// ([`Graph::bind_host_mut`](crate::Graph::bind_host_mut)), usable as a memcpy destination.
///
/// ```no_run
/// # fn demo(stream: &std::sync::Arc<cudarc::driver::CudaStream>,
/// #         src: &cudarc::driver::CudaSlice<u32>) -> cuda_graph_runtime::Result<()> {
/// let mut out = vec![0u32; 1024];
/// let mut g = cuda_graph_runtime::Graph::new(stream.context())?;
/// let d = g.bind(src)?;
/// let ob = g.bind_host_mut(&mut out);
/// g.add_memcpy("download", &[], ob, d)?;
/// let mut exec = g.instantiate()?;
/// exec.launch(stream)?;
/// let copied: &[u32] = exec.host(ob)?;   // waits for the launch first
/// # let _ = copied; Ok(()) }
/// ```
pub struct HostBufMut<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a buffer of *another device* than the graph's, bound read-only
/// ([`Graph::bind_peer`](crate::Graph::bind_peer)): only a memcpy node may read it (a peer
/// copy, over NVLink or PCIe with peer access enabled). Kernels, memsets and collectives run on
/// the graph's device and take [`Buf`] and [`BufMut`], never this.
///
/// ```no_run
/// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, local: cuda_graph_runtime::buffer::BufMut<f32>,
/// #             theirs: &'a cudarc::driver::CudaSlice<f32>) -> cuda_graph_runtime::Result<()> {
/// let peer = g.bind_peer(theirs)?;                  // a buffer of another GPU
/// let pull = g.add_memcpy("pull", &[], local, peer)?; // peer access checked and enabled
/// # let _ = pull; Ok(()) }
/// ```
pub struct PeerBuf<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

/// A handle to a buffer of another device than the graph's, bound writable
/// ([`Graph::bind_peer_mut`](crate::Graph::bind_peer_mut)): a memcpy node may write it (a peer
/// copy) or read it ([`PeerBufMut::read`]).
pub struct PeerBufMut<T> {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
    _t: PhantomData<fn() -> T>,
}

impl<T> PeerBufMut<T> {
    /// The same buffer, as a read-only handle.
    pub fn read(self) -> PeerBuf<T> {
        PeerBuf::new(self.graph, self.index)
    }
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
        impl<T> From<$h<T>> for BufferId {
            fn from(h: $h<T>) -> Self {
                BufferId { graph: h.graph, index: h.index }
            }
        }
        impl<T> $h<T> {
            pub(crate) fn new(graph: GraphId, index: u32) -> Self {
                Self { graph, index, _t: PhantomData }
            }
            /// A handle of no graph, which every graph refuses (what `cuda_graph!` holds for a
            /// temporary until `build` allocates it).
            #[doc(hidden)]
            pub fn unset() -> Self {
                Self::new(GraphId::none(), 0)
            }
        }
    )*};
}
handle_impls!(Buf, BufMut, HostBuf, HostBufMut, PeerBuf, PeerBufMut);

/// Which binding a handle ([`Buf`], [`BufMut`], [`HostBuf`], ...) names, whatever its element
/// type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferId {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
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

    /// The same buffer as untyped memory, for a kernel parameter declared `void*`.
    pub fn untyped(self) -> BufMut<Void> {
        BufMut::new(self.graph, self.index)
    }
}

impl<T> Buf<T> {
    /// The same buffer as untyped memory, for a kernel parameter declared `const void*`.
    pub fn untyped(self) -> Buf<Void> {
        Buf::new(self.graph, self.index)
    }
}

/// The element type of untyped device memory: a kernel parameter declared `void*` takes a
/// [`BufMut<Void>`], `const void*` a [`Buf<Void>`]; any buffer converts with `untyped()`.
/// (`cuda_graph!` converts a buffer passed to such a parameter itself.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Void {}

impl<T> HostBufMut<T> {
    /// The same slice, as a read-only handle.
    pub fn read(self) -> HostBuf<T> {
        HostBuf::new(self.graph, self.index)
    }
}
