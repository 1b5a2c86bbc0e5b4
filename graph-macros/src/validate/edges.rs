//! Graph-structure checks: edges between known nodes, no self-edge, no repeat, no cycle; no
//! data race between unordered nodes; and the order nodes are added in.

use std::collections::{BTreeSet, HashMap};

use syn::Ident;

use super::{hint, Errors, Graph, InputKind};
use crate::ast;

/// Edges: known nodes, no self-edge, no repeat, no cycle. Each error points at the edge's
/// arrow; a cycle prints its path.
pub(super) fn check_edges(model: &mut Graph, chain: ast::EdgeChain, errors: &mut Errors) {
    let find = |model: &Graph, id: &Ident, errors: &mut Errors| -> Option<usize> {
        let found = model.by_name.get(&id.to_string()).copied();
        if found.is_none() && !model.failed.contains(id) {
            let names = model.nodes.iter().map(|n| n.name.to_string()).collect();
            errors.at(
                id.span(),
                format!("no node named `{id}`{}", hint(&id.to_string(), names, "")),
            );
        }
        found
    };
    let groups: Vec<Vec<Option<usize>>> = chain
        .groups
        .iter()
        .map(|g| g.iter().map(|id| find(model, id, errors)).collect())
        .collect();
    for (k, arrow) in chain.arrows.iter().enumerate() {
        for &a in groups[k].iter().flatten() {
            for &b in groups[k + 1].iter().flatten() {
                let (na, nb) = (&model.nodes[a].name, &model.nodes[b].name);
                if a == b {
                    errors.at(*arrow, format!("node `{na}` cannot depend on itself"));
                } else if model.edge_set.contains(&(a, b)) {
                    errors.at(
                        *arrow,
                        format!("the edge `{na} -> {nb}` is written twice; remove this one"),
                    );
                } else if let Some(path) = path(&model.succ, b, a) {
                    let mut text = na.to_string();
                    for i in path {
                        text.push_str(" -> ");
                        text.push_str(&model.nodes[i].name.to_string());
                    }
                    errors.at(
                        *arrow,
                        format!("the edge `{na} -> {nb}` closes a cycle: {text}; a graph must be acyclic"),
                    );
                } else {
                    model.edges.push((a, b));
                    model.edge_set.insert((a, b));
                    model.succ[a].push(b);
                }
            }
        }
    }
}

/// A path `start, ..., goal` along the successor lists. Costs only what it visits.
pub fn path(succ: &[Vec<usize>], start: usize, goal: usize) -> Option<Vec<usize>> {
    let mut parent: HashMap<usize, usize> = HashMap::from([(start, start)]);
    let mut stack = vec![start];
    while let Some(v) = stack.pop() {
        if v == goal {
            let mut out = vec![v];
            let mut c = v;
            while c != start {
                c = parent[&c];
                out.push(c);
            }
            out.reverse();
            return Some(out);
        }
        for &s in &succ[v] {
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(s) {
                e.insert(v);
                stack.push(s);
            }
        }
    }
    None
}

fn successors(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut succ = vec![Vec::new(); n];
    for &(a, b) in edges {
        succ[a].push(b);
    }
    succ
}

/// Two nodes that touch one buffer, at least one writing, must be ordered by a path.
pub(super) fn check_races(model: &Graph, errors: &mut Errors) {
    let reach = Reach::new(model.nodes.len(), &model.edges);
    for (x, input) in model.inputs.iter().enumerate() {
        if !matches!(
            input.kind,
            InputKind::Buffer {
                disjoint: false,
                ..
            }
        ) {
            continue;
        }
        let users: Vec<usize> = (0..model.nodes.len())
            .filter(|&i| model.nodes[i].reads.contains(&x) || model.nodes[i].writes.contains(&x))
            .collect();
        for (k, &j) in users.iter().enumerate() {
            let b = &model.nodes[j];
            let clash = users[..k].iter().copied().find(|&i| {
                let a = &model.nodes[i];
                (a.writes.contains(&x) || b.writes.contains(&x))
                    && !reach.get(i, j)
                    && !reach.get(j, i)
            });
            if let Some(i) = clash {
                let a = &model.nodes[i];
                let writer = if b.writes.contains(&x) {
                    &b.name
                } else {
                    &a.name
                };
                errors.at(
                    b.name.span(),
                    format!(
                        "data race: nodes `{}` and `{}` both use buffer `{}` and `{writer}` writes it, but neither depends on the other; add an edge `{} -> {}` (or the reverse), or mark the buffer `#[disjoint]` if they touch disjoint parts",
                        a.name, b.name, input.name, a.name, b.name
                    ),
                );
            }
        }
    }
}

/// Which nodes reach which: one bitset per node, filled in reverse topological order.
struct Reach {
    words: usize,
    bits: Vec<u64>,
}

impl Reach {
    fn new(n: usize, edges: &[(usize, usize)]) -> Self {
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        let succ = successors(n, edges);
        for &v in topo_order(n, edges).iter().rev() {
            for &s in &succ[v] {
                bits[v * words + s / 64] |= 1 << (s % 64);
                for w in 0..words {
                    bits[v * words + w] |= bits[s * words + w];
                }
            }
        }
        Reach { words, bits }
    }

    fn get(&self, from: usize, to: usize) -> bool {
        self.bits[from * self.words + to / 64] & (1 << (to % 64)) != 0
    }
}

/// Nodes ordered so each comes after its dependencies; ties keep declaration order.
pub fn topo_order(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut indeg = vec![0usize; n];
    for &(_, b) in edges {
        indeg[b] += 1;
    }
    let succ = successors(n, edges);
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(v) = ready.pop_first() {
        out.push(v);
        for &s in &succ[v] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.insert(s);
            }
        }
    }
    out
}
