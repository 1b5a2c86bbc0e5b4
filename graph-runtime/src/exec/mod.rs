//! The executable graph ([`GraphExec`]): launch, live edits through typed setter views, access
//! to bound buffers; instantiation options ([`Instantiate`], width capping's defaults) and the
//! update ladder (whole-graph update, re-instantiation: [`UpdatePath`]).
//!
//! ```no_run
//! # fn demo(g: cuda_graph_runtime::Graph<'_>) -> cuda_graph_runtime::Result<()> {
//! use cuda_graph_runtime::exec::{Instantiate, UpdatePath};
//! let mut exec = g.instantiate_with(Instantiate::new().width_cap(16))?;
//! let path: UpdatePath = exec.update()?;
//! # let _ = path; Ok(()) }
//! ```

mod limit;
#[cfg(feature = "nccl")]
mod ranks;
mod update;

pub use crate::graph::limit::{LoopCount, WhileLimit};

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaViewMut, DeviceRepr};

use crate::bind::{Binding, Bindings, Buf, BufMut, BufferId, DeviceBuf, HostBufMut};
use crate::driver::{Idle, RawExec};
use crate::error::{
    AccessError, DriverFailure, EditError, HandleError, InstantiateError, LaunchError,
};
use crate::graph::Graph;
use crate::id::NodeId;
use crate::kinds::{NodeHandle, Pending, Stores};

pub use crate::graph::{DEFAULT_CAP_ABOVE, DEFAULT_LANES};
#[cfg(feature = "nccl")]
pub use ranks::Ranks;
pub use update::{Instantiate, UpdatePath};

/// A binding taken out of a graph by [`GraphExec::swap_buffer`] or
/// [`GraphExec::swap_buffer_mut`].
///
/// ```no_run
/// # fn demo<'a>(exec: &mut cuda_graph_runtime::GraphExec<'a>, yb: cuda_graph_runtime::buffer::BufMut<f32>,
/// #             fill: cuda_graph_runtime::node::MemsetNode<f32>,
/// #             other: &'a mut cudarc::driver::CudaSlice<f32>) -> cuda_graph_runtime::Result<()> {
/// let old = exec.swap_buffer_mut(yb, other)?;
/// if let Err(e) = exec.node(fill)?.set_dst(yb) {
///     exec.restore_buffer(yb, old)?;   // the node still points at the old buffer
///     return Err(e.into());
/// }
/// # Ok(()) }
/// ```
pub struct BufferSlot<'a>(Binding<'a>);

/// The driver's executable graph and its shadow copies. Dropped before the template (field
/// order of [`GraphExec`]): dropping the driver's graph waits for its launches, so the host
/// closures and buffers the template borrows are never freed under a running graph.
struct Core<'a> {
    raw: RawExec<'a>,
    /// The template's topology version this executable graph was made from.
    version: u64,
    /// Nodes the executable graph was made with (the template may have more since).
    len: usize,
    /// The executable graph's shadow copies.
    stores: Stores<'a>,
    /// What it owes the template (kernel edits not handed over yet) and the next update (nodes
    /// to send again).
    pending: Pending,
    flags: u64,
    /// The width cap it was made with (lanes, and the width above which it applies), for
    /// re-instantiations.
    cap: Option<(usize, usize)>,
}

/// The copies of the kernel shadows go, emptied, to the thread's next instantiation (the
/// driver copied every argument it was given, so nothing of them is in use).
impl Drop for Core<'_> {
    fn drop(&mut self) {
        crate::graph::keep_copy(std::mem::take(&mut self.stores.kernel));
    }
}

impl Core<'_> {
    /// Waits for every launch (see `RawExec::wait`).
    fn wait(&mut self) -> Result<Idle<'_>, DriverFailure> {
        self.raw.wait().map_err(|source| DriverFailure {
            call: "cuStreamSynchronize",
            node: None,
            source,
        })
    }
}

