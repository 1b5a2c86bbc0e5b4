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
//!
//! Once the lanes exist, many of the user's edges are implied by them (a root's edge to every
//! leaf, every leaf's edge to the sink): those are left out of the driver graph while it is
//! capped. The order of the nodes is the same either way; the driver's instantiation cost
//! follows the edges it is given, so this is where the time goes.

use crate::Topology;

/// What capping a graph's width changes (see [`Topology::capping`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capping {
    /// Ordering edges added between nodes the user left unordered.
    pub added: Vec<(u32, u32)>,
    /// User edges that the added ones make redundant.
    pub redundant: Vec<(u32, u32)>,
}

/// The user edges into `v` (from `preds`) that another path already implies: `p -> v` where
/// `p` is an ancestor of another predecessor of `v` (its lane predecessor `lane` included).
fn implied(
    anc: &[u64],
    preds: &[u32],
    lane: Option<u32>,
    v: usize,
    words: usize,
    through: &mut [u64],
) -> Vec<(u32, u32)> {
    if preds.len() + lane.is_some() as usize <= 1 {
        return Vec::new();
    }
    through.fill(0);
    for q in preds.iter().copied().chain(lane) {
        let q = q as usize;
        for w in 0..words {
            through[w] |= anc[q * words + w];
        }
    }
    preds
        .iter()
        .filter(|&&p| through[p as usize / 64] >> (p % 64) & 1 == 1)
        .map(|&p| (p, v as u32))
        .collect()
}

impl Topology {
    /// A cheap estimate of the graph's width: the most nodes on one level (a node's level is
    /// the length of the longest path into it). Exact for fan-outs and layered graphs; it can
    /// only under-estimate (an antichain may span levels).
    pub fn width(&self) -> usize {
        // Kahn's algorithm over a compact successor array (no list per node: this runs before
        // every instantiation, and must cost next to nothing on a narrow graph).
        let n = self.len();
        let mut start = vec![0u32; n + 1];
        let mut indeg = vec![0u32; n];
        for &(a, b) in &self.edges {
            start[a as usize + 1] += 1;
            indeg[b as usize] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut succ = vec![0u32; self.edges.len()];
        for &(a, b) in &self.edges {
            succ[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        let mut level = vec![0u32; n];
        let mut count = vec![0usize; n + 1];
        // Nodes of conditional bodies run in graphs of their own: they do not widen this one.
        let counted = |v: usize| self.scope(v as u32) == 0;
        let mut ready: Vec<u32> = (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
        while let Some(v) = ready.pop() {
            let v = v as usize;
            count[level[v] as usize] += counted(v) as usize;
            for &s in &succ[start[v] as usize..start[v + 1] as usize] {
                let s = s as usize;
                level[s] = level[s].max(level[v] + 1);
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    ready.push(s as u32);
                }
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
        self.capping(lanes, lanes, concurrent).added
    }

    /// What capping the width at `lanes` changes, for a graph wider than `above` (and than
    /// `lanes`): the edges it adds, and the user's edges those make redundant (a path through
    /// other nodes already orders their ends), which the driver graph can leave out. Both empty
    /// for a narrower graph.
    pub fn capping(&self, lanes: usize, above: usize, concurrent: &dyn Fn(u32) -> bool) -> Capping {
        let n = self.len();
        // No graph is wider than it has nodes: a small one needs no look at its levels (this
        // runs before every instantiation).
        if lanes == 0 || n <= lanes.max(above) || self.width() <= lanes.max(above) {
            return Capping::default();
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
        let mut redundant = Vec::new();
        // Ancestors of `v`'s predecessors (not the predecessors themselves): a user edge
        // `p -> v` is implied by another path exactly when `p` is among them.
        let mut through = vec![0u64; words];
        for v in self.order() {
            let vi = v as usize;
            for &p in &preds[vi] {
                inherit(&mut anc, vi, p as usize);
            }
            // Nodes of conditional bodies are never ordered, and their edges stay: their
            // graphs are not this one.
            if self.scope(v) != 0 {
                continue;
            }
            if concurrent(v) {
                redundant.extend(implied(&anc, &preds[vi], None, vi, words, &mut through));
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
            let lane_pred = added.last().filter(|&&(_, b)| b == v).map(|&(a, _)| a);
            redundant.extend(implied(
                &anc,
                &preds[vi],
                lane_pred,
                vi,
                words,
                &mut through,
            ));
        }
        // A programmatic edge says more than order: it stays.
        redundant.retain(|&(a, b)| self.programmatic_port(a, b).is_none());
        Capping { added, redundant }
    }

    /// The edges added to cap the width, apart from the user's.
    pub fn ordering_edges(&self) -> &[(u32, u32)] {
        &self.ordering
    }

    /// The user's edges left out of the driver graph while it is capped (implied by others).
    pub fn left_out_edges(&self) -> &[(u32, u32)] {
        &self.left_out
    }

    /// Records the edges added to cap the width (what [`cap_width`](Self::cap_width) chose,
    /// once the driver graph has them).
    pub fn set_ordering_edges(&mut self, edges: Vec<(u32, u32)>) {
        self.ordering = edges;
    }

    /// Records a capping the driver graph now has: edges added, and user edges left out.
    pub fn set_capping(&mut self, c: Capping) {
        self.ordering = c.added;
        self.left_out = c.redundant;
    }

    /// Takes the edges added to cap the width out (to remove them from the driver graph).
    pub fn take_ordering_edges(&mut self) -> Vec<(u32, u32)> {
        std::mem::take(&mut self.ordering)
    }

    /// Takes the capping out: the edges to remove from the driver graph, and the user's edges
    /// to put back.
    pub fn take_capping(&mut self) -> Capping {
        Capping {
            added: std::mem::take(&mut self.ordering),
            redundant: std::mem::take(&mut self.left_out),
        }
    }

    /// The width (as [`width`](Self::width) estimates it) with the ordering edges counted.
    pub fn capped_width(&self) -> usize {
        let mut t = Topology::new();
        t.names = self.names.clone();
        t.kinds = self.kinds.clone();
        t.scopes = self.scopes.clone();
        t.bodies = self.bodies.clone();
        t.edges = self.edges.iter().chain(&self.ordering).copied().collect();
        t.width()
    }
}
