//! Making an executable graph, and the update ladder: per-node setters (the views), then a
//! whole-graph update from the template in place, then a new instantiation.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::{Core, GraphExec};
use crate::driver::{flags, InstantiateFailure, RawExec};
use crate::error::{DriverFailure, InstantiateError, UpdateError, UpdateRefusal};
use crate::graph::{take_copy, Graph, DEFAULT_CAP_ABOVE, DEFAULT_LANES};
use crate::kinds::{Pending, Stores};

/// Options for [`Graph::instantiate_with`].
///
/// ```no_run
/// # fn demo(g: cuda_graph_runtime::Graph<'_>, stream: &std::sync::Arc<cudarc::driver::CudaStream>)
/// #   -> cuda_graph_runtime::Result<()> {
/// use cuda_graph_runtime::exec::Instantiate;
/// let exec = g.instantiate_with(Instantiate::new().upload(stream).use_node_priority())?;
/// # drop(exec); Ok(()) }
/// ```
#[derive(Clone)]
pub struct Instantiate<'s> {
    upload: Option<&'s Arc<CudaStream>>,
    auto_free_on_launch: bool,
    use_node_priority: bool,
    /// Lanes, and the width above which to cap.
    cap: Option<(usize, usize)>,
}

impl Default for Instantiate<'_> {
    fn default() -> Self {
        Instantiate {
            upload: None,
            auto_free_on_launch: false,
            use_node_priority: false,
            cap: Some((DEFAULT_LANES, DEFAULT_CAP_ABOVE)),
        }
    }
}

impl<'s> Instantiate<'s> {
    /// Default options: no upload, no flags, and graphs wider than [`DEFAULT_CAP_ABOVE`]
    /// capped at [`DEFAULT_LANES`] lanes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Caps the graph's width at `lanes` (at least 1): a wider graph gets ordering edges so
    /// that it runs as `lanes` chains (see `Topology::cap_width`), which instantiates and
    /// launches faster without changing what it computes (the race check guarantees unordered
    /// nodes do not conflict). A graph as narrow or narrower is left as written.
    pub fn width_cap(mut self, lanes: usize) -> Self {
        let lanes = lanes.max(1);
        self.cap = Some((lanes, lanes));
        self
    }

    /// Leaves the graph exactly as written, however wide.
    pub fn no_width_cap(mut self) -> Self {
        self.cap = None;
        self
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
            f |= flags::UPLOAD;
        }
        if self.auto_free_on_launch {
            f |= flags::AUTO_FREE_ON_LAUNCH;
        }
        if self.use_node_priority {
            f |= flags::USE_NODE_PRIORITY;
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

/// Instantiates `graph`, naming the node the driver blames if it fails.
fn instantiate<'a>(
    graph: &Graph<'a>,
    flags: u64,
    upload: Option<&Arc<CudaStream>>,
) -> Result<RawExec<'a>, InstantiateError> {
    graph
        .raw
        .instantiate(flags, upload)
        .map_err(|f: InstantiateFailure| InstantiateError::Refused {
            node: graph.node_name(f.node),
            reason: f.reason,
            source: f.error.code,
        })
}

impl<'a> GraphExec<'a> {
    pub(crate) fn new(
        mut graph: Graph<'a>,
        opts: Instantiate<'_>,
    ) -> Result<Self, InstantiateError> {
        if let Some(s) = opts.upload {
            if s.context().cu_ctx() != graph.ctx.cu_ctx() {
                return Err(InstantiateError::ContextMismatch {
                    what: "the upload stream",
                });
            }
        }
        graph.flush()?;
        graph.cap(opts.cap)?;
        let flags = opts.flags();
        let raw = instantiate(&graph, flags, opts.upload)?;
        // The new executable graph holds the template's parameters: nothing is marked.
        for i in graph.marked.drain(..) {
            let n = &mut graph.nodes[i as usize];
            (n.stale, n.marked) = (false, false);
        }
        // A template given back by `into_graph` may hold disabled nodes and swapped children:
        // one look at every node finds them; updates then keep the list.
        let mut pending = Pending::default();
        for (i, n) in graph.nodes.iter_mut().enumerate() {
            n.sticky = graph.stores.needs_reapply(n.store, n.slot);
            if n.sticky {
                pending.sticky.push(i as u32);
            }
        }
        // The copy goes into the room the thread's last executable graph left (no allocation
        // when the graphs are alike).
        let mut stores = Stores::new();
        stores.kernel = take_copy();
        stores.clone_from(&graph.stores);
        let mut exec = GraphExec {
            core: Core {
                raw,
                version: graph.version,
                len: graph.nodes.len(),
                stores,
                pending,
                flags,
                cap: opts.cap,
            },
            graph,
            _not_sync: PhantomData::<Cell<()>>,
        };
        exec.reapply()?;
        Ok(exec)
    }

