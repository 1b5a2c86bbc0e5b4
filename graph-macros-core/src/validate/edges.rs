//! Graph-structure checks: edges between known nodes, with no self-edge, repeat or cycle (the
//! shared [`Topology`](cuda_graph_topology::Topology) decides, the error points at the arrow);
//! and no data race between unordered nodes.

use cuda_graph_topology::TopologyError;
use syn::Ident;

use crate::ast;
use crate::lower::hint;
use crate::model::{Errors, Graph};

/// Edges of one chain `a -> [b, c] -> d;`. Each error points at the edge's arrow; a cycle
/// prints its path. Edges naming a node left out by an earlier error are skipped silently.
pub(super) fn check_edges(
    model: &mut Graph,
    failed: &[Ident],
    chain: ast::EdgeChain,
    errors: &mut Errors,
) {
    let find = |model: &Graph, id: &Ident, errors: &mut Errors| -> Option<u32> {
        let found = model.topo.find(&id.to_string());
        if found.is_none() && !failed.contains(id) {
            let names = model.nodes.iter().map(|n| n.name.to_string()).collect();
            errors.at(
                id.span(),
                format!("no node named `{id}`{}", hint(&id.to_string(), names, "")),
            );
        }
        found
    };
    let groups: Vec<Vec<Option<u32>>> = chain
        .groups
        .iter()
        .map(|g| g.iter().map(|id| find(model, id, errors)).collect())
        .collect();
    for (k, arrow) in chain.arrows.iter().enumerate() {
        for &a in groups[k].iter().flatten() {
            for &b in groups[k + 1].iter().flatten() {
                let Err(e) = model.topo.add_edge(a, b) else {
                    continue;
                };
                let msg = match e {
                    TopologyError::SelfEdge { node } => {
                        format!("node `{node}` cannot depend on itself")
                    }
                    TopologyError::DuplicateEdge { from, to } => {
                        format!("the edge `{from} -> {to}` is written twice; remove this one")
                    }
                    TopologyError::Cycle { from, to, path, .. } => format!(
                        "the edge `{from} -> {to}` closes a cycle: {path}; a graph must be acyclic"
                    ),
                    other => other.to_string(),
                };
                errors.at(*arrow, msg);
            }
        }
    }
}

/// Two nodes that touch one buffer, at least one writing, must be ordered by a path.
pub(super) fn check_races(model: &Graph, errors: &mut Errors) {
    let reach = model.topo.reach();
    if model.topo.body_count() > 0 {
        return check_races_in_bodies(model, &reach, errors);
    }
    let words = reach.words();
    for (x, input) in model.inputs.iter().enumerate() {
        if !matches!(input.kind.buffer(), Some(b) if !b.disjoint) {
            continue;
        }
        // Earlier users of the buffer, and earlier writers, as bitsets: each node is checked
        // against all of them a word at a time.
        let (mut users, mut writers) = (vec![0u64; words], vec![0u64; words]);
        for (j, b) in model.nodes.iter().enumerate() {
            let writes = b.uses.writes.contains(&x);
            if !writes && !b.uses.reads.contains(&x) {
                continue;
            }
            // A writer clashes with any earlier user, a reader with any earlier writer, unless
            // a path orders the two.
            let pool = if writes { &users } else { &writers };
            let (fwd, bwd) = (reach.forward(j as u32), reach.backward(j as u32));
            let clash = (0..words).find_map(|w| {
                let open = pool[w] & !(fwd[w] | bwd[w]);
                (open != 0).then(|| w * 64 + open.trailing_zeros() as usize)
            });
            if let Some(i) = clash {
                race(model, i, j, x, writes, errors);
            }
            users[j / 64] |= 1 << (j % 64);
            if writes {
                writers[j / 64] |= 1 << (j % 64);
            }
        }
    }
}

/// Reports the race between earlier node `i` and node `j` on buffer `x` (`j_writes`: `j` is
/// the writer, else `i` is).
fn race(model: &Graph, i: usize, j: usize, x: usize, j_writes: bool, errors: &mut Errors) {
    let (a, b) = (&model.nodes[i], &model.nodes[j]);
    let writer = if j_writes { &b.name } else { &a.name };
    // Within one scope, the edge to add joins the two; across scopes, the nodes that hold
    // them in their closest common scope.
    let (from, to) = model
        .topo
        .meeting(i as u32, j as u32)
        .map(|(p, q)| (model.topo.name(p).to_owned(), model.topo.name(q).to_owned()))
        .unwrap_or_else(|| (a.name.to_string(), b.name.to_string()));
    errors.at(
        b.name.span(),
        format!(
            "data race: nodes `{}` and `{}` both use {} `{}` and `{writer}` writes it, but neither depends on the other; add an edge `{from} -> {to}` (or the reverse){}",
            a.name,
            b.name,
            model.inputs[x].kind.noun(),
            model.inputs[x].name,
            if model.buffer(x).temp.is_some() {
                ""
            } else {
                ", or mark the buffer `#[disjoint]` if they touch disjoint parts"
            }
        ),
    );
}

/// The race check for a graph with conditional bodies: two nodes conflict unless
/// [`Topology::serial`](cuda_graph_topology::Topology::serial) says they never overlap (a path
/// between the nodes that hold them in their closest common scope, or different branches of
/// one conditional).
fn check_races_in_bodies(model: &Graph, reach: &cuda_graph_topology::Reach, errors: &mut Errors) {
    for (x, input) in model.inputs.iter().enumerate() {
        if !matches!(input.kind.buffer(), Some(b) if !b.disjoint) {
            continue;
        }
        let mut seen: Vec<(usize, bool)> = Vec::new();
        for (j, b) in model.nodes.iter().enumerate() {
            let writes = b.uses.writes.contains(&x);
            if !writes && !b.uses.reads.contains(&x) {
                continue;
            }
            let clash = seen
                .iter()
                .find(|&&(i, w)| (writes || w) && !model.topo.serial(reach, i as u32, j as u32));
            if let Some(&(i, _)) = clash {
                race(model, i, j, x, writes, errors);
            }
            seen.push((j, writes));
        }
    }
}
