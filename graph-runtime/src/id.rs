//! Identities: which graph a handle belongs to, which node it names.

use std::sync::atomic::{AtomicU32, Ordering};

/// Identifies one graph, so a handle from another graph is caught instead of naming a wrong
/// node or buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GraphId(u32);

impl GraphId {
    /// An identity no graph has.
    pub(crate) fn none() -> Self {
        GraphId(0)
    }

    pub(crate) fn next() -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        GraphId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The identity of a node: which graph, which node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
}

impl NodeId {
    /// The node's position in its graph (the order nodes were added).
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// The graph the node belongs to.
    pub fn graph(self) -> GraphId {
        self.graph
    }
}

/// Anything that names a node: a [`NodeId`] or any typed handle. Dependencies are given as
/// `&[&dyn Dep]`, e.g. `&[&load, &clear]`.
pub trait Dep {
    /// The node named.
    fn node_id(&self) -> NodeId;
}

impl Dep for NodeId {
    fn node_id(&self) -> NodeId {
        *self
    }
}
