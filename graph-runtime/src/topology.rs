//! The structure of a graph (node names, kinds, edges) as plain data: no GPU needed.
//!
//! [`Graph`](crate::Graph) keeps one of these beside the driver's graph and checks every edge
//! against it before the driver sees it, so a cycle, a self-edge or a repeated edge is an error
//! naming the nodes, and DOT output uses the names the user wrote.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

use crate::error::BuildError;

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
        }
    }

    fn shape(self) -> &'static str {
        match self {
            NodeKind::Empty => "point",
            NodeKind::Kernel => "box",
            NodeKind::Memset | NodeKind::Memcpy => "parallelogram",
            NodeKind::Host => "ellipse",
            NodeKind::Child => "box3d",
            NodeKind::EventRecord | NodeKind::EventWait => "diamond",
        }
    }
}

/// Node names, kinds and edges of a graph.
///
/// ```
/// use cuda_graph_runtime::{NodeKind, Topology};
/// let mut t = Topology::new();
/// let a = t.add_node("load", NodeKind::Memcpy)?;
/// let b = t.add_node("step", NodeKind::Kernel)?;
/// t.add_edge(a, b)?;
/// assert!(t.add_edge(b, a).is_err()); // would close a cycle
/// assert!(t.to_dot("demo").contains("\"load\" -> \"step\""));
/// # Ok::<(), cuda_graph_runtime::BuildError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Topology {
    names: Vec<NodeName>,
    kinds: Vec<NodeKind>,
    /// Node index by name, built on the first lookup and kept up to date after: a graph whose
    /// names were checked ahead (by `cuda_graph!`, at compile time) never pays for it.
    by_name: OnceLock<HashMap<NodeName, u32, BuildHasherDefault<NameHasher>>>,
    /// Successors of each node, built on the first edge check and kept up to date after.
    succ: OnceLock<Vec<Vec<u32>>>,
    edges: Vec<(u32, u32)>,
}

/// A node's name: borrowed for the program's life (names written in `cuda_graph!`), or shared.
#[derive(Debug, Clone)]
pub(crate) enum NodeName {
    Static(&'static str),
    Shared(Arc<str>),
}

impl std::ops::Deref for NodeName {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            NodeName::Static(s) => s,
            NodeName::Shared(s) => s,
        }
    }
}

impl std::borrow::Borrow<str> for NodeName {
    fn borrow(&self) -> &str {
        self
    }
}

impl PartialEq for NodeName {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for NodeName {}

impl std::hash::Hash for NodeName {
    // As `str` hashes, so lookups by `&str` find it.
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl Topology {
    /// An empty topology.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of nodes.
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
    pub fn add_node(&mut self, name: &str, kind: NodeKind) -> Result<u32, BuildError> {
        if self.find(name).is_some() {
            return Err(BuildError::DuplicateNode {
                name: name.to_owned(),
            });
        }
        Ok(self.add_new_node(NodeName::Shared(Arc::from(name)), kind))
    }

    /// Room for `nodes` more nodes and `edges` more edges.
    pub(crate) fn reserve(&mut self, nodes: usize, edges: usize) {
        self.names.reserve(nodes);
        self.kinds.reserve(nodes);
        self.edges.reserve(edges);
    }

    /// Adds a node whose name the caller checked is not taken.
    pub(crate) fn add_new_node(&mut self, name: NodeName, kind: NodeKind) -> u32 {
        let i = self.names.len() as u32;
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

    /// Adds `from -> to` for each of `from`, where `to` is a node just added (no successors,
    /// so no cycle) and `from` holds no repeats: no checks needed.
    pub(crate) fn add_edges_into_new(&mut self, from: &[u32], to: u32) {
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
    pub fn check_edge(&self, from: u32, to: u32) -> Result<(), BuildError> {
        let n = self.names.len() as u32;
        assert!(from < n && to < n, "node index out of range");
        if from == to {
            return Err(BuildError::SelfEdge {
                node: self.names[from as usize].to_string(),
            });
        }
        if self.succ()[from as usize].contains(&to) {
            return Err(BuildError::DuplicateEdge {
                from: self.names[from as usize].to_string(),
                to: self.names[to as usize].to_string(),
            });
        }
        if let Some(path) = self.path(to, from) {
            let mut text = self.names[from as usize].to_string();
            for i in path {
                text.push_str(" -> ");
                text.push_str(&self.names[i as usize]);
            }
            return Err(BuildError::Cycle {
                from: self.names[from as usize].to_string(),
                to: self.names[to as usize].to_string(),
                path: text,
            });
        }
        Ok(())
    }

    /// Adds the edge `from -> to` after [`check_edge`](Self::check_edge).
    pub fn add_edge(&mut self, from: u32, to: u32) -> Result<(), BuildError> {
        self.check_edge(from, to)?;
        if let Some(succ) = self.succ.get_mut() {
            succ[from as usize].push(to);
        }
        self.edges.push((from, to));
        Ok(())
    }

    /// Removes the edge `from -> to`.
    pub fn remove_edge(&mut self, from: u32, to: u32) -> Result<(), BuildError> {
        let Some(pos) = self.edges.iter().position(|&e| e == (from, to)) else {
            return Err(BuildError::NoSuchEdge {
                from: self.names[from as usize].to_string(),
                to: self.names[to as usize].to_string(),
            });
        };
        self.edges.remove(pos);
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
        let (mut a, mut b) = (self.edges.clone(), other.edges.clone());
        a.sort_unstable();
        b.sort_unstable();
        (a != b).then(|| "its edges differ".to_owned())
    }

    /// A path `start, ..., goal` along edges, if there is one.
    fn path(&self, start: u32, goal: u32) -> Option<Vec<u32>> {
        let mut parent = vec![u32::MAX; self.names.len()];
        let mut stack = vec![start];
        parent[start as usize] = start;
        while let Some(v) = stack.pop() {
            if v == goal {
                let mut path = vec![v];
                let mut c = v;
                while c != start {
                    c = parent[c as usize];
                    path.push(c);
                }
                path.reverse();
                return Some(path);
            }
            for &s in &self.succ()[v as usize] {
                if parent[s as usize] == u32::MAX {
                    parent[s as usize] = v;
                    stack.push(s);
                }
            }
        }
        None
    }

    /// The graph as DOT text, nodes labelled with their names and kinds.
    pub fn to_dot(&self, graph_name: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "digraph {} {{", quote(graph_name));
        let _ = writeln!(s, "  rankdir=TB;");
        for (name, kind) in self.names.iter().zip(&self.kinds) {
            let _ = writeln!(
                s,
                "  {} [label={}, shape={}];",
                quote(name),
                quote(&format!("{}\\n{}", &**name, kind.as_str())),
                kind.shape()
            );
        }
        for &(a, b) in &self.edges {
            let _ = writeln!(
                s,
                "  {} -> {};",
                quote(&self.names[a as usize]),
                quote(&self.names[b as usize])
            );
        }
        s.push_str("}\n");
        s
    }
}

fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

/// A fast hash for node names (multiply-rotate over 8-byte words). Names come from the program,
/// not from an adversary, so the default hasher's protection against crafted collisions buys
/// nothing here, and it costs a large share of adding a node.
#[derive(Default)]
pub(crate) struct NameHasher(u64);

impl NameHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, b: u8) {
        self.mix(b as u64);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> Topology {
        let mut t = Topology::new();
        for i in 0..n {
            t.add_node(&format!("n{i}"), NodeKind::Kernel).unwrap();
        }
        for i in 1..n as u32 {
            t.add_edge(i - 1, i).unwrap();
        }
        t
    }

