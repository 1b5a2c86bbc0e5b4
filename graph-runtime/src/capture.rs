//! What captured work sees: the stream to issue it on, and the graph's buffers it declared, as
//! device regions that cudarc's APIs (cuBLAS's `gemm`, copies, kernel launches) accept.
//!
//! A captured node ([`Graph::add_captured`](crate::Graph::add_captured)) declares which bound
//! buffers it reads and writes; [`Capture::read`] and [`Capture::write`] give only those, so
//! the declaration is what the work can touch (and what `cuda_graph!`'s race check sees).

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop};

use crate::bind::{Bindings, BufMut, BufferId, DeviceBuf};
use crate::error::CaptureError;

/// A device region the captured work reads: a bound buffer of the graph.
#[derive(Debug)]
pub struct Region<T> {
    addr: CUdeviceptr,
    len: usize,
    stream: Arc<CudaStream>,
    _t: PhantomData<fn() -> T>,
}

/// A device region the captured work writes.
#[derive(Debug)]
pub struct RegionMut<T>(Region<T>);

impl<T> DeviceSlice<T> for Region<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl<T> DevicePtr<T> for Region<T> {
    /// The address; no event is waited for or recorded: inside a graph, its edges order the
    /// work.
    fn device_ptr<'a>(&'a self, _: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        (self.addr, SyncOnDrop::Sync(None))
    }
}

impl<T> DeviceSlice<T> for RegionMut<T> {
    fn len(&self) -> usize {
        self.0.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.0.stream
    }
}

impl<T> DevicePtr<T> for RegionMut<T> {
    fn device_ptr<'a>(&'a self, s: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        self.0.device_ptr(s)
    }
}

impl<T> DevicePtrMut<T> for RegionMut<T> {
    fn device_ptr_mut<'a>(&'a mut self, _: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        (self.0.addr, SyncOnDrop::Sync(None))
    }
}

/// What the closure of a captured node gets: the stream being captured and its declared
/// buffers.
pub struct Capture<'c, 'a> {
    pub(crate) stream: &'c Arc<CudaStream>,
    pub(crate) bindings: &'c Bindings<'a>,
    pub(crate) reads: &'c [BufferId],
    pub(crate) writes: &'c [BufferId],
    pub(crate) node: &'c str,
}

impl Capture<'_, '_> {
    /// The stream being captured: issue the work on it (a cuBLAS handle must be bound to it).
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }

    /// A buffer the node declared it reads (or writes).
    pub fn read<T>(&self, h: impl DeviceBuf<T>) -> Result<Region<T>, CaptureError> {
        let id = h.id();
        if !self.reads.contains(&id) && !self.writes.contains(&id) {
            return Err(self.undeclared("as read", "reads"));
        }
        self.region(id)
    }

    /// A buffer the node declared it writes.
    pub fn write<T>(&self, h: BufMut<T>) -> Result<RegionMut<T>, CaptureError> {
        let id = h.id();
        if !self.writes.contains(&id) {
            return Err(self.undeclared("as written", "writes"));
        }
        Ok(RegionMut(self.region(id)?))
    }

    /// A declared buffer (read or written) by its id (what collectives capture).
    #[cfg(feature = "nccl")]
    pub(crate) fn region_of<T>(&self, id: BufferId) -> Result<Region<T>, CaptureError> {
        if !self.reads.contains(&id) && !self.writes.contains(&id) {
            return Err(self.undeclared("as read", "reads"));
        }
        self.region(id)
    }

    fn undeclared(&self, as_: &'static str, list: &'static str) -> CaptureError {
        CaptureError::Undeclared {
            node: self.node.to_owned(),
            as_,
            list,
        }
    }

    fn region<T>(&self, id: BufferId) -> Result<Region<T>, CaptureError> {
        let b = self
            .bindings
            .get(id.graph, id.index)
            .map_err(|e| CaptureError::Work {
                node: self.node.to_owned(),
                source: Box::new(e),
            })?;
        Ok(Region {
            addr: b.addr,
            len: b.len,
            stream: self.stream.clone(),
            _t: PhantomData,
        })
    }
}

/// The work of a captured node: issues work on [`Capture::stream`], using the buffers it
/// declared.
pub type CaptureFn<'a> = Box<
    dyn FnMut(&Capture<'_, '_>) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
        + Send
        + Sync
        + 'a,
>;

/// What a captured node's work returns.
pub type WorkResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// The work of a `cuda_graph!` captured node (`capture(work, reads: [..], writes: [..])`): the
/// stream to capture, and a closure issuing the work on it, given the regions of the buffers
/// the node reads (`R`, a tuple of [`Region`]s) and writes (`W`, a tuple of [`RegionMut`]s).
///
/// ```no_run
/// # use cuda_graph_runtime::{capture::{Capture, Region, RegionMut, Work, WorkResult}};
/// # fn demo(stream: &std::sync::Arc<cudarc::driver::CudaStream>) {
/// let copy = |cx: &Capture<'_, '_>, (x,): (Region<f32>,), (mut y,): (RegionMut<f32>,)| -> WorkResult {
///     cx.stream().memcpy_dtod(&x, &mut y)?;
///     Ok(())
/// };
/// let work = Work::new(stream, &copy);
/// # let _ = work; }
/// ```
pub struct Work<'a, R, W> {
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) f: &'a (dyn Fn(&Capture<'_, '_>, R, W) -> WorkResult + Send + Sync + 'a),
}

impl<'a, R, W> Work<'a, R, W> {
    /// Work issued on `stream` (not the legacy default stream: make it with
    /// `ctx.new_stream()`) by `f`.
    pub fn new(
        stream: &Arc<CudaStream>,
        f: &'a (dyn Fn(&Capture<'_, '_>, R, W) -> WorkResult + Send + Sync + 'a),
    ) -> Self {
        Work {
            stream: stream.clone(),
            f,
        }
    }
}
