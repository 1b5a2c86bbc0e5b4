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
    let n = model.nodes.len();
    let reach = Reach::new(n, &model.edges);
    let words = reach.words;
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
        // Earlier users of the buffer, and earlier writers, as bitsets: each node is checked
        // against all of them a word at a time.
        let (mut users, mut writers) = (vec![0u64; words], vec![0u64; words]);
        for (j, b) in model.nodes.iter().enumerate() {
            let writes = b.writes.contains(&x);
            if !writes && !b.reads.contains(&x) {
                continue;
            }
            // A writer clashes with any earlier user, a reader with any earlier writer, unless
            // a path orders the two.
            let pool = if writes { &users } else { &writers };
            let clash = (0..words).find_map(|w| {
                let open = pool[w] & !(reach.fwd(j)[w] | reach.bwd(j)[w]);
                (open != 0).then(|| w * 64 + open.trailing_zeros() as usize)
            });
            if let Some(i) = clash {
                let a = &model.nodes[i];
                let writer = if writes { &b.name } else { &a.name };
                errors.at(
                    b.name.span(),
                    format!(
                        "data race: nodes `{}` and `{}` both use buffer `{}` and `{writer}` writes it, but neither depends on the other; add an edge `{} -> {}` (or the reverse), or mark the buffer `#[disjoint]` if they touch disjoint parts",
                        a.name, b.name, input.name, a.name, b.name
                    ),
                );
            }
            users[j / 64] |= 1 << (j % 64);
            if writes {
                writers[j / 64] |= 1 << (j % 64);
            }
        }
    }
}

/// Which nodes reach which, as one bitset per node each way: `fwd(v)` holds the nodes `v`
/// reaches, `bwd(v)` the nodes that reach `v`.
struct Reach {
    words: usize,
    fwd: Vec<u64>,
    bwd: Vec<u64>,
}

impl Reach {
    fn new(n: usize, edges: &[(usize, usize)]) -> Self {
        let words = n.div_ceil(64);
        let (mut fwd, mut bwd) = (vec![0u64; n * words], vec![0u64; n * words]);
        let succ = successors(n, edges);
        let order = topo_order(n, edges);
        let or_into = |bits: &mut Vec<u64>, to: usize, from: usize| {
            bits[to * words + from / 64] |= 1 << (from % 64);
            for w in 0..words {
                bits[to * words + w] |= bits[from * words + w];
            }
        };
        for &v in order.iter().rev() {
            for &s in &succ[v] {
                or_into(&mut fwd, v, s);
            }
        }
        for &v in &order {
            for &s in &succ[v] {
                or_into(&mut bwd, s, v);
            }
        }
        Reach { words, fwd, bwd }
    }

    fn fwd(&self, v: usize) -> &[u64] {
        &self.fwd[v * self.words..(v + 1) * self.words]
    }

    fn bwd(&self, v: usize) -> &[u64] {
        &self.bwd[v * self.words..(v + 1) * self.words]
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
