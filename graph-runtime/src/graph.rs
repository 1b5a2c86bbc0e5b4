//! The template graph, built node by node (no stream capture).

use std::ffi::CString;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::LaunchConfig;
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream, DeviceRepr};

use crate::args::{ArgBlock, ArgLayout, KernelArgs};
use crate::bind::{Bindings, Buf, BufMut, HostBuf, HostBufMut};
use crate::driver::{self, CUgraph, CUgraphNode, CallResult};
use crate::error::{Error, Result};
use crate::exec::{GraphExec, Instantiate};
use crate::handles::{
    ChildNode, Dep, EmptyNode, EventRecordNode, EventWaitNode, HostNode, KernelNode, Location,
    MemcpyDst, MemcpyNode, MemcpySrc, MemsetNode, MemsetValue, NodeHandle, NodeId,
};
use crate::host::{HostSlot, PanicSlot};
use crate::module::{Kernel, KernelRef};
use crate::shadow::{
    ChildShadow, Endpoint, EventShadow, HostShadow, KernelShadow, Limits, MemcpyShadow,
    MemsetShadow, Shadow, Target,
};
use crate::topology::{NodeKind, Topology};
use crate::views::NodeAccess;

/// Identifies one graph, so a handle from another graph is caught instead of naming a wrong
/// node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GraphId(u32);

impl GraphId {
    fn next() -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        GraphId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

pub(crate) struct RawGraph(pub CUgraph);

pub(crate) struct NodeRec<'a> {
    pub raw: CUgraphNode,
    /// The template's shadow copy.
    pub shadow: Shadow<'a>,
    /// The shadow holds edits (made through an executable graph) not yet sent to the template.
    pub dirty: bool,
    /// A template-side view was opened on the node since the executable graph last took the
    /// template's parameters: `GraphExec::update` copies only these.
    pub stale: bool,
}

/// A CUDA graph template, built node by node.
///
/// `'a` is the lifetime of everything the graph borrows: bound buffers, kernel functions, host
/// closures, child graphs and events. The executable graph made from it keeps that lifetime,
/// so none of them can be freed while it may still run.
///
/// ```no_run
/// use cuda_graph_runtime::{compile, context, Graph};
/// use cudarc::driver::LaunchConfig;
///
/// # fn main() -> Result<(), cuda_graph_runtime::Error> {
/// let ctx = context(0)?;
/// let stream = ctx.default_stream();
/// let module = compile(&ctx, r#"extern "C" __global__ void scale(float a, float* y, unsigned n) {
///     unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] *= a; }"#)?;
/// let scale = module.function("scale")?;
/// let mut y = stream.clone_htod(&[1.0f32; 1024]).unwrap();
///
/// let mut g = Graph::new(&ctx)?;
/// let yb = g.bind_mut(&mut y)?;
/// let step = g.add_kernel("scale", &[], &scale, LaunchConfig::for_num_elems(1024), (2.0f32, yb, 1024u32))?;
/// let mut exec = g.instantiate()?;
/// exec.launch(&stream)?;
/// exec.node(step)?.set_arg::<0>(3.0)?;   // a live edit: no re-capture, no re-instantiation
/// exec.launch(&stream)?;
/// let host = stream.clone_dtoh(exec.buffer(yb)?).unwrap();
/// assert_eq!(host[0], 6.0);
/// # Ok(()) }
/// ```
pub struct Graph<'a> {
    pub(crate) id: GraphId,
    pub(crate) raw: RawGraph,
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) limits: Limits,
    pub(crate) name: String,
    pub(crate) topo: Topology,
    pub(crate) nodes: Vec<NodeRec<'a>>,
    pub(crate) bindings: Bindings<'a>,
    pub(crate) children: Vec<Graph<'a>>,
    /// Kernels the graph was given by value (keeping their modules loaded).
    kernels: Vec<Kernel>,
    pub(crate) panics: Arc<PanicSlot>,
    /// Bumped by every change of nodes or edges: an executable graph made at another version
    /// cannot be updated in place.
    pub(crate) version: u64,
    _borrows: PhantomData<&'a ()>,
}

