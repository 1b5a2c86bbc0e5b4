//! Width capping: before instantiation, a graph wider than the lane count gets ordering edges
//! (see `Topology::cap_width`), in the driver graph and apart from the user's edges in the
//! topology, so whole-graph updates keep matching. Host and event nodes, and nodes marked with
//! [`Graph::keep_concurrent`], are never ordered by them.

use super::Graph;
use crate::error::{BuildError, DriverFailure, HandleError};
use crate::id::Dep;
use cuda_graph_topology::NodeKind;

/// Lanes a wide graph is capped to unless [`Instantiate`](crate::Instantiate) says otherwise.
/// Chosen from measurements on an H100 (see `docs/bench/width.md`).
pub const DEFAULT_LANES: usize = 32;

impl<'a> Graph<'a> {
    /// Keeps node `n` out of width capping: it is never ordered after or before another node
    /// beyond the edges written. Host callbacks and event nodes are kept out already (a blocking
    /// callback, or an event another stream waits for, must not hold back unrelated work).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>, probe: cuda_graph_runtime::KernelNode<(u32,)>)
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
        self.nodes[i as usize].concurrent
            || matches!(
                self.topo.kind(i),
                NodeKind::Host | NodeKind::EventRecord | NodeKind::EventWait
            )
    }

    /// Caps the width at `lanes` (none: leaves the graph as written), replacing the ordering
    /// edges of an earlier cap.
    pub(crate) fn cap(&mut self, lanes: Option<usize>) -> Result<(), DriverFailure> {
        self.uncap()?;
        let Some(lanes) = lanes else {
            return Ok(());
        };
        let edges = self.topo.cap_width(lanes, &|i| self.concurrent(i));
        for (k, &(a, b)) in edges.iter().enumerate() {
            let (ra, rb) = (self.nodes[a as usize].raw, self.nodes[b as usize].raw);
            if let Err(e) = self.raw.add_edge(ra, rb) {
                // Take back the ones added, so the graph is as written.
                self.topo.set_ordering_edges(edges[..k].to_vec());
                let _ = self.uncap();
                return Err(e.into());
            }
        }
        self.topo.set_ordering_edges(edges);
        Ok(())
    }

    /// Removes the ordering edges of the last cap (before the user's own edges change, and
    /// before capping anew).
    pub(crate) fn uncap(&mut self) -> Result<(), DriverFailure> {
        let edges = self.topo.take_ordering_edges();
        for (k, &(a, b)) in edges.iter().enumerate() {
            let (ra, rb) = (self.nodes[a as usize].raw, self.nodes[b as usize].raw);
            if let Err(e) = self.raw.remove_edge(ra, rb) {
                self.topo.set_ordering_edges(edges[k..].to_vec());
                return Err(e.into());
            }
        }
        Ok(())
    }
}
