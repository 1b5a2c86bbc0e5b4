//! The structure of a cuda-graph graph (node names, kinds, edges) as plain data: no GPU, no
//! dependency. Both halves of cuda-graph use it, so a graph is checked, ordered and drawn the
//! same way whether it is built at run time or declared in `cuda_graph!`:
//!
//! - the runtime's `Graph` keeps one beside the driver's graph and checks every edge against
//!   it before the driver sees it;
//! - the macro builds one from the declared nodes and edges, and reports what
//!   [`Topology::check_edge`] finds at the offending token; its DOT text, computed at compile
//!   time, comes from [`Topology::to_dot`].

#![deny(missing_docs)]

mod dot;
mod names;
mod order;
mod programmatic;
mod reach;
mod room;
mod scope;
mod width;

pub use names::{NameHasher, NodeName};
pub use programmatic::Port;
pub use reach::Reach;
pub use room::room;
pub use width::Capping;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, OnceLock};

/// What a node does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NodeKind {
    /// No work; orders its dependencies before its dependents.
    Empty,
    /// A kernel launch.
    Kernel,
    /// A memset.
    Memset,
    /// A 1-D memcpy.
    Memcpy,
    /// A host callback.
    Host,
    /// A child graph.
    Child,
    /// An event record.
    EventRecord,
    /// An event wait.
    EventWait,
    /// A conditional node (IF, IF/ELSE, WHILE, SWITCH) running one of its bodies.
    Conditional,
    /// An allocation of graph-owned memory.
    MemAlloc,
    /// A free of graph-owned memory.
    MemFree,
    /// Work captured from a stream (a library call), run as a child graph.
    Captured,
    /// A block of nodes written once and run `n` times in order (`cuda_graph!`'s `repeat`):
    /// how the macro sees the block; the driver graph holds each iteration's nodes instead.
    Repeat,
}

impl NodeKind {
    /// The kind's name as DOT output shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Empty => "empty",
            NodeKind::Kernel => "kernel",
            NodeKind::Memset => "memset",
            NodeKind::Memcpy => "memcpy",
            NodeKind::Host => "host",
            NodeKind::Child => "child graph",
            NodeKind::EventRecord => "event record",
            NodeKind::EventWait => "event wait",
            NodeKind::Conditional => "conditional",
            NodeKind::MemAlloc => "mem alloc",
            NodeKind::MemFree => "mem free",
            NodeKind::Captured => "captured",
            NodeKind::Repeat => "repeat",
        }
    }

    /// Whether CUDA runs this kind inside a conditional node's body (host and event nodes
    /// cannot go there).
    pub fn runs_in_body(self) -> bool {
        !matches!(
            self,
            NodeKind::Host | NodeKind::EventRecord | NodeKind::EventWait
        )
    }

    /// Whether the node orders work with the host or another stream (a host callback, an
    /// event), so width capping leaves it where it is.
    pub fn meets_outside(self) -> bool {
        matches!(
            self,
            NodeKind::Host | NodeKind::EventRecord | NodeKind::EventWait
        )
    }

    pub(crate) fn shape(self) -> &'static str {
        match self {
            NodeKind::Empty => "point",
            NodeKind::Kernel => "box",
            NodeKind::Memset | NodeKind::Memcpy => "parallelogram",
            NodeKind::Host => "ellipse",
            NodeKind::Child => "box3d",
            NodeKind::EventRecord | NodeKind::EventWait => "diamond",
            NodeKind::Conditional => "hexagon",
            NodeKind::MemAlloc => "invtrapezium",
            NodeKind::MemFree => "trapezium",
            NodeKind::Captured => "box3d",
            NodeKind::Repeat => "doubleoctagon",
        }
    }
}

