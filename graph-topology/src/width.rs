//! Capping a graph's width at instantiation.
//!
//! The driver instantiates a graph in time that grows with the square of its width (a root, N
//! independent kernels, a sink: 1000 wide takes 22-32 ms on an H100, 10000 wide 2.5-3 s), and
//! launches a wide graph slower than the same work in a few chains. A graph the race check
//! accepted has no conflicting unordered nodes, so ordering two unordered nodes never changes
//! its results: cuda-graph may add edges the user did not write. [`Topology::cap_width`]
//! chooses them by list scheduling: nodes, in topological order, go onto `lanes` chains, each
//! node after the last node of its lane. A lane whose last node already precedes the node costs
//! no edge (so a chain stays a chain); otherwise an edge is added, never one a path already
//! implies, never one that closes a cycle (it always points forward in the order).

use crate::Topology;

impl Topology {
    /// A cheap estimate of the graph's width: the most nodes on one level (a node's level is
    /// the length of the longest path into it). Exact for fan-outs and layered graphs; it can
    /// only under-estimate (an antichain may span levels).
    pub fn width(&self) -> usize {
        let n = self.len();
        let succ = self.succ();
        let mut level = vec![0usize; n];
        let mut count = vec![0usize; n + 1];
        for v in self.order() {
            let v = v as usize;
            count[level[v]] += 1;
            for &s in &succ[v] {
                level[s as usize] = level[s as usize].max(level[v] + 1);
            }
        }
        count.into_iter().max().unwrap_or(0)
    }

    /// The edges that cap the graph's width at `lanes`, or none when [`width`](Self::width)
    /// is `lanes` or less (a narrower graph is left exactly as written). Nodes for which
    /// `concurrent` is true (host callbacks and event nodes, say) are left out: they get no
    /// edge, in or out, and keep only the user's.
    ///
    /// ```
    /// use cuda_graph_topology::{NodeKind, Topology};
    /// let mut t = Topology::new();
    /// let root = t.add_node("root", NodeKind::Kernel)?;
    /// for i in 0..100 {
    ///     let leaf = t.add_node(&format!("leaf{i}"), NodeKind::Kernel)?;
    ///     t.add_edge(root, leaf)?;
    /// }
    /// let added = t.cap_width(8, &|_| false);
    /// assert_eq!(added.len(), 100 - 8);   // eight chains of leaves
    /// t.set_ordering_edges(added);
    /// assert_eq!(t.capped_width(), 8);
    /// # Ok::<(), cuda_graph_topology::TopologyError>(())
    /// ```
    pub fn cap_width(&self, lanes: usize, concurrent: &dyn Fn(u32) -> bool) -> Vec<(u32, u32)> {
        let n = self.len();
        if lanes == 0 || self.width() <= lanes {
            return Vec::new();
        }
        let words = n.div_ceil(64);
        // Ancestors of each node processed so far, through the user's edges and those added.
        let mut anc = vec![0u64; n * words];
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(a, b) in &self.edges {
            preds[b as usize].push(a);
        }
        let has =
            |anc: &[u64], v: usize, u: u32| anc[v * words + u as usize / 64] >> (u % 64) & 1 == 1;
        let inherit = |anc: &mut [u64], v: usize, p: usize| {
            anc[v * words + p / 64] |= 1 << (p % 64);
            for w in 0..words {
                anc[v * words + w] |= anc[p * words + w];
            }
        };
        let mut last: Vec<Option<u32>> = vec![None; lanes];
        let mut next = 0;
        let mut added = Vec::new();
        for v in self.order() {
            let vi = v as usize;
            for &p in &preds[vi] {
                inherit(&mut anc, vi, p as usize);
            }
            if concurrent(v) {
                continue;
            }
            // A lane that is free, or whose last node already precedes `v`, costs no edge.
            let free = last.iter().position(|l| l.is_none_or(|u| has(&anc, vi, u)));
            let lane = match free {
                Some(lane) => lane,
                None => {
                    // Round robin over the lanes that need an edge.
                    let lane = next % lanes;
                    next += 1;
                    let u = last[lane].expect("every lane is taken");
                    added.push((u, v));
                    inherit(&mut anc, vi, u as usize);
                    lane
                }
            };
            last[lane] = Some(v);
        }
        added
    }

    /// The edges added to cap the width, apart from the user's.
    pub fn ordering_edges(&self) -> &[(u32, u32)] {
        &self.ordering
    }

    /// Records the edges added to cap the width (what [`cap_width`](Self::cap_width) chose,
    /// once the driver graph has them).
    pub fn set_ordering_edges(&mut self, edges: Vec<(u32, u32)>) {
        self.ordering = edges;
    }

    /// Takes the edges added to cap the width out (to remove them from the driver graph).
    pub fn take_ordering_edges(&mut self) -> Vec<(u32, u32)> {
        std::mem::take(&mut self.ordering)
    }

    /// The width (as [`width`](Self::width) estimates it) with the ordering edges counted.
    pub fn capped_width(&self) -> usize {
        let mut t = Topology::new();
        t.names = self.names.clone();
        t.kinds = self.kinds.clone();
        t.edges = self.edges.iter().chain(&self.ordering).copied().collect();
        t.width()
    }
}