/// An executable graph: launch it, edit its nodes in place, update it from its template.
///
/// It owns its template ([`graph`](Self::graph), [`graph_mut`](Self::graph_mut)) and borrows
/// everything the template borrows, for `'a`. It is `Send` but not `Sync`: launches and edits
/// need `&mut self`.
///
/// Dropping it waits for the launches still running, so nothing it borrows is released under
/// a running graph.
///
/// ```no_run
/// # fn demo(g: cuda_graph_runtime::Graph<'_>, stream: &std::sync::Arc<cudarc::driver::CudaStream>)
/// #   -> cuda_graph_runtime::Result<()> {
/// let mut exec = g.instantiate()?;
/// exec.launch(stream)?;
/// exec.synchronize()?;
/// # Ok(()) }
/// ```
pub struct GraphExec<'a> {
    core: Core<'a>,
    graph: Graph<'a>,
    _not_sync: PhantomData<Cell<()>>,
}

impl<'a> Graph<'a> {
    /// Makes the executable graph.
    pub fn instantiate(self) -> Result<GraphExec<'a>, InstantiateError> {
        GraphExec::new(self, Instantiate::new())
    }

    /// Makes the executable graph with options (upload, auto-free-on-launch, node priority).
    pub fn instantiate_with(
        self,
        opts: Instantiate<'_>,
    ) -> Result<GraphExec<'a>, InstantiateError> {
        GraphExec::new(self, opts)
    }
}

