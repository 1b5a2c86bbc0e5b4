//! The executable graph: launch, live edits, whole-graph update.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{
    CUgraphExecUpdateResult, CUgraphInstantiateResult, CUgraphInstantiate_flags,
};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaViewMut, DeviceRepr};

use crate::bind::{Binding, Bindings, Buf, BufMut, BufferId, DeviceBuf, HostBufMut};
use crate::driver::{self, CUgraphExec};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::handles::NodeHandle;
use crate::host::HostSlot;
use crate::shadow::{Shadow, Target};

/// A binding taken out of a graph by [`GraphExec::swap_buffer`] or
/// [`GraphExec::swap_buffer_mut`].
pub struct BufferSlot<'a>(Binding<'a>);

/// Options for [`Graph::instantiate_with`].
///
/// ```no_run
/// # fn demo(g: cuda_graph_runtime::Graph<'_>, stream: &std::sync::Arc<cudarc::driver::CudaStream>)
/// #   -> cuda_graph_runtime::Result<()> {
/// use cuda_graph_runtime::Instantiate;
/// let exec = g.instantiate_with(Instantiate::new().upload(stream).use_node_priority())?;
/// # drop(exec); Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct Instantiate<'s> {
    upload: Option<&'s Arc<CudaStream>>,
    auto_free_on_launch: bool,
    use_node_priority: bool,
}

impl<'s> Instantiate<'s> {
    /// Default options: no upload, no flags.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uploads the executable graph to the device on `stream` as part of instantiation, so the
    /// first launch does not pay for it.
    pub fn upload(mut self, stream: &'s Arc<CudaStream>) -> Self {
        self.upload = Some(stream);
        self
    }

    /// Frees graph-owned allocations not freed by the graph itself before each launch.
    pub fn auto_free_on_launch(mut self) -> Self {
        self.auto_free_on_launch = true;
        self
    }

    /// Launches kernel nodes with their priority attribute rather than the stream's.
    pub fn use_node_priority(mut self) -> Self {
        self.use_node_priority = true;
        self
    }

    fn flags(&self) -> u64 {
        let mut f = 0u64;
        if self.upload.is_some() {
            f |= CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD.0 as u64;
        }
        if self.auto_free_on_launch {
            f |= CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.0 as u64;
        }
        if self.use_node_priority {
            f |= CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY.0 as u64;
        }
        f
    }
}

/// Which path a whole-graph update took.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpdatePath {
    /// `cuGraphExecUpdate_v2` updated the executable graph in place.
    InPlace,
    /// The driver refused the in-place update and the graph was instantiated anew.
    Reinstantiated {
        /// Why the driver refused.
        reason: UpdateRefusal,
        /// The node the driver blamed, if it named one.
        node: Option<String>,
    },
}

/// Why the driver refused an in-place update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpdateRefusal {
    /// Nodes or edges were added or removed.
    TopologyChanged,
    /// A node changed kind.
    NodeTypeChanged,
    /// A kernel node's function changed.
    FunctionChanged,
    /// Parameters changed in a way an update cannot apply.
    ParametersChanged,
    /// Something about a node cannot be updated.
    NotSupported,
    /// Another reason the driver gave.
    Other,
}

impl UpdateRefusal {
    fn from_driver(r: CUgraphExecUpdateResult) -> Self {
        use CUgraphExecUpdateResult::*;
        match r {
            CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED => Self::TopologyChanged,
            CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED => Self::NodeTypeChanged,
            CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED
            | CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE => Self::FunctionChanged,
            CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED => Self::ParametersChanged,
            CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED => Self::NotSupported,
            _ => Self::Other,
        }
    }
}

/// The driver's executable graph and the state that must outlive its launches. Dropped before
/// the template (field order of [`GraphExec`]): it waits for in-flight launches, so host
/// closures and buffers the template borrows are never freed under a running graph.
struct Core<'a> {
    raw: CUgraphExec,
    /// The template's topology version this executable graph was made from.
    version: u64,
    /// The executable graph's shadow copies, one per node it was made with.
    shadow: Vec<Shadow<'a>>,
    flags: u64,
    /// Streams launched on since the last synchronize.
    streams: Vec<Arc<CudaStream>>,
    /// Host closures replaced while a launch could still call them.
    retired: Vec<Arc<HostSlot<'a>>>,
}