    /// Brings the executable graph in line with its template ([`graph_mut`](Self::graph_mut)),
    /// cheapest way first: `cuGraphExecUpdate_v2` in place, or, if the driver refuses (the
    /// topology changed, say), a new instantiation. Says which path it took.
    ///
    /// Edits made through [`node`](Self::node) are kept: the template takes them first. If the
    /// update fails, the executable graph is left as it was and still launches.
    ///
    /// Beyond the driver's own call, an update costs per node edited since the last one (on
    /// either side), not per node of the graph.
    pub fn update(&mut self) -> Result<UpdatePath, UpdateError> {
        self.catch_up();
        self.graph.flush()?;
        if self.core.version != self.graph.version {
            // Nodes or edges changed: the driver would refuse; go straight to instantiation.
            return self.reinstantiate(UpdateRefusal::TopologyChanged, None);
        }
        if let Err(f) = self.core.raw.update_from(&self.graph.raw) {
            let node = self.graph.node_name(f.node);
            return self.reinstantiate(f.refusal, node);
        }
        self.adopt_template();
        self.reapply()?;
        Ok(UpdatePath::InPlace)
    }

    /// The second rung of [`update`](Self::update): the driver refused the update in place (or
    /// would have), so the template is instantiated anew; if that fails too, the executable
    /// graph is put back as it was.
    #[cold]
    #[inline(never)]
    fn reinstantiate(
        &mut self,
        reason: UpdateRefusal,
        node: Option<String>,
    ) -> Result<UpdatePath, UpdateError> {
        // CUDA lets a graph with allocation nodes have one executable graph at a time.
        if !self.graph.stores.alloc.items.is_empty() {
            self.restore()?;
            return Err(UpdateError::MemoryNodes { reason });
        }
        if let Err(e) = self.graph.cap(self.core.cap) {
            // As below: a refused update may have changed some nodes.
            self.restore()?;
            return Err(e.into());
        }
        match instantiate(&self.graph, self.core.flags, None) {
            Ok(raw) => {
                self.core.raw.replace(raw);
                self.core.version = self.graph.version;
                self.adopt_template();
                self.reapply()?;
                Ok(UpdatePath::Reinstantiated { reason, node })
            }
            Err(e) => {
                // The refused update may have changed some nodes: put back what the shadows say.
                self.restore()?;
                Err(e.into())
            }
        }
    }

    /// After an update: the executable graph now holds the template's parameters. Its shadows
    /// take those of the nodes edited on the template side (marked `stale`; `flush` sent the
    /// `dirty` ones) and of the nodes added since.
    #[inline(always)]
    fn adopt_template(&mut self) {
        let (core, graph) = (&mut self.core, &mut self.graph);
        for &i in &graph.marked {
            let n = &mut graph.nodes[i as usize];
            n.marked = false;
            if std::mem::take(&mut n.stale) && (i as usize) < core.len {
                core.stores.adopt_one(n.store, n.slot, &graph.stores);
            }
        }
        graph.marked.clear();
        if core.len != graph.nodes.len() {
            Self::adopt_new(core, graph);
        }
    }

    /// The executable graph's shadows take those of the nodes added to the template since it
    /// was made or last updated.
    #[cold]
    fn adopt_new(core: &mut Core<'a>, graph: &Graph<'a>) {
        for s in core.stores.all_mut() {
            s.adopt_new(&graph.stores);
        }
        core.len = graph.nodes.len();
    }

    /// What an update or instantiation does not carry over: disabled nodes, and child graphs
    /// swapped or edited on the executable graph (the nodes on `Pending::sticky`; those that
    /// need nothing any more leave the list).
    #[inline]
    fn reapply(&mut self) -> Result<(), DriverFailure> {
        if self.core.pending.sticky.is_empty() {
            return Ok(());
        }
        self.reapply_sticky()
    }

    /// [`reapply`](Self::reapply) when the list is not empty.
    #[inline(never)]
    fn reapply_sticky(&mut self) -> Result<(), DriverFailure> {
        let (core, graph) = (&mut self.core, &mut self.graph);
        let sticky = &mut core.pending.sticky;
        let mut k = 0;
        while k < sticky.len() {
            let i = sticky[k];
            let n = &mut graph.nodes[i as usize];
            let store = core.stores.at(n.store);
            if !store.needs_reapply(n.slot) {
                n.sticky = false;
                sticky.swap_remove(k);
                continue;
            }
            store
                .reapply_one(n.slot, &mut core.raw, n.raw, &graph.children)
                .map_err(|e| e.at(Some(graph.topo.name(i))))?;
            k += 1;
        }
        Ok(())
    }

    /// Sends every node's shadow to the executable graph again (the nodes it was made with: the
    /// template's nodes added since are not in it).
    fn restore(&mut self) -> Result<(), DriverFailure> {
        let (core, graph) = (&mut self.core, &self.graph);
        core.stores
            .restore(&mut core.raw, &graph.nodes[..core.len], &graph.topo)?;
        self.reapply()
    }
}
