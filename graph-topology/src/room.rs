//! The room a topology's tables take: made ahead for a known number of nodes and edges, and
//! kept when a topology is emptied for another graph.

use crate::Topology;

/// Makes room for `n` more items in `v`: an empty list is made with that capacity (a shorter
/// path than growing one).
#[doc(hidden)]
#[inline]
pub fn room<T>(v: &mut Vec<T>, n: usize) {
    if v.is_empty() && v.capacity() < n {
        // Nothing to keep: a table too small for `n` is replaced, not grown (growing copies
        // its whole capacity).
        *v = Vec::with_capacity(n);
    } else {
        v.reserve(n);
    }
}

impl Topology {
    /// An empty topology that keeps the room this one's node and edge tables had: what a
    /// program that builds graph after graph reuses instead of allocating the tables again.
    ///
    /// ```
    /// use cuda_graph_topology::{NodeKind, Topology};
    /// let mut t = Topology::new();
    /// t.reserve(16, 16);
    /// let a = t.add_node("a", NodeKind::Kernel)?;
    /// let b = t.add_node("b", NodeKind::Kernel)?;
    /// t.add_edge(a, b)?;
    /// let t = t.emptied();
    /// assert!(t.is_empty() && t.edges().is_empty() && t.find("a").is_none());
    /// let (nodes, edges) = t.capacity();
    /// assert!(nodes >= 16 && edges >= 16);
    /// # Ok::<(), cuda_graph_topology::TopologyError>(())
    /// ```
    pub fn emptied(self) -> Topology {
        let Topology {
            mut names,
            mut kinds,
            mut edges,
            ..
        } = self;
        names.clear();
        kinds.clear();
        edges.clear();
        Topology {
            names,
            kinds,
            edges,
            ..Topology::new()
        }
    }

    /// The room the tables take: node rows (of the larger node table) and edges.
    pub fn capacity(&self) -> (usize, usize) {
        (
            self.names.capacity().max(self.kinds.capacity()),
            self.edges.capacity(),
        )
    }
}
