//! The tables of the thread's last dropped template, emptied and kept for its next graph: its
//! node records, its kernel shadows (cache-line aligned, which costs the allocator most), its
//! topology's node and edge tables, and its scratch lists of a node's dependencies. A program that builds graph after graph (a graph per shape,
//! per request) allocates them once per thread; one that builds a single graph allocates them
//! as before. Tables with room for more than [`MAX_NODES`] nodes (or four times as many edges
//! or dependencies) are not kept, so a thread holds at most about 350 KB this way.
//!
//! Measured on an H200 (`docs/bench/live-edits.md`), graphs built
//! and dropped in a loop: a 10-node chain's build spent about 1 us of its own besides the
//! driver's calls; with the tables kept, 0.1-0.4 us.
//! Most of the difference is the allocator's, not the instructions': an aligned allocation
//! splits a chunk, and a large one first merges every small chunk freed since (a user's own
//! code frees many between two builds).
//!
//! An executable graph's copy of its template's kernel shadows is kept the same way, apart, for
//! the thread's next instantiation.

use std::cell::Cell;

use super::Graph;
use crate::driver::RawNode;
use crate::kinds::kernel::KernelShadow;
use crate::kinds::{NodeRec, Store};
use cuda_graph_topology::Topology;

/// The most nodes (and kernel shadows) a kept set of tables has room for: about 250 bytes each.
pub(super) const MAX_NODES: usize = 1024;

/// Emptied tables with room (or none: a graph's first tables).
#[derive(Default)]
pub(super) struct Spare {
    pub nodes: Vec<NodeRec>,
    pub kernel: Store<KernelShadow>,
    pub topo: Topology,
    /// A node's dependencies as indices, and as driver nodes when there are many (a fan-in).
    pub deps: Vec<u32>,
    pub raw_deps: Vec<RawNode>,
}

impl Spare {
    /// Whether every table is small enough to keep.
    fn within_limits(&self) -> bool {
        let (nodes, edges) = self.topo.capacity();
        self.nodes.capacity() <= MAX_NODES
            && self.kernel.items.capacity() <= MAX_NODES
            && nodes <= MAX_NODES
            && edges <= 4 * MAX_NODES
            && self.deps.capacity() <= 4 * MAX_NODES
            && self.raw_deps.capacity() <= 4 * MAX_NODES
    }
}

thread_local! {
    static SPARE: Cell<Option<Spare>> = const { Cell::new(None) };
    /// The kernel shadows of the thread's last dropped executable graph, emptied: the room its
    /// next instantiation copies the template's into.
    static SPARE_COPY: Cell<Option<Store<KernelShadow>>> = const { Cell::new(None) };
}

/// Room for an executable graph's copy of its template's kernel shadows: the thread's last
/// dropped executable graph's, or none yet. Copied into with `clone_from`, it costs no
/// allocation (a cache-line aligned one is the allocator's dearest) when the graphs are alike.
#[inline]
pub(crate) fn take_copy() -> Store<KernelShadow> {
    SPARE_COPY
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Keeps a dropped executable graph's kernel shadows, emptied, for the thread's next
/// instantiation (unless the store has room for more than [`MAX_NODES`], or the thread is
/// ending).
pub(crate) fn keep_copy(mut kernel: Store<KernelShadow>) {
    if kernel.items.capacity() > MAX_NODES {
        return;
    }
    kernel.truncate(0);
    let _ = SPARE_COPY.try_with(|s| s.set(Some(kernel)));
}

/// The thread's spare tables, if a graph left some.
#[inline]
pub(super) fn take() -> Option<Spare> {
    SPARE.try_with(Cell::take).ok().flatten()
}

/// A graph's node records, kernel shadows, topology tables and scratch lists go, emptied, to
/// the thread's next graph.
impl Drop for Graph<'_> {
    fn drop(&mut self) {
        keep(Spare {
            nodes: std::mem::take(&mut self.nodes),
            kernel: std::mem::take(&mut self.stores.kernel),
            topo: std::mem::take(&mut self.topo),
            deps: std::mem::take(&mut self.deps),
            raw_deps: std::mem::take(&mut self.raw_deps),
        });
    }
}

