//! The template graph, built node by node (no stream capture): its nodes' names and edges, the
//! shadows of their parameters, the buffers and child graphs it borrows. Adding nodes is in
//! `add`.

mod add;
mod body;
mod captured;
#[cfg(feature = "nccl")]
mod collective;
mod deps;
#[cfg(feature = "cublas")]
mod gemm;
#[doc(hidden)]
pub(crate) mod limit;
mod mem;
mod spare;
mod views;
mod width;

pub(crate) use spare::{keep_copy, take_copy};
pub use width::{DEFAULT_CAP_ABOVE, DEFAULT_LANES};

use std::borrow::Cow;
use std::ffi::CString;
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr};

use crate::bind::{
    Bindings, Buf, BufMut, BufferId, HostBuf, HostBufMut, PeerBuf, PeerBufMut, Tracking,
};
use crate::driver::{self, Limits, RawGraph, RawNode};
use crate::error::{BuildError, HandleError, LaunchError};
use crate::id::{Dep, GraphId, NodeId};
use crate::kinds::host::Panics;
use crate::kinds::{ChildGraph, Children, IntoChild, NodeRec, Parts, Stores, Subgraph};
use crate::stack::{Stack, StackMut};
use cuda_graph_topology::Topology;

/// A CUDA graph template, built node by node.
///
/// `'a` is the lifetime of everything the graph borrows: bound buffers, kernel functions, host
/// closures, child graphs and events. The executable graph made from it keeps that lifetime,
/// so none of them can be freed while it may still run.
///
/// A dropped graph of up to 1024 nodes leaves its tables, emptied, to the thread's next graph
/// (at most about 350 KB a thread): building graph after graph allocates them once.
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
/// let mut y = stream.clone_htod(&[1.0f32; 1024])?;
///
/// let mut g = Graph::new(&ctx)?;
/// let yb = g.bind_mut(&mut y)?;
/// let step = g.add_kernel("scale", &[], &scale, LaunchConfig::for_num_elems(1024), (2.0f32, yb, 1024u32))?;
/// let mut exec = g.instantiate()?;
/// exec.launch(&stream)?;
/// exec.node(step)?.set_arg::<0>(3.0)?;   // a live edit: no re-capture, no re-instantiation
/// exec.launch(&stream)?;
/// let host = stream.clone_dtoh(exec.buffer(yb)?)?;
/// assert_eq!(host[0], 6.0);
/// # Ok(()) }
/// ```
pub struct Graph<'a> {
    pub(crate) id: GraphId,
    pub(crate) raw: RawGraph<'a>,
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) limits: Limits,
    /// A `cuda_graph!` block's name is a literal: kept without a copy.
    pub(crate) name: Cow<'static, str>,
    pub(crate) topo: Topology,
    pub(crate) nodes: Vec<NodeRec>,
    /// Nodes whose record is `dirty` or `stale` (`NodeRec::mark`): what an update sends and
    /// copies, so it costs per node edited.
    pub(crate) marked: Vec<u32>,
    /// The template's shadow copies.
    pub(crate) stores: Stores<'a>,
    pub(crate) bindings: Bindings<'a>,
    pub(crate) children: Children<'a>,
    pub(crate) panics: Panics,
    /// The communicators its collectives use: it refuses to launch once one is aborted.
    #[cfg(feature = "nccl")]
    pub(crate) comms: Vec<Arc<crate::comm::Health>>,
    /// Bumped by every change of nodes or edges: an executable graph made at another version
    /// cannot be updated in place.
    pub(crate) version: u64,
    /// The counters of WHILE nodes with a limit (`limit_while`).
    pub(crate) counters: Vec<limit::Counter>,
    /// Scratch for the dependencies of a node being added by handles (indices), and of one with
    /// more than a few (driver nodes).
    deps: Vec<u32>,
    raw_deps: Vec<RawNode>,
}