    #[test]
    fn rejects_cycle_and_prints_its_path() {
        let mut t = chain(3);
        let e = t.add_edge(2, 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the edge `n2 -> n0` would close a cycle: n2 -> n0 -> n1 -> n2"
        );
        assert_eq!(t.edges().len(), 2);
    }

    #[test]
    fn rejects_self_edge_duplicate_edge_and_duplicate_name() {
        let mut t = chain(2);
        assert!(matches!(t.add_edge(1, 1), Err(BuildError::SelfEdge { node }) if node == "n1"));
        assert!(matches!(
            t.add_edge(0, 1),
            Err(BuildError::DuplicateEdge { .. })
        ));
        assert!(matches!(
            t.add_node("n0", NodeKind::Host),
            Err(BuildError::DuplicateNode { name }) if name == "n0"
        ));
    }

    #[test]
    fn remove_edge_then_reverse_is_allowed() {
        let mut t = chain(2);
        t.remove_edge(0, 1).unwrap();
        t.add_edge(1, 0).unwrap();
        assert_eq!(t.edges(), &[(1, 0)]);
        assert!(matches!(
            t.remove_edge(0, 1),
            Err(BuildError::NoSuchEdge { .. })
        ));
    }

    #[test]
    fn dot_uses_names_and_escapes_quotes() {
        let mut t = Topology::new();
        let a = t.add_node("say \"hi\"", NodeKind::Host).unwrap();
        let b = t.add_node("step", NodeKind::Kernel).unwrap();
        t.add_edge(a, b).unwrap();
        assert_eq!(
            t.to_dot("g"),
            "digraph \"g\" {\n  rankdir=TB;\n  \"say \\\"hi\\\"\" [label=\"say \\\"hi\\\"\\nhost\", shape=ellipse];\n  \"step\" [label=\"step\\nkernel\", shape=box];\n  \"say \\\"hi\\\"\" -> \"step\";\n}\n"
        );
    }

    #[test]
    fn lookups_and_edge_checks_built_late_see_every_node_and_edge() {
        // Nodes and edges added the way `cuda_graph!` adds them: no lookup, no edge check.
        let mut t = Topology::new();
        for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
            let deps: Vec<u32> = (0..i as u32).collect();
            let n = t.add_new_node(NodeName::Static(name), NodeKind::Kernel);
            t.add_edges_into_new(&deps, n);
        }
        assert_eq!(
            (t.find("a"), t.find("c"), t.find("d")),
            (Some(0), Some(2), None)
        );
        assert!(matches!(
            t.add_node("b", NodeKind::Empty),
            Err(BuildError::DuplicateNode { .. })
        ));
        // The first edge check builds the successor lists from the edges so far.
        assert!(matches!(t.add_edge(2, 0), Err(BuildError::Cycle { .. })));
        assert!(matches!(
            t.add_edge(0, 1),
            Err(BuildError::DuplicateEdge { .. })
        ));
        // Both stay up to date once built.
        let d = t.add_node("d", NodeKind::Empty).unwrap();
        t.add_edges_into_new(&[2], d);
        assert_eq!(t.find("d"), Some(3));
        assert!(matches!(t.add_edge(3, 0), Err(BuildError::Cycle { .. })));
        t.add_edge(1, 3).unwrap();
        assert_eq!(t.edges().len(), 5);
    }
}