impl<'a> GraphExec<'a> {
    /// The template this executable graph was made from.
    pub fn graph(&self) -> &Graph<'a> {
        &self.graph
    }

    /// The template, to edit before [`update`](Self::update): add nodes and edges, or change
    /// parameters on the template side. Nothing here reaches the executable graph until then.
    /// The template holds the edits made through [`node`](Self::node) first.
    pub fn graph_mut(&mut self) -> &mut Graph<'a> {
        self.catch_up();
        &mut self.graph
    }

    /// The template's shadows take the kernel edits the setters made here and noted only
    /// (`KernelShadow::behind`), merged argument by argument with the template's own; those
    /// nodes are marked for sending to the template's driver graph. Costs per node edited.
    #[inline]
    pub(crate) fn catch_up(&mut self) {
        if !self.core.pending.behind.is_empty() {
            self.catch_up_behind();
        }
    }

    /// [`catch_up`](Self::catch_up) when the list is not empty.
    #[inline(never)]
    fn catch_up_behind(&mut self) {
        let (core, graph) = (&mut self.core, &mut self.graph);
        let (mine, theirs) = (&mut core.stores.kernel, &mut graph.stores.kernel);
        for i in core.pending.behind.drain(..) {
            let rec = &mut graph.nodes[i as usize];
            let slot = rec.slot as usize;
            if mine.items[slot].catch_up(&mut theirs.items[slot]) {
                rec.dirty = true;
                rec.mark(&mut graph.marked, i);
            }
        }
    }

    /// Bytes of graph-owned memory (temporaries, allocation nodes) the graph holds, all together.
    pub fn temporary_bytes(&self) -> usize {
        self.graph.temporary_bytes()
    }

    /// Waits for every launch, then gives the template back, holding every edit made here.
    pub fn into_graph(mut self) -> Graph<'a> {
        self.catch_up();
        let GraphExec { core, graph, .. } = self;
        drop(core);
        graph
    }

    /// Number of nodes in the executable graph.
    pub fn len(&self) -> usize {
        self.core.len
    }

    /// Whether the executable graph has no node.
    pub fn is_empty(&self) -> bool {
        self.core.len == 0
    }

    #[inline]
    fn check_stream(&self, stream: &Arc<CudaStream>) -> Result<(), LaunchError> {
        if stream.context().cu_ctx() != self.graph.ctx.cu_ctx() {
            return Err(LaunchError::ContextMismatch { what: "the stream" });
        }
        Ok(())
    }

    /// Launches the graph on `stream`.
    ///
    /// Returns [`LaunchError::HostCallbackPanicked`] instead of launching if a host callback
    /// panicked during an earlier launch; the next launch goes ahead. When cudarc tracks stream
    /// order (several streams exist), `stream` first waits for earlier uses of every bound
    /// buffer, and each buffer records this launch, so cudarc reads on any stream see the
    /// graph's writes.
    #[inline]
    pub fn launch(&mut self, stream: &Arc<CudaStream>) -> Result<(), LaunchError> {
        if let Some(e) = self.graph.take_panic() {
            return Err(e);
        }
        #[cfg(feature = "nccl")]
        if let Some(h) = self
            .graph
            .comms
            .iter()
            .find(|h| !h.alive.load(std::sync::atomic::Ordering::Acquire))
        {
            return Err(LaunchError::CommunicatorAborted { rank: h.rank });
        }
        self.check_stream(stream)?;
        let raw = &mut self.core.raw;
        let Graph {
            ctx,
            bindings,
            children,
            ..
        } = &mut self.graph;
        let mut go = || raw.launch(stream).map_err(LaunchError::from);
        if ctx.is_managing_stream_synchronization() {
            Graph::tracked(bindings, children, stream, &mut go)
        } else {
            go()
        }
    }

    /// Uploads the executable graph to the device on `stream` ahead of its first launch.
    pub fn upload(&mut self, stream: &Arc<CudaStream>) -> Result<(), LaunchError> {
        self.check_stream(stream)?;
        Ok(self.core.raw.upload(stream)?)
    }

    /// Waits for every launch so far, then reports a host-callback panic if one happened.
    pub fn synchronize(&mut self) -> Result<(), LaunchError> {
        self.core.wait()?;
        match self.graph.take_panic() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The setter view of a node of the executable graph.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         step: cuda_graph_runtime::node::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// let mut k = exec.node(step)?;
    /// k.set_arg::<0>(0.5)?;
    /// k.set_grid((64, 1, 1))?;
    /// k.disable()?;
    /// # Ok(()) }
    /// ```
    #[inline(always)]
    pub fn node<H: NodeHandle>(&mut self, h: H) -> Result<H::OnExec<'_, 'a>, EditError> {
        let id = h.node_id();
        if id.graph != self.graph.id || id.index as usize >= self.core.len {
            return Err(self.node_error(id));
        }
        let Core {
            raw,
            stores,
            pending,
            ..
        } = &mut self.core;
        Ok(h.on_exec(self.graph.parts(id.index, Some((raw, stores, pending)))))
    }

    /// Why `node` refused `id` (kept out of line: views are opened on the hot path).
    #[cold]
    #[inline(never)]
    fn node_error(&self, id: NodeId) -> EditError {
        if id.graph != self.graph.id {
            HandleError::Foreign { what: "node" }.into()
        } else {
            EditError::NotInstantiated {
                node: self.graph.topo.name(id.index).to_owned(),
            }
        }
    }

    /// Binds another buffer in the place of `h`, returning the old binding (to give back to
    /// [`restore_buffer`](Self::restore_buffer) if re-pointing the nodes fails). Nodes that
    /// use `h` keep the old address until they are set again (`set_arg`, `set_dst`, ...), which
    /// checks the new buffer's length; the old buffer stays borrowed until the graph is dropped.
    pub fn swap_buffer_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        h: BufMut<T>,
        new: &'a mut CudaSlice<T>,
    ) -> Result<BufferSlot<'a>, EditError> {
        self.check_ctx(new.context())?;
        let b = Bindings::device_binding_mut(new);
        Ok(BufferSlot(
            self.graph.bindings.replace(h.graph, h.index, b)?,
        ))
    }

    /// As [`swap_buffer_mut`](Self::swap_buffer_mut), for a buffer bound read-only.
    pub fn swap_buffer<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        h: Buf<T>,
        new: &'a CudaSlice<T>,
    ) -> Result<BufferSlot<'a>, EditError> {
        self.check_ctx(new.context())?;
        let b = Bindings::device_binding(new);
        Ok(BufferSlot(
            self.graph.bindings.replace(h.graph, h.index, b)?,
        ))
    }

    /// Puts back a binding taken out by [`swap_buffer`](Self::swap_buffer) or
    /// [`swap_buffer_mut`](Self::swap_buffer_mut) for the handle `h` (a [`Buf`] or [`BufMut`]).
    pub fn restore_buffer(
        &mut self,
        h: impl Into<BufferId>,
        slot: BufferSlot<'a>,
    ) -> Result<(), EditError> {
        let id = h.into();
        self.graph
            .bindings
            .replace(id.graph, id.index, slot.0)
            .map(drop)
    }

    /// The driver's handle of the executable graph, for driver calls cuda-graph does not make;
    /// a node view's [`cu_node`](crate::node::KernelMut::cu_node) names its node to them.
    /// It stays valid while this lives: an [`update`](Self::update) that re-instantiates
    /// swaps the driver's executable graph, and with it the handle. cuda-graph does not see
    /// what is done through it: parameters set that way last until cuda-graph sets the node
    /// again (a setter, an update that sends the node, a re-instantiation).
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         step: cuda_graph_runtime::node::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// let node = exec.node(step)?.cu_node();
    /// let mut on = 0u32;
    /// // SAFETY: both handles are live and of one executable graph; `on` is a valid out-pointer.
    /// let r = unsafe {
    ///     cudarc::driver::sys::cuGraphNodeGetEnabled(exec.cu_graph_exec(), node, &mut on)
    /// };
    /// assert_eq!(r, cudarc::driver::sys::CUresult::CUDA_SUCCESS);
    /// # Ok(()) }
    /// ```
    pub fn cu_graph_exec(&self) -> cudarc::driver::sys::CUgraphExec {
        self.core.raw.handle()
    }

    /// The context of the device the graph runs on.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.graph.ctx
    }

    fn check_ctx(&self, ctx: &Arc<CudaContext>) -> Result<(), EditError> {
        if ctx.cu_ctx() == self.graph.ctx.cu_ctx() {
            Ok(())
        } else {
            Err(EditError::ContextMismatch { what: "the buffer" })
        }
    }

    /// The length in elements of the buffer a handle names (as now bound: a rebinding
    /// setter changes it).
    pub fn buffer_len(&self, h: impl Into<BufferId>) -> Result<usize, HandleError> {
        self.graph.buffer_len(h)
    }

    /// A bound device buffer ([`Buf`] or [`BufMut`]), for cudarc calls between launches (reads
    /// and copies are ordered after the graph's writes by the stream, or by cudarc's events).
    pub fn buffer<T: 'static>(&self, h: impl DeviceBuf<T>) -> Result<&CudaSlice<T>, AccessError> {
        let id = h.id();
        self.graph.bindings.get(id.graph, id.index)?;
        Ok(self.graph.bindings.device(id.index)?)
    }

    /// A buffer bound with [`Graph::bind_mut`], writable, e.g. to upload new input between
    /// launches with cudarc. It is a view, not the `CudaSlice` itself, so the allocation the
    /// graph points at cannot be replaced.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>, x: cuda_graph_runtime::buffer::BufMut<f32>,
    /// #         stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> cuda_graph_runtime::Result<()> {
    /// let input = vec![1.0f32; 1024];
    /// stream.memcpy_htod(&input, &mut exec.buffer_mut(x)?)?;
    /// exec.launch(stream)?;
    /// # Ok(()) }
    /// ```
    pub fn buffer_mut<T: 'static>(
        &mut self,
        h: BufMut<T>,
    ) -> Result<CudaViewMut<'_, T>, AccessError> {
        self.graph.bindings.get(h.graph, h.index)?;
        Ok(self.graph.bindings.device_mut(h.index)?.as_view_mut())
    }

    /// A host slice bound with [`Graph::bind_host_mut`]. Waits for every launch first (the
    /// device may be writing it).
    pub fn host<T: Copy + 'static>(&mut self, h: HostBufMut<T>) -> Result<&[T], AccessError> {
        self.graph.bindings.get(h.graph, h.index)?;
        let idle = self.core.wait()?;
        Ok(self.graph.bindings.host(h.index, &idle)?)
    }

    /// A host slice bound with [`Graph::bind_host_mut`], writable. Waits for every launch first.
    pub fn host_mut<T: Copy + 'static>(
        &mut self,
        h: HostBufMut<T>,
    ) -> Result<&mut [T], AccessError> {
        self.graph.bindings.get(h.graph, h.index)?;
        let idle = self.core.wait()?;
        Ok(self.graph.bindings.host_mut(h.index, &idle)?)
    }
}
