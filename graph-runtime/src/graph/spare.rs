//! The tables of the thread's last dropped template, emptied and kept for its next graph: its
//! node records, its kernel shadows (cache-line aligned, which costs the allocator most) and its
//! topology's node and edge tables. A program that builds graph after graph (a graph per shape,
//! per request) allocates them once per thread; one that builds a single graph allocates them
//! as before. Tables with room for more than [`MAX_NODES`] nodes (or four times as many edges)
//! are not kept, so a thread holds at most about 300 KB this way.
//!
//! Measured on an H200 (`docs/bench/live-edits.md`, tenth section), graphs built and dropped in
//! a loop: a 10-node chain's build spent about 1 us of its own besides the driver's calls; with
//! the tables kept, 0.1-0.4 us.
//! Most of the difference is the allocator's, not the instructions': an aligned allocation
//! splits a chunk, and a large one first merges every small chunk freed since (a user's own
//! code frees many between two builds).

use std::cell::Cell;

use super::Graph;
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
}

thread_local! {
    static SPARE: Cell<Option<Spare>> = const { Cell::new(None) };
}

/// The thread's spare tables, if a graph left some.
#[inline]
pub(super) fn take() -> Option<Spare> {
    SPARE.try_with(Cell::take).ok().flatten()
}

/// A graph's node records, kernel shadows and topology tables go, emptied, to the thread's
/// next graph.
impl Drop for Graph<'_> {
    fn drop(&mut self) {
        keep(&mut self.nodes, &mut self.stores.kernel, &mut self.topo);
    }
}

/// Keeps a dropped graph's tables, emptied, for the thread's next graph (unless they are
/// larger than [`MAX_NODES`] or the thread is ending).
pub(super) fn keep(
    nodes: &mut Vec<NodeRec>,
    kernel: &mut Store<KernelShadow>,
    topo: &mut Topology,
) {
    if nodes.capacity() > MAX_NODES
        || kernel.items.capacity() > MAX_NODES
        || kernel.nodes.capacity() > MAX_NODES
        || topo.capacity().0 > MAX_NODES
        || topo.capacity().1 > 4 * MAX_NODES
    {
        return;
    }
    let mut spare = Spare {
        nodes: std::mem::take(nodes),
        kernel: std::mem::take(kernel),
        topo: std::mem::take(topo).emptied(),
    };
    spare.nodes.clear();
    spare.kernel.truncate(0);
    // A thread being torn down keeps nothing.
    let _ = SPARE.try_with(|s| s.set(Some(spare)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::RawNode;
    use cuda_graph_topology::NodeKind;

    fn tables(n: usize) -> (Vec<NodeRec>, Store<KernelShadow>, Topology) {
        let mut nodes = Vec::with_capacity(n);
        nodes.push(NodeRec::new(RawNode::NULL, 1, 0));
        let mut kernel = Store::new();
        kernel.reserve(n);
        kernel.nodes.push(0);
        let mut topo = Topology::new();
        topo.reserve(n, n);
        let a = topo.add_node("a", NodeKind::Kernel).unwrap();
        let b = topo.add_node("b", NodeKind::Kernel).unwrap();
        topo.add_edge(a, b).unwrap();
        (nodes, kernel, topo)
    }

    /// A dropped graph's tables come back empty, with their room; tables over the limit are
    /// not kept, and what was kept before goes.
    #[test]
    fn tables_come_back_empty_with_their_room_and_large_ones_are_not_kept() {
        let (mut nodes, mut kernel, mut topo) = tables(32);
        keep(&mut nodes, &mut kernel, &mut topo);
        let s = take().expect("kept");
        assert!(s.nodes.is_empty() && s.nodes.capacity() >= 32);
        assert!(s.kernel.items.is_empty() && s.kernel.items.capacity() >= 32);
        assert!(s.kernel.nodes.is_empty() && s.kernel.nodes.capacity() >= 32);
        assert!(s.topo.is_empty() && s.topo.edges().is_empty() && s.topo.find("a").is_none());
        let (n, e) = s.topo.capacity();
        assert!(n >= 32 && e >= 32);
        assert!(take().is_none(), "taken once");

        let (mut nodes, mut kernel, mut topo) = tables(8);
        keep(&mut nodes, &mut kernel, &mut topo);
        let (mut nodes, mut kernel, mut topo) = tables(MAX_NODES + 1);
        keep(&mut nodes, &mut kernel, &mut topo);
        assert_eq!(
            nodes.len(),
            1,
            "tables over the limit stay with their graph"
        );
        let s = take().expect("the smaller tables stay kept");
        assert!(s.nodes.capacity() >= 8 && s.nodes.capacity() <= MAX_NODES);

        // One table over its limit is enough to keep nothing.
        let (mut nodes, mut kernel, mut topo) = tables(8);
        kernel.items.reserve(MAX_NODES + 1);
        keep(&mut nodes, &mut kernel, &mut topo);
        assert!(
            take().is_none() && nodes.len() == 1,
            "a kernel store over the limit"
        );
        let (mut nodes, mut kernel, mut topo) = tables(8);
        topo.reserve(0, 4 * MAX_NODES + 1);
        keep(&mut nodes, &mut kernel, &mut topo);
        assert!(
            take().is_none() && nodes.len() == 1,
            "an edge table over the limit"
        );
    }
}