/// Why a node or edge cannot be added (or removed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TopologyError {
    /// Two nodes of one graph were given the same name.
    #[error("a node named `{name}` already exists in this graph; node names must be unique")]
    DuplicateNode {
        /// The repeated name.
        name: String,
    },
    /// The edge would close a cycle.
    #[error("the edge `{from} -> {to}` would close a cycle: {path}")]
    Cycle {
        /// Source node of the rejected edge.
        from: String,
        /// Target node of the rejected edge.
        to: String,
        /// The cycle, as `a -> b -> a`.
        path: String,
        /// The cycle as node indices, `from` first and last.
        nodes: Vec<u32>,
    },
    /// The edge exists already.
    #[error("the edge `{from} -> {to}` exists already")]
    DuplicateEdge {
        /// Source node.
        from: String,
        /// Target node.
        to: String,
    },
    /// The edge to remove does not exist.
    #[error("there is no edge `{from} -> {to}` to remove")]
    NoSuchEdge {
        /// Source node.
        from: String,
        /// Target node.
        to: String,
    },
    /// A programmatic edge whose ends are not both kernels.
    #[error("the edge `{from}` -> `{to}` cannot be programmatic: `{node}` is not a kernel (programmatic dependent launch is between kernels)")]
    NotKernels {
        /// Source node.
        from: String,
        /// Target node.
        to: String,
        /// The end that is not a kernel.
        node: String,
    },
    /// An edge between nodes of different scopes (a conditional body and what is outside it).
    #[error(
        "the edge `{from} -> {to}` crosses the boundary of a conditional body: `{from}` is in \
         {from_scope}, `{to}` in {to_scope}; order work outside a body with an edge to or from \
         the conditional node"
    )]
    CrossScope {
        /// Source node.
        from: String,
        /// Target node.
        to: String,
        /// Where the source is.
        from_scope: String,
        /// Where the target is.
        to_scope: String,
    },
    /// A carry edge whose ends are not both in the body of one repeat block.
    #[error("the carry edge `{from} -> {to}` must join two nodes of one repeat block's body")]
    CarryOutsideRepeat {
        /// Source node.
        from: String,
        /// Target node.
        to: String,
    },
    /// A node cannot depend on itself.
    #[error("node `{node}` cannot depend on itself")]
    SelfEdge {
        /// The node.
        node: String,
    },
}

/// Node names, kinds and edges of a graph.
///
/// ```
/// use cuda_graph_topology::{NodeKind, Topology};
/// let mut t = Topology::new();
/// let a = t.add_node("load", NodeKind::Memcpy)?;
/// let b = t.add_node("step", NodeKind::Kernel)?;
/// t.add_edge(a, b)?;
/// assert!(t.add_edge(b, a).is_err()); // would close a cycle
/// assert!(t.to_dot("demo").contains("\"load\" -> \"step\""));
/// # Ok::<(), cuda_graph_topology::TopologyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Topology {
    names: Vec<NodeName>,
    kinds: Vec<NodeKind>,
    /// Node index by name, built on the first lookup and kept up to date after: a graph whose
    /// names were checked ahead (by `cuda_graph!`, at compile time) never pays for it.
    by_name: OnceLock<HashMap<NodeName, u32, BuildHasherDefault<NameHasher>>>,
    /// Successors of each node, built on the first edge check and kept up to date after.
    succ: OnceLock<Vec<Vec<u32>>>,
    edges: Vec<(u32, u32)>,
    /// Edges added to cap the graph's width (see [`Topology::cap_width`]), apart from the
    /// user's: not in `edges`, `succ` or the checks, drawn dashed.
    ordering: Vec<(u32, u32)>,
    /// User edges the capping makes redundant, left out of the driver graph while capped.
    left_out: Vec<(u32, u32)>,
    /// Edges of `edges` that are programmatic (see `programmatic.rs`), with their port.
    programmatic: Vec<(u32, u32, Port)>,
    /// The scope of each node (see `scope.rs`); empty while every node is in scope 0.
    scopes: Vec<u32>,
    /// Conditional bodies and repeat blocks' bodies: scope `k` is `bodies[k - 1]`.
    bodies: Vec<scope::Body>,
    /// Carry edges of repeat blocks (see [`Topology::add_carry`]): drawn, not in `edges`.
    carries: Vec<(u32, u32)>,
}

impl Default for Topology {
    fn default() -> Self {
        Self::new()
    }
}