// SAFETY: the raw handles (executable graph, and the functions, events and graphs in the
// shadows) are identifiers the driver lets any thread use; every driver call on them goes
// through `&mut GraphExec`. `GraphExec` itself stays `!Sync` through its `PhantomData<Cell>`.
unsafe impl Send for Core<'_> {}
// SAFETY: as above; `&Core` is only read.
unsafe impl Sync for Core<'_> {}

impl Core<'_> {
    fn wait(&mut self) -> Result<()> {
        let mut first = Ok(());
        for s in self.streams.drain(..) {
            if let Err(source) = s.synchronize() {
                if first.is_ok() {
                    first = Err(Error::Driver {
                        call: "cuStreamSynchronize",
                        node: None,
                        source,
                    });
                }
            }
        }
        self.retired.clear();
        first
    }
}

impl Drop for Core<'_> {
    fn drop(&mut self) {
        let ctx = self.streams.first().map(|s| s.context().clone());
        let waited = self.wait();
        // SAFETY: the executable graph is live and dropped once.
        let destroyed = unsafe { driver::exec_destroy(self.raw) };
        if let Some(ctx) = ctx {
            if let Err(Error::Driver { source, .. }) = waited {
                ctx.record_err::<()>(Err(source));
            }
            ctx.record_err(destroyed.map_err(|e| e.code));
        }
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
pub struct GraphExec<'a> {
    core: Core<'a>,
    graph: Graph<'a>,
    _not_sync: PhantomData<Cell<()>>,
}

impl<'a> GraphExec<'a> {
    pub(crate) fn new(mut graph: Graph<'a>, opts: Instantiate<'_>) -> Result<Self> {
        if let Some(s) = opts.upload {
            if s.context().cu_ctx() != graph.ctx.cu_ctx() {
                return Err(Error::ContextMismatch {
                    what: "the upload stream",
                });
            }
        }
        graph.flush()?;
        let flags = opts.flags();
        let upload = opts.upload.map_or(ptr::null_mut(), |s| s.cu_stream());
        let raw = instantiate(&graph, flags, upload)?;
        let shadow = graph
            .nodes
            .iter_mut()
            .map(|n| {
                n.stale = false;
                n.shadow.clone()
            })
            .collect();
        let mut exec = GraphExec {
            core: Core {
                raw,
                version: graph.version,
                shadow,
                flags,
                streams: Vec::new(),
                retired: Vec::new(),
            },
            graph,
            _not_sync: PhantomData,
        };
        if let Some(s) = opts.upload {
            exec.core.streams.push(s.clone());
        }
        exec.reapply()?;
        Ok(exec)
    }

