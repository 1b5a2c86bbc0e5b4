//! Temporaries (`temp t: [T; len];`): graph-owned memory. Their lengths use params and
//! constants; a temporary read before any node writes it is an error; and each gets an
//! allocation node before its first users and a free node after its last, placed from the
//! graph's structure so the driver can reuse memory between temporaries ordered apart.

use cuda_graph_topology::{Reach, Topology};
use syn::Ident;

use crate::lower::Lower;
use crate::model::{Errors, Graph, Node, NodeOp, Uses};

/// The temporaries among the inputs.
fn temps(g: &Graph) -> impl Iterator<Item = usize> + '_ {
    (0..g.inputs.len())
        .filter(|&i| matches!(g.inputs[i].kind.buffer(), Some(b) if b.temp.is_some()))
}

/// Each temporary's length: an expression of params and constants (the params it uses are
/// recorded, so their setters check that the new length still fits).
pub(super) fn check_lengths(cx: &mut Lower<'_>) {
    for i in 0..cx.inputs.len() {
        let expr = match cx.inputs[i].kind.buffer().and_then(|b| b.temp.as_ref()) {
            Some(v) => v.expr.clone(),
            None => continue,
        };
        let value = cx.value(&mut Uses::default(), expr, "the length of a temporary");
        if let (Some(v), crate::model::InputKind::Buffer(b)) = (value, &mut cx.inputs[i].kind) {
            b.temp = Some(v);
        }
    }
}

/// Whether a path leads from `a` to `b`.
fn reaches(reach: &Reach, a: u32, b: u32) -> bool {
    reach.forward(a)[b as usize / 64] >> (b % 64) & 1 == 1
}

/// Whether node `w` runs before node `r` in every launch (through the nodes that hold them in
/// their closest common scope).
fn before(topo: &Topology, reach: &Reach, w: usize, r: usize) -> bool {
    match topo.meeting(w as u32, r as u32) {
        Some((p, q)) => reaches(reach, p, q),
        None => false,
    }
}

/// A temporary read by a node that no write is ordered before: graph-owned memory starts
/// uninitialised.
pub(super) fn check_initialised(g: &Graph, errors: &mut Errors) {
    let reach = g.topo.reach();
    for t in temps(g) {
        let writers: Vec<usize> = (0..g.nodes.len())
            .filter(|&j| g.nodes[j].uses.writes.contains(&t))
            .collect();
        for (r, n) in g.nodes.iter().enumerate() {
            if !n.uses.reads.contains(&t) || n.uses.writes.contains(&t) {
                continue;
            }
            if writers.iter().any(|&w| before(&g.topo, &reach, w, r)) {
                continue;
            }
            let hint = match writers.first() {
                None => "; no node writes it".to_owned(),
                Some(&w) => {
                    let wn = &g.nodes[w].name;
                    match g.topo.meeting(w as u32, r as u32) {
                        None => format!(
                            "; `{wn}` writes it, but in another branch of a conditional node, which does not run in the same launch"
                        ),
                        Some((p, q)) if reaches(&reach, q, p) => {
                            format!("; `{wn}` writes it, but only after `{}`", n.name)
                        }
                        Some((p, q)) => format!(
                            " (an edge `{} -> {}`)",
                            g.topo.name(p),
                            g.topo.name(q)
                        ),
                    }
                }
            };
            errors.at(
                n.name.span(),
                format!(
                    "temporary `{}` is read by `{}` before any node writes it: graph-owned memory starts uninitialised; write it in a node ordered before `{}`{hint}",
                    g.inputs[t].name, n.name, n.name
                ),
            );
        }
    }
}

/// The node that stands for `i` at the top of the graph (`i`, or the conditional node holding
/// it).
fn lift(topo: &Topology, mut i: u32) -> u32 {
    while let Some(o) = topo.owner(topo.scope(i)) {
        i = o;
    }
    i
}

/// Adds an allocation node before the first users of each temporary (after their
/// dependencies) and a free node after its last users (before their dependents).
pub(super) fn place(g: &mut Graph, errors: &mut Errors) {
    let reach = g.topo.reach();
    for t in temps(g).collect::<Vec<_>>() {
        let mut users: Vec<u32> = (0..g.nodes.len())
            .filter(|&j| g.nodes[j].uses.any(t))
            .map(|j| lift(&g.topo, j as u32))
            .collect();
        users.sort_unstable();
        users.dedup();
        if users.is_empty() {
            continue; // reported as unused
        }
        let first: Vec<u32> = users
            .iter()
            .copied()
            .filter(|&u| !users.iter().any(|&v| v != u && reaches(&reach, v, u)))
            .collect();
        let last: Vec<u32> = users
            .iter()
            .copied()
            .filter(|&u| !users.iter().any(|&v| v != u && reaches(&reach, u, v)))
            .collect();
        let mut before: Vec<u32> = first
            .iter()
            .flat_map(|&f| {
                g.edges()
                    .filter(move |&(_, b)| b == f as usize)
                    .map(|(a, _)| a as u32)
            })
            .collect();
        before.sort_unstable();
        before.dedup();
        let mut after: Vec<u32> = last
            .iter()
            .flat_map(|&l| g.topo.successors(l).to_vec())
            .filter(|s| !users.contains(s))
            .collect();
        after.sort_unstable();
        after.dedup();
        let name = g.inputs[t].name.clone();
        let (Some(alloc), Some(free)) = (
            add(g, &name, "alloc", NodeOp::MemAlloc(t), errors),
            add(g, &name, "free", NodeOp::MemFree(t), errors),
        ) else {
            continue;
        };
        let edges = before
            .iter()
            .map(|&p| (p, alloc))
            .chain(first.iter().map(|&f| (alloc, f)))
            .chain(last.iter().map(|&l| (l, free)))
            .chain(after.iter().map(|&s| (free, s)));
        for (a, b) in edges.collect::<Vec<_>>() {
            g.topo
                .add_edge(a, b)
                .expect("edges around a temporary's users point forward");
        }
    }
}

/// Adds node `<what>_<temp>` (at the temporary's name), or reports the clash with a node that
/// has its name.
fn add(g: &mut Graph, temp: &Ident, what: &str, op: NodeOp, errors: &mut Errors) -> Option<u32> {
    let name = format!("{what}_{temp}");
    let kind = op.kind();
    match g.topo.add_node(&name, kind) {
        Ok(i) => {
            g.nodes.push(Node {
                name: Ident::new(&name, temp.span()),
                op,
                uses: Uses::default(),
                concurrent: false,
                scope: 0,
            });
            Some(i)
        }
        Err(_) => {
            errors.at(
                temp.span(),
                format!(
                    "temporary `{temp}` needs a node named `{name}` (its {}), but a node already has that name; rename that node",
                    if what == "alloc" { "allocation" } else { "free" }
                ),
            );
            None
        }
    }
}