/// Keeps a dropped graph's tables, emptied, for the thread's next graph (unless one is larger
/// than its limit, see [`MAX_NODES`], or the thread is ending).
pub(super) fn keep(mut spare: Spare) {
    if !spare.within_limits() {
        return;
    }
    spare.nodes.clear();
    spare.kernel.truncate(0);
    spare.topo = spare.topo.emptied();
    spare.deps.clear();
    spare.raw_deps.clear();
    // A thread being torn down keeps nothing.
    let _ = SPARE.try_with(|s| s.set(Some(spare)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::RawNode;
    use cuda_graph_topology::NodeKind;

    fn tables(n: usize) -> Spare {
        let mut nodes = Vec::with_capacity(n);
        nodes.push(NodeRec::new(RawNode::NULL, 1, 0));
        let mut kernel = Store::new();
        kernel.reserve(n);
        let mut topo = Topology::new();
        topo.reserve(n, n);
        let a = topo.add_node("a", NodeKind::Kernel).unwrap();
        let b = topo.add_node("b", NodeKind::Kernel).unwrap();
        topo.add_edge(a, b).unwrap();
        let mut deps = Vec::with_capacity(n);
        deps.push(0);
        let mut raw_deps = Vec::with_capacity(n);
        raw_deps.push(RawNode::NULL);
        Spare {
            nodes,
            kernel,
            topo,
            deps,
            raw_deps,
        }
    }

    /// A dropped graph's tables come back empty, with their room; tables over the limit are
    /// not kept, and what was kept before goes.
    #[test]
    fn tables_come_back_empty_with_their_room_and_large_ones_are_not_kept() {
        keep(tables(32));
        let s = take().expect("kept");
        assert!(s.nodes.is_empty() && s.nodes.capacity() >= 32);
        assert!(s.kernel.items.is_empty() && s.kernel.items.capacity() >= 32);
        assert!(s.topo.is_empty() && s.topo.edges().is_empty() && s.topo.find("a").is_none());
        let (n, e) = s.topo.capacity();
        assert!(n >= 32 && e >= 32);
        assert!(s.deps.is_empty() && s.deps.capacity() >= 32);
        assert!(s.raw_deps.is_empty() && s.raw_deps.capacity() >= 32);
        assert!(take().is_none(), "taken once");

        keep(tables(8));
        keep(tables(MAX_NODES + 1));
        let s = take().expect("the smaller tables stay kept");
        assert!(s.nodes.capacity() >= 8 && s.nodes.capacity() <= MAX_NODES);

        // One table over its limit is enough to keep nothing.
        type Grow = fn(&mut Spare);
        let over: [(&str, Grow); 6] = [
            ("a node table", |s| s.nodes.reserve(MAX_NODES + 1)),
            ("a kernel store", |s| s.kernel.items.reserve(MAX_NODES + 1)),
            ("a topology's names", |s| s.topo.reserve(MAX_NODES + 1, 0)),
            ("an edge table", |s| s.topo.reserve(0, 4 * MAX_NODES + 1)),
            ("a dependency list", |s| s.deps.reserve(4 * MAX_NODES + 1)),
            ("a driver dependency list", |s| {
                s.raw_deps.reserve(4 * MAX_NODES + 1)
            }),
        ];
        for (what, grow) in over {
            let mut s = tables(8);
            grow(&mut s);
            keep(s);
            assert!(take().is_none(), "{what} over the limit");
        }
        let mut s = tables(8);
        s.deps.reserve(4 * MAX_NODES - 8);
        keep(s);
        assert!(take().is_some(), "a long dependency list within the limit");
    }

    /// An executable graph's copy of the kernel shadows comes back with its room, once; a
    /// store with room for more than the limit is not kept.
    #[test]
    fn an_executable_graphs_kernel_copy_comes_back_empty_once() {
        // Whatever an earlier test on this thread left goes first.
        drop(take_copy());
        assert_eq!(
            take_copy().items.capacity(),
            0,
            "nothing kept: an empty store"
        );
        let mut k: Store<KernelShadow> = Store::new();
        k.reserve(16);
        keep_copy(k);
        let back = take_copy();
        assert!(back.items.is_empty() && back.items.capacity() >= 16);
        assert_eq!(take_copy().items.capacity(), 0, "taken once");

        let mut big: Store<KernelShadow> = Store::new();
        big.reserve(MAX_NODES + 1);
        keep_copy(big);
        assert_eq!(take_copy().items.capacity(), 0, "over the limit: not kept");
    }
}