impl Topology {
    /// An empty topology.
    #[inline]
    pub const fn new() -> Self {
        Topology {
            names: Vec::new(),
            kinds: Vec::new(),
            by_name: OnceLock::new(),
            succ: OnceLock::new(),
            edges: Vec::new(),
            ordering: Vec::new(),
            left_out: Vec::new(),
            programmatic: Vec::new(),
            scopes: Vec::new(),
            bodies: Vec::new(),
            carries: Vec::new(),
        }
    }

    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of node `i`.
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }

    /// The kind of node `i`.
    pub fn kind(&self, i: u32) -> NodeKind {
        self.kinds[i as usize]
    }

    /// The node called `name`.
    pub fn find(&self, name: &str) -> Option<u32> {
        let map = self.by_name.get_or_init(|| {
            let mut m = HashMap::with_capacity_and_hasher(self.names.len(), Default::default());
            for (i, n) in self.names.iter().enumerate() {
                m.insert(n.clone(), i as u32);
            }
            m
        });
        map.get(name).copied()
    }

    fn succ(&self) -> &Vec<Vec<u32>> {
        self.succ.get_or_init(|| {
            let mut succ = vec![Vec::new(); self.names.len()];
            for &(a, b) in &self.edges {
                succ[a as usize].push(b);
            }
            succ
        })
    }

    /// Edges in the order they were added.
    pub fn edges(&self) -> &[(u32, u32)] {
        &self.edges
    }

    /// Adds a node; its index is returned. Names must be unique.
    pub fn add_node(&mut self, name: &str, kind: NodeKind) -> Result<u32, TopologyError> {
        if self.find(name).is_some() {
            return Err(TopologyError::DuplicateNode {
                name: name.to_owned(),
            });
        }
        Ok(self.add_new_node(NodeName::Shared(Arc::from(name)), kind))
    }

    /// Room for `nodes` more nodes and `edges` more edges.
    pub fn reserve(&mut self, nodes: usize, edges: usize) {
        room(&mut self.names, nodes);
        room(&mut self.kinds, nodes);
        room(&mut self.edges, edges);
    }

    /// Adds a node to scope `scope` (see [`add_body`](Self::add_body)); its index is returned.
    pub fn add_node_in(
        &mut self,
        name: &str,
        kind: NodeKind,
        scope: u32,
    ) -> Result<u32, TopologyError> {
        if self.find(name).is_some() {
            return Err(TopologyError::DuplicateNode {
                name: name.to_owned(),
            });
        }
        Ok(self.add_new_node_in(NodeName::Shared(Arc::from(name)), kind, scope))
    }

    /// Adds a node whose name the caller checked is not taken.
    #[doc(hidden)]
    pub fn add_new_node(&mut self, name: NodeName, kind: NodeKind) -> u32 {
        self.add_new_node_in(name, kind, 0)
    }

    /// Adds a node, in scope `scope`, whose name the caller checked is not taken.
    #[doc(hidden)]
    #[inline]
    pub fn add_new_node_in(&mut self, name: NodeName, kind: NodeKind, scope: u32) -> u32 {
        let i = self.names.len() as u32;
        self.put_in_scope(i, scope);
        if let Some(map) = self.by_name.get_mut() {
            debug_assert!(!map.contains_key(&*name));
            map.insert(name.clone(), i);
        }
        if let Some(succ) = self.succ.get_mut() {
            succ.push(Vec::new());
        }
        self.names.push(name);
        self.kinds.push(kind);
        i
    }

    /// Adds a node of kind `kind` in scope `scope` for each of `rows` (its name, which the
    /// caller checked is not taken, and the nodes it follows: nodes added before it, none
    /// twice), with an edge from each of those; the first one's index is returned. What
    /// [`add_new_node_in`](Self::add_new_node_in) and
    /// [`add_edges_into_new`](Self::add_edges_into_new) do row by row, with the tables grown
    /// once.
    #[doc(hidden)]
    pub fn add_new_nodes_in(
        &mut self,
        rows: &[(&'static str, &[u32])],
        kind: NodeKind,
        scope: u32,
    ) -> u32 {
        let first = self.names.len() as u32;
        debug_assert!(rows
            .iter()
            .enumerate()
            .all(|(j, (_, deps))| deps.iter().all(|&d| d < first + j as u32)));
        if scope != 0 || self.by_name.get().is_some() {
            // Rare: a body, or an index built by a lookup. Row by row.
            for (j, &(name, deps)) in rows.iter().enumerate() {
                let i = self.add_new_node_in(NodeName::Static(name), kind, scope);
                debug_assert_eq!(i, first + j as u32);
                self.add_edges_into_new(deps, i);
            }
            return first;
        }
        self.names
            .extend(rows.iter().map(|&(name, _)| NodeName::Static(name)));
        self.kinds.extend(std::iter::repeat_n(kind, rows.len()));
        if !self.scopes.is_empty() {
            // Bodies hold nodes: every node's scope is kept, these in scope 0.
            self.scopes.resize(self.names.len(), 0);
        }
        let edges: usize = rows.iter().map(|(_, deps)| deps.len()).sum();
        self.edges.reserve(edges);
        for (j, &(_, deps)) in rows.iter().enumerate() {
            let to = first + j as u32;
            self.edges.extend(deps.iter().map(|&f| (f, to)));
        }
        if let Some(succ) = self.succ.get_mut() {
            succ.resize(self.names.len(), Vec::new());
            for (j, &(_, deps)) in rows.iter().enumerate() {
                for &f in deps {
                    succ[f as usize].push(first + j as u32);
                }
            }
        }
        first
    }

    /// Adds `from -> to` for each of `from`, where `to` is a node just added (no successors,
    /// so no cycle) and `from` holds no repeats: no checks needed.
    #[doc(hidden)]
    #[inline]
    pub fn add_edges_into_new(&mut self, from: &[u32], to: u32) {
        if let Some(succ) = self.succ.get_mut() {
            debug_assert!(succ[to as usize].is_empty());
            for &f in from {
                succ[f as usize].push(to);
            }
        }
        self.edges.extend(from.iter().map(|&f| (f, to)));
    }

    /// Checks that `from -> to` can be added: both exist, it is no self-edge, no repeat, and it
    /// closes no cycle.
    pub fn check_edge(&self, from: u32, to: u32) -> Result<(), TopologyError> {
        let n = self.names.len() as u32;
        assert!(from < n && to < n, "node index out of range");
        if from == to {
            return Err(TopologyError::SelfEdge {
                node: self.names[from as usize].to_string(),
            });
        }
        self.check_scope(from, to)?;
        if self.succ()[from as usize].contains(&to) {
            return Err(TopologyError::DuplicateEdge {
                from: self.names[from as usize].to_string(),
                to: self.names[to as usize].to_string(),
            });
        }
        if let Some(path) = self.path(to, from) {
            let mut text = self.names[from as usize].to_string();
            for &i in &path {
                text.push_str(" -> ");
                text.push_str(&self.names[i as usize]);
            }
            let mut nodes = vec![from];
            nodes.extend(path);
            return Err(TopologyError::Cycle {
                from: self.names[from as usize].to_string(),
                to: self.names[to as usize].to_string(),
                path: text,
                nodes,
            });
        }
        Ok(())
    }

    /// Adds the edge `from -> to` after [`check_edge`](Self::check_edge).
    pub fn add_edge(&mut self, from: u32, to: u32) -> Result<(), TopologyError> {
        self.check_edge(from, to)?;
        if let Some(succ) = self.succ.get_mut() {
            succ[from as usize].push(to);
        }
        self.edges.push((from, to));
        Ok(())
    }

    /// Removes the edge `from -> to`.
    pub fn remove_edge(&mut self, from: u32, to: u32) -> Result<(), TopologyError> {
        let Some(pos) = self.edges.iter().position(|&e| e == (from, to)) else {
            return Err(TopologyError::NoSuchEdge {
                from: self.names[from as usize].to_string(),
                to: self.names[to as usize].to_string(),
            });
        };
        self.edges.remove(pos);
        self.programmatic.retain(|&(a, b, _)| (a, b) != (from, to));
        if let Some(succ) = self.succ.get_mut() {
            succ[from as usize].retain(|&s| s != to);
        }
        Ok(())
    }

    /// Why `other` does not have the same shape as this topology (node kinds in order, and
    /// edges), or `None` if it does. Names do not matter.
    pub fn differs_from(&self, other: &Topology) -> Option<String> {
        if self.len() != other.len() {
            return Some(format!("{} nodes instead of {}", other.len(), self.len()));
        }
        if let Some(i) = (0..self.kinds.len()).find(|&i| self.kinds[i] != other.kinds[i]) {
            return Some(format!(
                "node {i} is a {} instead of a {}",
                other.kinds[i].as_str(),
                self.kinds[i].as_str()
            ));
        }
        if let Some(i) = (0..self.len() as u32).find(|&i| self.scope(i) != other.scope(i)) {
            return Some(format!("node {i} is in another conditional body"));
        }
        let (mut a, mut b) = (self.edges.clone(), other.edges.clone());
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            return Some("its edges differ".to_owned());
        }
        let (mut a, mut b) = (self.programmatic.clone(), other.programmatic.clone());
        a.sort_unstable();
        b.sort_unstable();
        (a != b).then(|| "its programmatic edges differ".to_owned())
    }

    /// A path `start, ..., goal` along edges, if there is one. Costs only what it visits.
    fn path(&self, start: u32, goal: u32) -> Option<Vec<u32>> {
        let mut parent: HashMap<u32, u32, BuildHasherDefault<NameHasher>> = HashMap::default();
        parent.insert(start, start);
        let mut stack = vec![start];
        while let Some(v) = stack.pop() {
            if v == goal {
                let mut path = vec![v];
                let mut c = v;
                while c != start {
                    c = parent[&c];
                    path.push(c);
                }
                path.reverse();
                return Some(path);
            }
            for &s in &self.succ()[v as usize] {
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(s) {
                    e.insert(v);
                    stack.push(s);
                }
            }
        }
        None
    }

    /// The successors of node `i`.
    pub fn successors(&self, i: u32) -> &[u32] {
        &self.succ()[i as usize]
    }

    /// The nodes in an order where each comes after its dependencies; among nodes ready at the
    /// same time, the one added first comes first.
    pub fn order(&self) -> Vec<u32> {
        let n = self.names.len();
        let mut indeg = vec![0usize; n];
        for &(_, b) in &self.edges {
            indeg[b as usize] += 1;
        }
        let succ = self.succ();
        let mut ready: std::collections::BTreeSet<u32> =
            (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
        let mut out = Vec::with_capacity(n);
        while let Some(v) = ready.pop_first() {
            out.push(v);
            for &s in &succ[v as usize] {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    ready.insert(s);
                }
            }
        }
        out
    }

    /// Which nodes reach which.
    pub fn reach(&self) -> Reach {
        Reach::new(self)
    }
}