// SAFETY: the raw driver handles (graph, nodes, functions, events) are identifiers that the
// driver lets any thread use; mutation of the driver graph happens only through `&mut self`.
// Everything else in the graph is `Send`.
unsafe impl Send for Graph<'_> {}
// SAFETY: `&Graph` only reads: the topology, shadows, and driver calls that read the graph
// (`cuGraphDebugDotPrint`, and cloning it into a parent).
unsafe impl Sync for Graph<'_> {}

impl<'a> Graph<'a> {
    /// An empty graph on the context's device.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        driver::make_current(ctx.cu_ctx())?;
        let limits = device_limits(ctx.cu_device())?;
        // SAFETY: the context is current (bound above).
        let raw = unsafe { driver::graph_create() }?;
        let id = GraphId::next();
        Ok(Graph {
            id,
            raw: RawGraph(raw),
            ctx: ctx.clone(),
            limits,
            name: "graph".to_owned(),
            topo: Topology::new(),
            nodes: Vec::new(),
            bindings: Bindings::new(id),
            children: Vec::new(),
            kernels: Vec::new(),
            panics: Arc::default(),
            version: 0,
            _borrows: PhantomData,
        })
    }

    /// An empty graph meant to become a child of this one ([`add_child`](Self::add_child),
    /// [`ChildMut::set_graph`](crate::ChildMut::set_graph)). Its nodes take this graph's buffer
    /// handles (those bound so far), so parent and child can work on the same buffers; it can
    /// bind buffers of its own too.
    pub fn child_graph(&self) -> Result<Graph<'a>> {
        let mut child = Graph::new(&self.ctx)?;
        child.bindings = self.bindings.for_child(child.id);
        child.name = format!("{}.child", self.name);
        Ok(child)
    }

    /// Names the graph (used in DOT output).
    pub fn with_name(mut self, name: &str) -> Self {
        name.clone_into(&mut self.name);
        self
    }

    /// The graph's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The context the graph was made in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// This graph's identity.
    pub fn id(&self) -> GraphId {
        self.id
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Node names, kinds and edges.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// The graph as DOT text with the node names given here. Needs no driver call.
    pub fn to_dot(&self) -> String {
        self.topo.to_dot(&self.name)
    }

    /// Writes the driver's own DOT description of the graph (`cuGraphDebugDotPrint`) to `path`;
    /// `verbose` adds every node's parameters.
    pub fn debug_dot_print(&self, path: impl AsRef<Path>, verbose: bool) -> Result<()> {
        let path = path.as_ref().to_string_lossy().into_owned();
        let c = CString::new(path)
            .map_err(|_| Error::Invalid("the DOT path contains a NUL byte".to_owned()))?;
        let flags = if verbose {
            cudarc::driver::sys::CUgraphDebugDot_flags::CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE as u32
        } else {
            0
        };
        // SAFETY: the graph is live.
        Ok(unsafe { driver::debug_dot_print(self.raw.0, &c, flags) }?)
    }

    fn check_ctx(&self, other: &Arc<CudaContext>, what: &'static str) -> Result<()> {
        if other.cu_ctx() == self.ctx.cu_ctx() {
            Ok(())
        } else {
            Err(Error::ContextMismatch { what })
        }
    }

    /// Binds a device buffer that nodes only read.
    pub fn bind<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        buf: &'a CudaSlice<T>,
    ) -> Result<Buf<T>> {
        self.check_ctx(buf.context(), "the buffer")?;
        Ok(Buf::new(self.id, self.bindings.bind(buf)))
    }

    /// Binds a device buffer that some node writes. While the graph (or the executable graph
    /// made from it) lives, reach the buffer through [`GraphExec::buffer`] and
    /// [`GraphExec::buffer_mut`].
    pub fn bind_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        buf: &'a mut CudaSlice<T>,
    ) -> Result<BufMut<T>> {
        self.check_ctx(buf.context(), "the buffer")?;
        Ok(BufMut::new(self.id, self.bindings.bind_mut(buf)))
    }

    /// Binds a host slice that memcpy nodes read.
    pub fn bind_host<T: Copy + Send + Sync>(&mut self, data: &'a [T]) -> HostBuf<T> {
        HostBuf::new(self.id, self.bindings.bind_host(data))
    }

    /// Binds a host slice that memcpy nodes write. Read it back with [`GraphExec::host`].
    pub fn bind_host_mut<T: Copy + Send + Sync>(&mut self, data: &'a mut [T]) -> HostBufMut<T> {
        HostBufMut::new(self.id, self.bindings.bind_host_mut(data))
    }

    fn resolve(&self, deps: &[&dyn Dep]) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(deps.len());
        for d in deps {
            let id = d.node_id();
            if id.graph != self.id {
                return Err(Error::ForeignHandle { what: "node" });
            }
            out.push(id.index);
        }
        let repeated = if out.len() <= 8 {
            (1..out.len()).find_map(|i| out[..i].contains(&out[i]).then_some(out[i]))
        } else {
            let mut seen = std::collections::HashSet::with_capacity(out.len());
            out.iter().copied().find(|&i| !seen.insert(i))
        };
        if let Some(i) = repeated {
            return Err(Error::Invalid(format!(
                "node `{}` is listed twice as a dependency",
                self.topo.name(i)
            )));
        }
        Ok(out)
    }

    /// Checks the name and dependencies, lets `add` create the driver node, then records it.
    fn add_node(
        &mut self,
        name: &str,
        kind: NodeKind,
        deps: &[&dyn Dep],
        shadow: Shadow<'a>,
        add: impl Fn(CUgraph, &[CUgraphNode]) -> CallResult<CUgraphNode>,
    ) -> Result<NodeId> {
        if self.topo.find(name).is_some() {
            return Err(Error::DuplicateNode {
                name: name.to_owned(),
            });
        }
        let deps = self.resolve(deps)?;
        let raw_deps: Vec<CUgraphNode> = deps.iter().map(|&d| self.nodes[d as usize].raw).collect();
        let g = self.raw.0;
        let raw = driver::in_context(self.ctx.cu_ctx(), || add(g, &raw_deps))
            .map_err(|e| Error::call(e, Some(name)))?;
        let index = self.topo.add_node(name, kind)?;
        // A new node has no successors (no cycle possible) and `deps` holds no repeats.
        self.topo.add_edges_into_new(&deps, index);
        self.nodes.push(NodeRec {
            raw,
            shadow,
            dirty: false,
            stale: false,
        });
        self.version += 1;
        Ok(NodeId {
            graph: self.id,
            index,
        })
    }

    /// Adds an empty node (a join point).
    pub fn add_empty(&mut self, name: &str, deps: &[&dyn Dep]) -> Result<EmptyNode> {
        let id = self.add_node(name, NodeKind::Empty, deps, Shadow::Empty, |g, d| {
            // SAFETY: `g` is this live graph and `d` its nodes.
            unsafe { driver::add_empty(g, d) }
        })?;
        Ok(EmptyNode::new(id))
    }

    /// Adds a kernel launch. `args` is a tuple of by-value scalars and buffer handles, checked
    /// against the kernel's parameter list (count and sizes) before the node is made.
    ///
    /// `func` is a `&'a Kernel` (borrowed for the graph's life) or a `Kernel` (the graph keeps
    /// it, and with it its module).
    pub fn add_kernel<A: KernelArgs>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        func: impl Into<KernelRef<'a>>,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<KernelNode<A>> {
        let func = func.into();
        let kernel = func.kernel();
        let f = kernel.cuda_function().cu_function();
        let info = driver::in_context(self.ctx.cu_ctx(), || kernel.info())
            .map_err(|e| Error::call(e, Some(name)))?;
        check_signature(&info.sizes, A::LAYOUT, name)?;
        let (max_threads, max_dynamic_smem) = (info.max_threads, info.max_dynamic_smem);
        let block = ArgBlock::new(&A::OFFSETS);
        let mut k = KernelShadow {
            func: f,
            cfg,
            args: block.clone(),
            scratch: block,
            enabled: true,
            max_threads,
            max_dynamic_smem,
        };
        k.check(&cfg, &self.limits)
            .map_err(|reason| Error::InvalidLaunch {
                node: name.to_owned(),
                reason,
            })?;
        args.write(&self.bindings, &mut k.args)?;
        let p = k.params(&k.cfg, &k.args);
        let id = self.add_node(
            name,
            NodeKind::Kernel,
            deps,
            Shadow::Kernel(Box::new(k)),
            |g, d| {
                // SAFETY: `p` points at the argument block now owned by the shadow (heap storage
                // that did not move); the function is alive for `'a`.
                unsafe { driver::add_kernel(g, d, &p) }
            },
        )?;
        if let KernelRef::Owned(k) = func {
            self.kernels.push(k);
        }
        Ok(KernelNode::new(id))
    }

    /// Adds a memset writing `value` to every element of `dst`.
    pub fn add_memset<T: MemsetValue>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: BufMut<T>,
        value: T,
    ) -> Result<MemsetNode<T>> {
        let b = self.bindings.get(dst.graph, dst.index)?;
        if b.len == 0 {
            return Err(Error::EmptyBuffer {
                node: name.to_owned(),
                role: "destination",
            });
        }
        let m = MemsetShadow {
            dst: b.addr,
            bits: value.bits(),
            elem: T::SIZE,
            len: b.len,
            enabled: true,
        };
        let ctx = self.ctx.cu_ctx();
        let id = self.add_node(name, NodeKind::Memset, deps, Shadow::Memset(m), |g, d| {
            // SAFETY: `dst` is a bound buffer of this context holding `len` elements.
            unsafe { driver::add_memset(g, d, &m.params(), ctx) }
        })?;
        Ok(MemsetNode::new(id))
    }

    /// Adds a 1-D copy of every element of `src` into `dst`, which must be at least as long.
    pub fn add_memcpy<T, D: MemcpyDst<T>, S: MemcpySrc<T>>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: D,
        src: S,
    ) -> Result<MemcpyNode<T, D::Loc, S::Loc>> {
        let (g, i) = src.binding();
        let len = self.bindings.get(g, i)?.len;
        self.add_memcpy_len(name, deps, dst, src, len)
    }

    /// Adds a 1-D copy of the first `len` elements of `src` into `dst`.
    pub fn add_memcpy_len<T, D: MemcpyDst<T>, S: MemcpySrc<T>>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: D,
        src: S,
        len: usize,
    ) -> Result<MemcpyNode<T, D::Loc, S::Loc>> {
        let end = |(g, i): (GraphId, u32), role, host| -> Result<Endpoint> {
            let b = self.bindings.get(g, i)?;
            if b.len == 0 || len == 0 {
                return Err(Error::EmptyBuffer {
                    node: name.to_owned(),
                    role,
                });
            }
            if b.len < len {
                return Err(Error::BufferTooShort {
                    node: name.to_owned(),
                    role,
                    len: b.len,
                    needed: len,
                });
            }
            Ok(Endpoint { host, addr: b.addr })
        };
        let m = MemcpyShadow {
            src: end(src.binding(), "source", <S::Loc as Location>::HOST)?,
            dst: end(dst.binding(), "destination", <D::Loc as Location>::HOST)?,
            bytes: len * std::mem::size_of::<T>(),
            enabled: true,
        };
        if m.bytes == 0 {
            return Err(Error::Invalid(format!(
                "node `{name}`: memcpy of a zero-sized element type"
            )));
        }
        let ctx = self.ctx.cu_ctx();
        let id = self.add_node(name, NodeKind::Memcpy, deps, Shadow::Memcpy(m), |g, d| {
            // SAFETY: both ends are bound buffers holding at least `bytes` bytes.
            unsafe { driver::add_memcpy(g, d, &m.params(), ctx) }
        })?;
        Ok(MemcpyNode::new(id))
    }

    /// Adds a host callback. The closure runs on a driver thread; it must not call CUDA. A
    /// panic inside it is caught and reported by the next launch or synchronize.
    pub fn add_host<F: Fn() + Send + Sync + 'a>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        f: F,
    ) -> Result<HostNode> {
        let slot = Arc::new(HostSlot::new(Box::new(f), name, self.panics.clone()));
        let p = slot.params();
        let id = self.add_node(
            name,
            NodeKind::Host,
            deps,
            Shadow::Host(HostShadow { slot }),
            |g, d| {
                // SAFETY: the slot lives in the shadow's `Arc` for as long as the node may run.
                unsafe { driver::add_host(g, d, &p) }
            },
        )?;
        Ok(HostNode::new(id))
    }

    /// Adds a child graph node running a copy of `child`. This graph takes the child (its
    /// buffers and callbacks are used by the copy). Make it with
    /// [`child_graph`](Self::child_graph) to share this graph's buffers.
    pub fn add_child(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        child: Graph<'a>,
    ) -> Result<ChildNode> {
        self.check_ctx(&child.ctx, "the child graph")?;
        let raw = child.raw.0;
        let index = self.children.len() as u32;
        let shadow = Shadow::Child(ChildShadow {
            child: index,
            embedded: index,
            raw,
        });
        let id = self.add_node(name, NodeKind::Child, deps, shadow, |g, d| {
            // SAFETY: `raw` is the live child graph; the driver clones it.
            unsafe { driver::add_child(g, d, raw) }
        })?;
        self.children.push(child);
        Ok(ChildNode::new(id))
    }

    /// Adds a node recording `event`.
    pub fn add_event_record(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        event: &'a CudaEvent,
    ) -> Result<EventRecordNode> {
        self.check_ctx(event.context(), "the event")?;
        let ev = event.cu_event();
        let shadow = Shadow::EventRecord(EventShadow { event: ev });
        let id = self.add_node(name, NodeKind::EventRecord, deps, shadow, |g, d| {
            // SAFETY: the event is borrowed for `'a`.
            unsafe { driver::add_event_record(g, d, ev) }
        })?;
        Ok(EventRecordNode::new(id))
    }

    /// Adds a node waiting for `event`.
    pub fn add_event_wait(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        event: &'a CudaEvent,
    ) -> Result<EventWaitNode> {
        self.check_ctx(event.context(), "the event")?;
        let ev = event.cu_event();
        let shadow = Shadow::EventWait(EventShadow { event: ev });
        let id = self.add_node(name, NodeKind::EventWait, deps, shadow, |g, d| {
            // SAFETY: the event is borrowed for `'a`.
            unsafe { driver::add_event_wait(g, d, ev) }
        })?;
        Ok(EventWaitNode::new(id))
    }

    fn index_of(&self, n: &dyn Dep) -> Result<u32> {
        let id = n.node_id();
        if id.graph != self.id {
            return Err(Error::ForeignHandle { what: "node" });
        }
        Ok(id.index)
    }

    /// Adds the edge `from -> to`. A self-edge, a repeated edge or a cycle is an error naming
    /// the nodes, and the graph is left as it was.
    pub fn add_edge(&mut self, from: &dyn Dep, to: &dyn Dep) -> Result<()> {
        let (a, b) = (self.index_of(from)?, self.index_of(to)?);
        self.topo.check_edge(a, b)?;
        let (ra, rb) = (self.nodes[a as usize].raw, self.nodes[b as usize].raw);
        // SAFETY: both nodes belong to this live graph.
        let g = self.raw.0;
        driver::in_context(self.ctx.cu_ctx(), || unsafe { driver::add_edge(g, ra, rb) })?;
        self.version += 1;
        self.topo.add_edge(a, b)
    }

    /// Removes the edge `from -> to`.
    pub fn remove_edge(&mut self, from: &dyn Dep, to: &dyn Dep) -> Result<()> {
        let (a, b) = (self.index_of(from)?, self.index_of(to)?);
        if !self.topo.edges().contains(&(a, b)) {
            return self.topo.remove_edge(a, b);
        }
        let (ra, rb) = (self.nodes[a as usize].raw, self.nodes[b as usize].raw);
        // SAFETY: the edge exists between two nodes of this live graph.
        let g = self.raw.0;
        driver::in_context(self.ctx.cu_ctx(), || unsafe {
            driver::remove_edge(g, ra, rb)
        })?;
        self.version += 1;
        self.topo.remove_edge(a, b)
    }

    /// The setter view of a node of this template. Edits here reach an executable graph made
    /// earlier only through [`GraphExec::update`].
    pub fn node<H: NodeHandle>(&mut self, h: H) -> Result<H::OnTemplate<'_, 'a>> {
        let i = self.index_of(&h)? as usize;
        let Graph {
            ctx,
            limits,
            topo,
            nodes,
            bindings,
            children,
            panics,
            ..
        } = self;
        let rec = &mut nodes[i];
        rec.stale = true;
        Ok(H::on_template(NodeAccess {
            target: Target::Template,
            node: rec.raw,
            ctx,
            name: topo.name(i as u32),
            shadow: &mut rec.shadow,
            mirror: None,
            bindings,
            limits,
            panics,
            retired: None,
            children,
        }))
    }

    /// Makes the executable graph.
    pub fn instantiate(self) -> Result<GraphExec<'a>> {
        GraphExec::new(self, Instantiate::new())
    }

    /// Makes the executable graph with options (upload, auto-free-on-launch, node priority).
    pub fn instantiate_with(self, opts: Instantiate<'_>) -> Result<GraphExec<'a>> {
        GraphExec::new(self, opts)
    }

    /// The name of the node with driver handle `raw`, if it is one of ours.
    pub(crate) fn node_name(&self, raw: CUgraphNode) -> Option<String> {
        if raw.is_null() {
            return None;
        }
        let i = self.nodes.iter().position(|n| n.raw == raw)?;
        Some(self.topo.name(i as u32).to_owned())
    }

    /// Sends shadow edits made through an executable graph to the template's driver nodes.
    pub(crate) fn flush(&mut self) -> Result<()> {
        let ctx = self.ctx.cu_ctx();
        for (i, rec) in self.nodes.iter_mut().enumerate() {
            if rec.dirty {
                rec.shadow
                    .apply(Target::Template, rec.raw, ctx)
                    .map_err(|e| Error::call(e, Some(self.topo.name(i as u32))))?;
                rec.dirty = false;
            }
        }
        Ok(())
    }

    /// The first host-callback panic of this graph or its children since the last report.
    pub(crate) fn take_panic(&self) -> Option<Error> {
        self.panics
            .take()
            .or_else(|| self.children.iter().find_map(|c| c.take_panic()))
    }

    /// Runs `f` (a launch) with cudarc's stream-ordering events kept for every buffer of this
    /// graph and its children.
    pub(crate) fn tracked(
        bindings: &mut Bindings<'a>,
        children: &mut [Graph<'a>],
        stream: &CudaStream,
        f: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        Bindings::tracked(&mut bindings.list, stream, &mut || {
            track_children(children, stream, f)
        })
    }
}

fn track_children(
    children: &mut [Graph<'_>],
    stream: &CudaStream,
    f: &mut dyn FnMut() -> Result<()>,
) -> Result<()> {
    match children.split_first_mut() {
        None => f(),
        Some((c, rest)) => Graph::tracked(&mut c.bindings, &mut c.children, stream, &mut || {
            track_children(rest, stream, f)
        }),
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        // SAFETY: the graph is live and dropped once; executable graphs made from it do not
        // need it (the driver copies what it needs at instantiation).
        let r = unsafe { driver::graph_destroy(self.raw.0) };
        self.ctx.record_err(r.map_err(|e| e.code));
    }
}

/// The device's launch limits, read once per device.
fn device_limits(dev: cudarc::driver::sys::CUdevice) -> Result<Limits> {
    static KNOWN: std::sync::Mutex<Vec<(cudarc::driver::sys::CUdevice, Limits)>> =
        std::sync::Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&(_, l)) = known.iter().find(|(d, _)| *d == dev) {
        return Ok(l);
    }
    let attr = |a| {
        // SAFETY: `dev` is the device of a live context.
        unsafe { driver::device_attribute(dev, a) }.map(|v| v.max(0) as u32)
    };
    use CUdevice_attribute::*;
    let limits = Limits {
        max_block: [
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ],
        max_grid: [
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ],
        max_threads: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
    };
    known.push((dev, limits));
    Ok(limits)
}

/// Checks argument count and sizes against the kernel's parameters.
fn check_signature(sizes: &[usize], layout: &[ArgLayout], node: &str) -> Result<()> {
    let count = sizes.len();
    if count != layout.len() {
        return Err(Error::KernelSignature {
            node: node.to_owned(),
            reason: format!(
                "the kernel takes {count} parameter{} but {} argument{} given",
                if count == 1 { "" } else { "s" },
                layout.len(),
                if layout.len() == 1 { " was" } else { "s were" }
            ),
        });
    }
    for (i, (a, &size)) in layout.iter().zip(sizes).enumerate() {
        if size != a.size {
            return Err(Error::KernelSignature {
                node: node.to_owned(),
                reason: format!(
                    "argument {i} is {} bytes but the kernel's parameter {i} is {size} bytes",
                    a.size
                ),
            });
        }
    }
    Ok(())
}
