//! Whether some nodes of a graph run in one sequence in every execution: what NCCL needs of
//! the collectives on one communicator, which every rank must issue in the same order (two of
//! them that a rank may start in either order can make two ranks wait for each other forever).
//!
//! A set of nodes runs in one sequence exactly when every two of them are joined by a path: if
//! two are not, some topological order puts either first (take an order with `a` before `b`;
//! moving `b` with everything it needs ahead of `a`, and nothing that needs `a`, gives another),
//! and if all pairs are, reachability orders the set totally. `tests/order.rs` checks this
//! against every topological order of small graphs.

use crate::{Reach, Topology};

impl Topology {
    /// The pairs of `nodes` that no path orders, each as `(a, b)` with `a` listed before `b` in
    /// `nodes` (sorted by `a`'s place there, then `b`'s); empty exactly when every execution reaches `nodes` in one
    /// sequence. `reach` is [`reach`](Self::reach) of this topology.
    ///
    /// Nodes in different scopes are compared through the nodes that hold them in their
    /// closest common scope. Two nodes in bodies of one conditional, or one in a body of the
    /// other, count as unordered: a condition decides which of them runs, and when.
    ///
    /// ```
    /// use cuda_graph_topology::{NodeKind, Topology};
    /// let mut t = Topology::new();
    /// let [a, b, c] = ["a", "b", "c"].map(|n| t.add_node(n, NodeKind::Captured).unwrap());
    /// t.add_edge(a, b)?;
    /// let r = t.reach();
    /// assert!(t.unordered_pairs(&r, &[a, b]).is_empty());
    /// assert_eq!(t.unordered_pairs(&r, &[a, b, c]), vec![(a, c), (b, c)]);
    /// # Ok::<(), cuda_graph_topology::TopologyError>(())
    /// ```
    pub fn unordered_pairs(&self, reach: &Reach, nodes: &[u32]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (k, &a) in nodes.iter().enumerate() {
            for &b in &nodes[k + 1..] {
                let ordered = match self.meeting(a, b) {
                    Some((x, y)) => reach.ordered(x, y),
                    // A node listed twice is one node.
                    None => a == b,
                };
                if !ordered {
                    out.push((a, b));
                }
            }
        }
        out
    }
}
