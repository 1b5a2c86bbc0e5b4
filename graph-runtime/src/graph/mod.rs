//! The template graph, built node by node (no stream capture).

use std::ffi::CString;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr};

use crate::bind::{Bindings, Buf, BufMut, HostBuf, HostBufMut};
use crate::driver::{self, CUgraph, CUgraphExec, CUgraphNode};
use crate::error::{Error, Result};
use crate::exec::{GraphExec, Instantiate};
use crate::handles::{Dep, NodeHandle};
use crate::host::{HostSlot, PanicSlot};
use crate::module::Kernel;
use crate::shadow::{Limits, Shadow, Target};
use crate::topology::Topology;
use crate::views::NodeAccess;

mod add;

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
    pub(crate) kernels: Vec<Kernel>,
    pub(crate) panics: Arc<PanicSlot>,
    /// Bumped by every change of nodes or edges: an executable graph made at another version
    /// cannot be updated in place.
    pub(crate) version: u64,
    /// Scratch for the dependencies of the node being added (indices, driver nodes).
    deps: Vec<u32>,
    raw_deps: Vec<CUgraphNode>,
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
            deps: Vec::new(),
            raw_deps: Vec::new(),
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

    /// Makes room for `nodes` more nodes and `edges` more edges (what `cuda_graph!` calls
    /// before adding a graph it knows the size of).
    #[doc(hidden)]
    pub fn reserve(&mut self, nodes: usize, edges: usize) {
        self.nodes.reserve(nodes);
        self.topo.reserve(nodes, edges);
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
        Ok(H::on_template(self.access(i, None)))
    }

    /// What a setter view of node `i` borrows: on this template (`exec: None`), or on an
    /// executable graph made from it (`exec`: its handle, its shadow of the node, and its list of
    /// retired host slots; the template's shadow then receives the same edits).
    #[inline]
    pub(crate) fn access<'v>(
        &'v mut self,
        i: usize,
        exec: Option<(
            CUgraphExec,
            &'v mut Shadow<'a>,
            &'v mut Vec<Arc<HostSlot<'a>>>,
        )>,
    ) -> NodeAccess<'v, 'a> {
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
        let (target, shadow, mirror, retired) = match exec {
            Some((e, shadow, retired)) => (
                Target::Exec(e),
                shadow,
                Some((&mut rec.shadow, &mut rec.dirty)),
                Some(retired),
            ),
            None => {
                // The template's parameters may now differ from the executable graph's.
                rec.stale = true;
                (Target::Template, &mut rec.shadow, None, None)
            }
        };
        NodeAccess {
            target,
            node: rec.raw,
            ctx,
            topo,
            index: i as u32,
            shadow,
            mirror,
            bindings,
            limits,
            panics,
            retired,
            children,
        }
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
