//! Width capping: before instantiation, a graph wider than the lane count gets ordering edges
//! (see `Topology::capping`), in the driver graph and apart from the user's edges in the
//! topology, so whole-graph updates keep matching; the user's edges they make redundant are
//! left out of the driver graph meanwhile (the order of the nodes is the same). Host and event nodes, and nodes marked with
//! [`Graph::keep_concurrent`], are never ordered by them.

use super::Graph;
use crate::error::{BuildError, DriverFailure, HandleError};
use crate::id::Dep;

/// Lanes a wide graph is capped to unless [`Instantiate`](crate::exec::Instantiate) says otherwise.
/// Chosen from measurements on an H100 (see `docs/bench/width.md`).
pub const DEFAULT_LANES: usize = 32;

/// The width above which a graph is capped unless [`Instantiate`](crate::exec::Instantiate) says
/// otherwise: narrower graphs launch as fast or faster as written (a 100-wide fan-out launched
/// 6% slower capped to 32 lanes; see `docs/bench/width.md`).
pub const DEFAULT_CAP_ABOVE: usize = 128;

impl<'a> Graph<'a> {
    /// Keeps node `n` out of width capping: it is never ordered after or before another node
    /// beyond the edges written. Host callbacks and event nodes are kept out already (a blocking
    /// callback, or an event another stream waits for, must not hold back unrelated work).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>, probe: cuda_graph_runtime::node::KernelNode<(u32,)>)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// g.keep_concurrent(&probe)?;   // e.g. a kernel that polls a flag another node sets
    /// # Ok(()) }
    /// ```
    pub fn keep_concurrent(&mut self, n: &dyn Dep) -> Result<(), BuildError> {
        let id = n.node_id();
        if id.graph != self.id {
            return Err(HandleError::Foreign { what: "node" }.into());
        }
        self.uncap()?;
        self.nodes[id.index as usize].concurrent = true;
        // The next update instantiates anew, capping without the node.
        self.version += 1;
        Ok(())
    }

    /// Whether node `i` is kept out of width capping.
    pub(crate) fn concurrent(&self, i: u32) -> bool {
        self.nodes[i as usize].concurrent || self.topo.kind(i).meets_outside()
    }

    /// Caps the width at `lanes` if the graph is wider than `above` (`None`: leaves the graph
    /// as written), replacing an earlier cap: adds the ordering edges to the driver graph, and
    /// leaves out the user's edges they make redundant.
    pub(crate) fn cap(&mut self, cap: Option<(usize, usize)>) -> Result<(), DriverFailure> {
        self.uncap()?;
        let Some((lanes, above)) = cap else {
            return Ok(());
        };
        let c = self.topo.capping(lanes, above, &|i| self.concurrent(i));
        if c.added.is_empty() {
            return Ok(());
        }
        self.edges_call(&c.added, true)?;
        if let Err(e) = self.edges_call(&c.redundant, false) {
            let _ = self.edges_call(&c.added, false);
            return Err(e);
        }
        self.topo.set_capping(c);
        Ok(())
    }

    /// Undoes the last cap: removes its ordering edges and puts back the user's edges it left
    /// out (before the user's own edges change, and before capping anew).
    pub(crate) fn uncap(&mut self) -> Result<(), DriverFailure> {
        let c = self.topo.take_capping();
        if c.added.is_empty() {
            return Ok(());
        }
        let undo = self
            .edges_call(&c.redundant, true)
            .and_then(|()| self.edges_call(&c.added, false));
        if undo.is_err() {
            // Keep the record of what the driver graph may still hold.
            self.topo.set_capping(c);
        }
        undo
    }

    /// Adds (or removes) `edges` in the driver graph, one call for all.
    fn edges_call(&mut self, edges: &[(u32, u32)], add: bool) -> Result<(), DriverFailure> {
        if edges.is_empty() {
            return Ok(());
        }
        let raw = |i: u32| self.nodes[i as usize].raw;
        let from: Vec<_> = edges.iter().map(|&(a, _)| raw(a)).collect();
        let to: Vec<_> = edges.iter().map(|&(_, b)| raw(b)).collect();
        let r = if add {
            self.raw.add_edges(&from, &to)
        } else {
            self.raw.remove_edges(&from, &to)
        };
        Ok(r?)
    }
}