impl<'a> Graph<'a> {
    /// An empty graph on the context's device.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, BuildError> {
        Self::new_static(ctx, "graph")
    }

    /// An empty graph named with a name that lives as long as the program (what `cuda_graph!`
    /// gives: no copy is made).
    #[doc(hidden)]
    #[inline]
    pub fn new_static(ctx: &Arc<CudaContext>, name: &'static str) -> Result<Self, BuildError> {
        let raw = RawGraph::new(ctx)?;
        let limits = driver::device_limits(ctx.cu_device())?;
        let id = GraphId::next();
        // Every call is made before the `Graph` value is built, so that it is built where it
        // is returned rather than built and then copied there.
        let ctx = ctx.clone();
        let spare = spare::take().unwrap_or_default();
        Ok(Graph {
            id,
            raw,
            ctx,
            limits,
            name: Cow::Borrowed(name),
            topo: spare.topo,
            nodes: spare.nodes,
            marked: Vec::new(),
            stores: Stores {
                kernel: spare.kernel,
                ..Stores::new()
            },
            bindings: Bindings::new(id),
            children: Children::new(),
            panics: Panics::new(),
            #[cfg(feature = "nccl")]
            comms: Vec::new(),
            version: 0,
            counters: Vec::new(),
            deps: spare.deps,
            raw_deps: spare.raw_deps,
        })
    }

    /// An empty graph meant to become a child of this one ([`add_child`](Self::add_child),
    /// [`ChildMut::set_graph`](crate::node::ChildMut::set_graph)). Its nodes take this graph's buffer
    /// handles (those bound so far), so parent and child can work on the same buffers; it can
    /// bind buffers of its own too.
    pub fn child_graph(&self) -> Result<Graph<'a>, BuildError> {
        let mut child = Graph::new(&self.ctx)?;
        child.bindings = self.bindings.for_child(child.id);
        child.name = Cow::Owned(format!("{}.child", self.name));
        Ok(child)
    }

    /// Makes room for `nodes` more nodes, `kernels` of them kernel launches, and `edges` more
    /// edges (what `cuda_graph!` calls before adding a graph it knows the size of).
    #[doc(hidden)]
    pub fn reserve(&mut self, nodes: usize, kernels: usize, edges: usize) {
        cuda_graph_topology::room(&mut self.nodes, nodes);
        self.stores.kernel.reserve(kernels);
        self.topo.reserve(nodes, edges);
    }

    /// Names the graph (used in DOT output).
    pub fn with_name(mut self, name: &str) -> Self {
        self.name = Cow::Owned(name.to_owned());
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

    /// The driver's handle of the template graph, for driver calls cuda-graph does not make
    /// (`cuGraphDebugDotPrint`, `cuGraphGetNodes`, ...). It stays valid while the graph lives.
    /// cuda-graph does not see what is done through it: nodes or edges added that way are not
    /// in its topology or its checks, and parameters set that way last until cuda-graph sets
    /// the node again.
    pub fn cu_graph(&self) -> cudarc::driver::sys::CUgraph {
        self.raw.raw()
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
    pub fn debug_dot_print(&self, path: impl AsRef<Path>, verbose: bool) -> Result<(), BuildError> {
        let path = path.as_ref().to_string_lossy().into_owned();
        let c = CString::new(path.clone()).map_err(|_| BuildError::NulInPath { path })?;
        Ok(self.raw.debug_dot_print(&c, verbose)?)
    }

    fn check_ctx(&self, other: &Arc<CudaContext>, what: &'static str) -> Result<(), BuildError> {
        if other.cu_ctx() == self.ctx.cu_ctx() {
            Ok(())
        } else {
            Err(BuildError::ContextMismatch { what })
        }
    }

    /// The length in elements of the buffer a handle names (any handle this graph bound, or,
    /// in a child graph, one of the parent's).
    pub fn buffer_len(&self, h: impl Into<BufferId>) -> Result<usize, HandleError> {
        let id = h.into();
        Ok(self.bindings.get(id.graph, id.index)?.len)
    }

    /// Binds a device buffer that nodes only read.
    pub fn bind<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        buf: &'a CudaSlice<T>,
    ) -> Result<Buf<T>, BuildError> {
        self.check_ctx(buf.context(), "the buffer")?;
        Ok(Buf::new(self.id, self.bindings.bind(buf)))
    }

    /// Binds a device buffer that some node writes. While the graph (or the executable graph
    /// made from it) lives, reach the buffer through
    /// [`GraphExec::buffer`](crate::GraphExec::buffer) and
    /// [`GraphExec::buffer_mut`](crate::GraphExec::buffer_mut).
    pub fn bind_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        buf: &'a mut CudaSlice<T>,
    ) -> Result<BufMut<T>, BuildError> {
        self.check_ctx(buf.context(), "the buffer")?;
        Ok(BufMut::new(self.id, self.bindings.bind_mut(buf)))
    }

    /// Binds a buffer of another device than the graph's (of a peer GPU), which only memcpy
    /// nodes read: a peer copy. The memcpy node checks that this graph's device can reach the
    /// buffer's directly (peer access) and enables it; a device without peer access to it is an
    /// error naming the node ([`BuildError::NoPeerAccess`]). A buffer of the graph's own device
    /// is accepted too (the copy is then a plain device copy), so one program serves every
    /// placement, a world of one GPU included.
    ///
    /// The graph does not order its launches after work queued on the buffer's own device:
    /// synchronize the streams of that device that write the buffer before launching (cudarc
    /// orders a buffer's uses within one device's context only).
    ///
    /// ```no_run
    /// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, mine: &'a mut cudarc::driver::CudaSlice<f32>,
    /// #             theirs: &'a cudarc::driver::CudaSlice<f32>) -> cuda_graph_runtime::Result<()> {
    /// let (local, peer) = (g.bind_mut(mine)?, g.bind_peer(theirs)?);
    /// g.add_memcpy("pull", &[], local, peer)?;
    /// # Ok(()) }
    /// ```
    pub fn bind_peer<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        buf: &'a CudaSlice<T>,
    ) -> Result<PeerBuf<T>, BuildError> {
        Ok(PeerBuf::new(self.id, self.bindings.bind_peer(buf)))
    }

    /// Binds a buffer of another device that memcpy nodes write (or read): see
    /// [`bind_peer`](Self::bind_peer).
    pub fn bind_peer_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        buf: &'a mut CudaSlice<T>,
    ) -> Result<PeerBufMut<T>, BuildError> {
        Ok(PeerBufMut::new(self.id, self.bindings.bind_peer_mut(buf)))
    }

    /// Binds a stack of device buffers that nodes only read: one handle per buffer (a strided
    /// stack binds its buffer once and hands out a handle per part).
    ///
    /// ```no_run
    /// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, w: &'a Vec<cudarc::driver::CudaSlice<f32>>)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// let layers = g.bind_stack(w.into())?;   // a `Buf<f32>` per buffer of `w`
    /// # let _ = layers; Ok(()) }
    /// ```
    pub fn bind_stack<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        stack: Stack<'a, T>,
    ) -> Result<Vec<Buf<T>>, BuildError> {
        match stack {
            Stack::Slices(s) => s.iter().map(|b| self.bind(b)).collect(),
            Stack::Strided { buffer, stride } => {
                let whole = self.bind(buffer)?;
                self.bind_parts::<T>(whole.index, buffer.len(), stride)
                    .map(|v| v.into_iter().map(|i| Buf::new(self.id, i)).collect())
            }
        }
    }

    /// Binds a stack of device buffers that some node writes (see
    /// [`bind_stack`](Self::bind_stack)).
    pub fn bind_stack_mut<T: DeviceRepr + Send + Sync + 'static>(
        &mut self,
        stack: StackMut<'a, T>,
    ) -> Result<Vec<BufMut<T>>, BuildError> {
        match stack {
            StackMut::Slices(s) => s.iter_mut().map(|b| self.bind_mut(b)).collect(),
            StackMut::Strided { buffer, stride } => {
                let len = buffer.len();
                let whole = self.bind_mut(buffer)?;
                self.bind_parts::<T>(whole.index, len, stride)
                    .map(|v| v.into_iter().map(|i| BufMut::new(self.id, i)).collect())
            }
        }
    }

    /// Binds the parts of binding `whole` (`len` elements), `stride` elements each.
    fn bind_parts<T>(
        &mut self,
        whole: u32,
        len: usize,
        stride: usize,
    ) -> Result<Vec<u32>, BuildError> {
        if stride == 0 || !len.is_multiple_of(stride) {
            return Err(BuildError::StackStride { len, stride });
        }
        Ok((0..len / stride)
            .map(|i| self.bindings.bind_part::<T>(whole, i * stride, stride))
            .collect())
    }

    /// Binds a host slice that memcpy nodes read.
    pub fn bind_host<T: Copy + Send + Sync>(&mut self, data: &'a [T]) -> HostBuf<T> {
        HostBuf::new(self.id, self.bindings.bind_host(data))
    }

    /// Binds a host slice that memcpy nodes write. Read it back with
    /// [`GraphExec::host`](crate::GraphExec::host).
    pub fn bind_host_mut<T: Copy + Send + Sync + 'static>(
        &mut self,
        data: &'a mut [T],
    ) -> HostBufMut<T> {
        HostBufMut::new(self.id, self.bindings.bind_host_mut(data))
    }

    fn index_of(&self, n: &dyn Dep) -> Result<u32, HandleError> {
        let id = n.node_id();
        if id.graph != self.id {
            return Err(HandleError::Foreign { what: "node" });
        }
        Ok(id.index)
    }

    /// Adds the edge `from -> to`. A self-edge, a repeated edge or a cycle is an error naming
    /// the nodes, and the graph is left as it was.
    pub fn add_edge(&mut self, from: &dyn Dep, to: &dyn Dep) -> Result<(), BuildError> {
        let (a, b) = (self.index_of(from)?, self.index_of(to)?);
        // Width capping's edges go first: they could close a cycle with the new one. The next
        // instantiation (the update this change calls for) caps anew.
        self.uncap()?;
        self.topo.check_edge(a, b)?;
        let (ra, rb) = (self.nodes[a as usize].raw, self.nodes[b as usize].raw);
        self.raw.add_edge(self.topo.scope(a), ra, rb)?;
        self.version += 1;
        Ok(self.topo.add_edge(a, b)?)
    }

    /// Makes `from -> to` a programmatic edge (programmatic dependent launch, compute
    /// capability 9.0 or newer): `to` may start before `from` finishes, when every block of
    /// `from` has triggered or exited ([`Port::Programmatic`](crate::topology::Port)) or
    /// started ([`Port::LaunchOrder`](crate::topology::Port)). A plain edge between them is
    /// replaced; without one, the edge is added (the same checks as [`add_edge`](Self::add_edge)).
    /// Both must be kernel nodes.
    ///
    /// `to`'s kernel must wait (`cudaGridDependencySynchronize()`, `griddepcontrol.wait`)
    /// before it reads what `from` writes, or it races: the runtime cannot see kernel code
    /// (`cuda_graph!` proves the wait from the CUDA source). On failure the graph is as it was.
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>,
    /// #         a: cuda_graph_runtime::node::KernelNode<(u32,)>,
    /// #         b: cuda_graph_runtime::node::KernelNode<(u32,)>) -> cuda_graph_runtime::Result<()> {
    /// use cuda_graph_runtime::topology::Port;
    /// g.add_programmatic_edge(&a, &b, Port::Programmatic)?;
    /// # Ok(()) }
    /// ```
    pub fn add_programmatic_edge(
        &mut self,
        from: &dyn Dep,
        to: &dyn Dep,
        port: cuda_graph_topology::Port,
    ) -> Result<(), BuildError> {
        let (a, b) = (self.index_of(from)?, self.index_of(to)?);
        self.uncap()?;
        let plain = self.topo.edges().contains(&(a, b));
        if !plain {
            self.topo.check_edge(a, b)?;
        }
        // The kinds first (no driver call for an edge that cannot be programmatic).
        let mut probe = cuda_graph_topology::Topology::new();
        let pa = probe.add_node("from", self.topo.kind(a))?;
        let pb = probe.add_node("to", self.topo.kind(b))?;
        probe.add_edge(pa, pb)?;
        if let Err(e) = probe.set_programmatic(pa, pb, port) {
            return Err(match e {
                cuda_graph_topology::TopologyError::NotKernels { node, .. } => {
                    cuda_graph_topology::TopologyError::NotKernels {
                        from: self.topo.name(a).to_owned(),
                        to: self.topo.name(b).to_owned(),
                        node: if node == "from" {
                            self.topo.name(a).to_owned()
                        } else {
                            self.topo.name(b).to_owned()
                        },
                    }
                    .into()
                }
                other => other.into(),
            });
        }
        let (ra, rb) = (self.nodes[a as usize].raw, self.nodes[b as usize].raw);
        self.raw
            .add_programmatic_edge(self.topo.scope(a), ra, rb, port, plain)?;
        if !plain {
            self.topo.add_edge(a, b)?;
        }
        self.version += 1;
        Ok(self.topo.set_programmatic(a, b, port)?)
    }

    /// Removes the edge `from -> to`.
    pub fn remove_edge(&mut self, from: &dyn Dep, to: &dyn Dep) -> Result<(), BuildError> {
        let (a, b) = (self.index_of(from)?, self.index_of(to)?);
        self.uncap()?;
        if !self.topo.edges().contains(&(a, b)) {
            return Ok(self.topo.remove_edge(a, b)?);
        }
        let (ra, rb) = (self.nodes[a as usize].raw, self.nodes[b as usize].raw);
        match self.topo.programmatic_port(a, b) {
            Some(port) => self
                .raw
                .remove_programmatic_edge(self.topo.scope(a), ra, rb, port)?,
            None => self.raw.remove_edge(self.topo.scope(a), ra, rb)?,
        }
        self.version += 1;
        Ok(self.topo.remove_edge(a, b)?)
    }

    /// The first host-callback panic of this graph or its children since the last report.
    pub(crate) fn take_panic(&self) -> Option<LaunchError> {
        self.panics
            .take()
            .or_else(|| self.children.list.iter().find_map(|c| c.0.take_panic()))
    }

    /// Runs `f` (a launch) with cudarc's stream-ordering events kept for every buffer of this
    /// graph and its children.
    pub(crate) fn tracked(
        bindings: &mut Bindings<'a>,
        children: &mut Children<'a>,
        stream: &CudaStream,
        f: &mut dyn FnMut() -> Tracking,
    ) -> Tracking {
        Bindings::tracked(&mut bindings.list, stream, &mut || {
            track_children(&mut children.list, stream, f)
        })
    }
}