    /// The template this executable graph was made from.
    pub fn graph(&self) -> &Graph<'a> {
        &self.graph
    }

    /// The template, to edit before [`update`](Self::update): add nodes and edges, or change
    /// parameters on the template side. Nothing here reaches the executable graph until then.
    pub fn graph_mut(&mut self) -> &mut Graph<'a> {
        &mut self.graph
    }

    /// Waits for every launch, then gives the template back.
    pub fn into_graph(self) -> Graph<'a> {
        let GraphExec { core, graph, .. } = self;
        drop(core);
        graph
    }

    /// Number of nodes in the executable graph.
    pub fn len(&self) -> usize {
        self.core.shadow.len()
    }

    /// Whether the executable graph has no node.
    pub fn is_empty(&self) -> bool {
        self.core.shadow.is_empty()
    }

    #[inline]
    fn check_stream(&self, stream: &Arc<CudaStream>) -> Result<()> {
        if stream.context().cu_ctx() != self.graph.ctx.cu_ctx() {
            return Err(Error::ContextMismatch { what: "the stream" });
        }
        Ok(())
    }

    #[inline]
    fn remember(&mut self, stream: &Arc<CudaStream>) {
        let known = self
            .core
            .streams
            .iter()
            .rev()
            .any(|s| Arc::ptr_eq(s, stream));
        if !known {
            self.core.streams.push(stream.clone());
        }
    }

    /// Launches the graph on `stream`.
    ///
    /// Returns [`Error::HostCallbackPanicked`] instead of launching if a host callback panicked
    /// during an earlier launch; the next launch goes ahead. When cudarc tracks stream order
    /// (several streams exist), `stream` first waits for earlier uses of every bound buffer, and
    /// each buffer records this launch, so cudarc reads on any stream see the graph's writes.
    #[inline]
    pub fn launch(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        if let Some(e) = self.graph.take_panic() {
            return Err(e);
        }
        self.check_stream(stream)?;
        self.remember(stream);
        let (exec, s) = (self.core.raw, stream.cu_stream());
        let Graph {
            ctx,
            bindings,
            children,
            ..
        } = &mut self.graph;
        let ctx = &*ctx;
        let cu_ctx = ctx.cu_ctx();
        let mut go = || {
            // SAFETY: the executable graph is live, the stream belongs to its context, and all
            // it references is borrowed for `'a`.
            driver::in_context(cu_ctx, || unsafe { driver::launch(exec, s) }).map_err(Error::from)
        };
        if ctx.is_managing_stream_synchronization() {
            Graph::tracked(bindings, children, stream, &mut go)
        } else {
            go()
        }
    }

    /// Uploads the executable graph to the device on `stream` ahead of its first launch.
    pub fn upload(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        self.check_stream(stream)?;
        self.remember(stream);
        let (exec, s) = (self.core.raw, stream.cu_stream());
        // SAFETY: as in `launch`.
        Ok(driver::in_context(self.graph.ctx.cu_ctx(), || unsafe {
            driver::upload(exec, s)
        })?)
    }

    /// Waits for every launch so far, then reports a host-callback panic if one happened.
    pub fn synchronize(&mut self) -> Result<()> {
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
    /// #         step: cuda_graph_runtime::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// let mut k = exec.node(step)?;
    /// k.set_arg::<0>(0.5)?;
    /// k.set_grid((64, 1, 1))?;
    /// k.disable()?;
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn node<H: NodeHandle>(&mut self, h: H) -> Result<H::OnExec<'_, 'a>> {
        let id = h.node_id();
        let i = id.index as usize;
        if id.graph != self.graph.id || i >= self.core.shadow.len() {
            return Err(self.node_error(id));
        }
        let GraphExec { core, graph, .. } = self;
        let shadow = &mut core.shadow[i];
        Ok(H::on_exec(
            graph.access(i, Some((core.raw, shadow, &mut core.retired))),
        ))
    }

    /// Why `node` refused `id` (kept out of line: views are opened on the hot path).
    #[cold]
    #[inline(never)]
    fn node_error(&self, id: crate::handles::NodeId) -> Error {
        if id.graph != self.graph.id {
            Error::ForeignHandle { what: "node" }
        } else {
            Error::NotInstantiated {
                node: self.graph.topo.name(id.index).to_owned(),
            }
        }
    }

    /// Brings the executable graph in line with its template ([`graph_mut`](Self::graph_mut)),
    /// cheapest way first: `cuGraphExecUpdate_v2` in place, or, if the driver refuses (the
    /// topology changed, say), a new instantiation. Says which path it took.
    ///
    /// Edits made through [`node`](Self::node) are kept: they were written into the template
    /// too. If the update fails, the executable graph is left as it was and still launches.
    pub fn update(&mut self) -> Result<UpdatePath> {
        driver::make_current(self.graph.ctx.cu_ctx())?;
        self.graph.flush()?;
        let refused = if self.core.version != self.graph.version {
            // Nodes or edges changed: the driver would refuse; go straight to instantiation.
            Some((UpdateRefusal::TopologyChanged, None))
        } else {
            // SAFETY: both graphs are live.
            match unsafe { driver::exec_update(self.core.raw, self.graph.raw.0) } {
                Ok(()) => None,
                Err(f) => Some((
                    UpdateRefusal::from_driver(f.result),
                    self.graph.node_name(f.node),
                )),
            }
        };
        let Some((reason, node)) = refused else {
            self.adopt_template();
            self.reapply()?;
            return Ok(UpdatePath::InPlace);
        };
        match instantiate(&self.graph, self.core.flags, ptr::null_mut()) {
            Ok(raw) => {
                let old = std::mem::replace(&mut self.core.raw, raw);
                // SAFETY: the old executable graph is not used again; the driver frees it once
                // its in-flight launches complete.
                let destroyed = unsafe { driver::exec_destroy(old) };
                self.graph.ctx.record_err(destroyed.map_err(|e| e.code));
                self.core.version = self.graph.version;
                self.adopt_template();
                self.reapply()?;
                Ok(UpdatePath::Reinstantiated { reason, node })
            }
            Err(e) => {
                // The refused update may have changed some nodes: put back what the shadow says.
                self.restore()?;
                Err(e)
            }
        }
    }

    /// After an update: the executable graph now holds the template's parameters.
    fn adopt_template(&mut self) {
        let core = &mut self.core;
        let template = &mut self.graph.nodes;
        core.shadow.truncate(template.len());
        let kept = core.shadow.len();
        // Edits through this executable graph were written into the template too, so only
        // nodes edited on the template side differ.
        for (mine, theirs) in core.shadow.iter_mut().zip(template.iter_mut()) {
            if !std::mem::take(&mut theirs.stale) {
                continue;
            }
            match (&mut *mine, &theirs.shadow) {
                // Copy into the existing argument blocks: no allocation per node.
                (Shadow::Kernel(a), Shadow::Kernel(b)) => a.clone_from(b),
                (mine, theirs) => {
                    let old = std::mem::replace(mine, theirs.clone());
                    if let Shadow::Host(h) = old {
                        // A running launch may still call the old closure.
                        core.retired.push(h.slot);
                    }
                }
            }
        }
        for n in &mut template[kept..] {
            n.stale = false;
            core.shadow.push(n.shadow.clone());
        }
    }

    /// What an update or instantiation does not carry over: disabled nodes, and child graphs
    /// swapped on the executable graph.
    fn reapply(&mut self) -> Result<()> {
        let e = self.core.raw;
        for (i, s) in self.core.shadow.iter().enumerate() {
            let raw = self.graph.nodes[i].raw;
            let name = || Some(self.graph.topo.name(i as u32));
            if !s.enabled() {
                // SAFETY: a kernel, memset or memcpy node of the graph `e` was made from.
                unsafe { driver::node_set_enabled(e, raw, false) }
                    .map_err(|err| Error::call(err, name()))?;
            }
            if let Shadow::Child(c) = s {
                if c.child != c.embedded {
                    // SAFETY: `c.raw` is a live child graph borrowed for `'a`.
                    unsafe { driver::exec_child_set(e, raw, c.raw) }
                        .map_err(|err| Error::call(err, name()))?;
                }
            }
        }
        Ok(())
    }

    /// Sends every node's shadow to the executable graph again.
    fn restore(&mut self) -> Result<()> {
        let (e, ctx) = (self.core.raw, self.graph.ctx.cu_ctx());
        for (i, s) in self.core.shadow.iter().enumerate() {
            let raw = self.graph.nodes[i].raw;
            s.apply(Target::Exec(e), raw, ctx)
                .map_err(|err| Error::call(err, Some(self.graph.topo.name(i as u32))))?;
        }
        self.reapply()
    }

    /// Binds another buffer in the place of `h`, returning the old binding (to give back to
    /// [`restore_buffer`](Self::restore_buffer) if re-pointing the nodes fails). Nodes that
    /// use `h` keep the old address until they are set again (`set_arg`, `set_dst`, ...), which
    /// checks the new buffer's length; the old buffer stays borrowed until the graph is dropped.
    pub fn swap_buffer_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        h: BufMut<T>,
        new: &'a mut CudaSlice<T>,
    ) -> Result<BufferSlot<'a>> {
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
    ) -> Result<BufferSlot<'a>> {
        self.check_ctx(new.context())?;
        let b = Bindings::device_binding(new);
        Ok(BufferSlot(
            self.graph.bindings.replace(h.graph, h.index, b)?,
        ))
    }

    /// Puts back a binding taken out by [`swap_buffer`](Self::swap_buffer) or
    /// [`swap_buffer_mut`](Self::swap_buffer_mut) for the handle `h` (a [`Buf`] or [`BufMut`]).
    pub fn restore_buffer(&mut self, h: impl Into<BufferId>, slot: BufferSlot<'a>) -> Result<()> {
        let id = h.into();
        self.graph
            .bindings
            .replace(id.graph, id.index, slot.0)
            .map(drop)
    }

    fn check_ctx(&self, ctx: &Arc<CudaContext>) -> Result<()> {
        if ctx.cu_ctx() == self.graph.ctx.cu_ctx() {
            Ok(())
        } else {
            Err(Error::ContextMismatch { what: "the buffer" })
        }
    }

    /// A bound device buffer ([`Buf`] or [`BufMut`]), for cudarc calls between launches (reads
    /// and copies are ordered after the graph's writes by the stream, or by cudarc's events).
    pub fn buffer<T: 'static>(&self, h: impl DeviceBuf<T>) -> Result<&CudaSlice<T>> {
        let id = h.id();
        self.graph.bindings.get(id.graph, id.index)?;
        self.graph.bindings.device(id.index)
    }

    /// A buffer bound with [`Graph::bind_mut`], writable, e.g. to upload new input between
    /// launches with cudarc. It is a view, not the `CudaSlice` itself, so the allocation the
    /// graph points at cannot be replaced.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>, x: cuda_graph_runtime::BufMut<f32>,
    /// #         stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> cuda_graph_runtime::Result<()> {
    /// let input = vec![1.0f32; 1024];
    /// stream.memcpy_htod(&input, &mut exec.buffer_mut(x)?).unwrap();
    /// exec.launch(stream)?;
    /// # Ok(()) }
    /// ```
    pub fn buffer_mut<T: 'static>(&mut self, h: BufMut<T>) -> Result<CudaViewMut<'_, T>> {
        self.graph.bindings.get(h.graph, h.index)?;
        Ok(self.graph.bindings.device_mut(h.index)?.as_view_mut())
    }

    fn check_host<T>(&self, h: HostBufMut<T>) -> Result<()> {
        let b = self.graph.bindings.get(h.graph, h.index)?;
        if !b.is_host_mut() {
            return Err(Error::Invalid(
                "this host slice was bound to the parent graph; reach it through the parent's executable graph"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// A host slice bound with [`Graph::bind_host_mut`]. Waits for every launch first (the
    /// device may be writing it).
    pub fn host<T: Copy + 'static>(&mut self, h: HostBufMut<T>) -> Result<&[T]> {
        self.check_host(h)?;
        self.core.wait()?;
        // SAFETY: a `HostBufMut<T>` of this graph names a `&'a mut [T]` binding, and no launch
        // is in flight (waited above; launching needs `&mut self`, which this borrow holds).
        Ok(unsafe { self.graph.bindings.host(h.index) })
    }

    /// A host slice bound with [`Graph::bind_host_mut`], writable. Waits for every launch first.
    pub fn host_mut<T: Copy + 'static>(&mut self, h: HostBufMut<T>) -> Result<&mut [T]> {
        self.check_host(h)?;
        self.core.wait()?;
        // SAFETY: as in `host`.
        Ok(unsafe { self.graph.bindings.host_mut(h.index) })
    }
}

fn instantiate(graph: &Graph<'_>, flags: u64, upload: driver::CUstream) -> Result<CUgraphExec> {
    driver::make_current(graph.ctx.cu_ctx())?;
    // SAFETY: the graph is live and references only resources borrowed for its lifetime.
    unsafe { driver::instantiate(graph.raw.0, flags, upload) }.map_err(|f| {
        let node = graph.node_name(f.node);
        use CUgraphInstantiateResult::*;
        let reason = match f.result {
            CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE => "the graph structure is invalid",
            CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED => {
                "a node's operation is not supported"
            }
            CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED => {
                "nodes from several contexts are not supported"
            }
            _ => "the driver gave no further reason",
        };
        Error::Instantiate {
            node,
            reason,
            source: f.error.code,
        }
    })
}