fn track_children(
    list: &mut [ChildGraph<'_>],
    stream: &CudaStream,
    f: &mut dyn FnMut() -> Tracking,
) -> Tracking {
    match list.split_first_mut() {
        None => f(),
        Some((c, rest)) => c.0.tracked(stream, &mut || track_children(rest, stream, f)),
    }
}

impl crate::kinds::sealed::Sealed for Graph<'_> {}

impl<'a> IntoChild<'a> for Graph<'a> {
    fn into_child(self) -> ChildGraph<'a> {
        ChildGraph(Box::new(self))
    }
}

impl<'a> Subgraph<'a> for Graph<'a> {
    fn raw(&self) -> &RawGraph<'a> {
        &self.raw
    }

    fn topology(&self) -> &Topology {
        &self.topo
    }

    fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    fn take_panic(&self) -> Option<LaunchError> {
        Graph::take_panic(self)
    }

    fn tracked(&mut self, stream: &CudaStream, f: &mut dyn FnMut() -> Tracking) -> Tracking {
        Graph::tracked(&mut self.bindings, &mut self.children, stream, f)
    }

    fn editable(&self) -> bool {
        true
    }

    fn template_node(&mut self, id: NodeId) -> Option<Result<Parts<'_, 'a>, HandleError>> {
        Some(self.index_of(&id).map(|i| self.parts(i, None)))
    }
}
