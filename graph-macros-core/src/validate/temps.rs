//! Temporaries (`temp t: [T; len];`): graph-owned memory. Their lengths use params and
//! constants; a temporary read before any node writes it is an error; and each gets an
//! allocation node before its first users and a free node after its last, placed from the
//! graph's structure so the driver can reuse memory between temporaries ordered apart.

use cuda_graph_topology::{Reach, Topology};

use super::conds;
use syn::Ident;

use crate::lower::Lower;
use crate::model::{CondOp, Errors, Graph, Node, NodeOp, Uses};

/// The temporaries among the inputs.
fn temps(g: &Graph) -> impl Iterator<Item = usize> + '_ {
    (0..g.inputs.len())
        .filter(|&i| matches!(g.inputs[i].kind.buffer(), Some(b) if b.temp.is_some()))
}

/// Each temporary's length: an expression of params and constants (the params it uses are
/// recorded, so their setters check that the new length still fits).
pub(super) fn check_lengths(cx: &mut Lower<'_>) {
    for i in 0..cx.inputs.len() {
        let Some(b) = cx.inputs[i].kind.buffer() else {
            continue;
        };
        if let Some(v) = &b.temp {
            let value = cx.value(
                &mut Uses::default(),
                v.expr.clone(),
                "the length of a temporary",
            );
            if let (Some(v), crate::model::InputKind::Buffer(b)) = (value, &mut cx.inputs[i].kind) {
                b.temp = Some(v);
            }
        } else if let Some(v) = &b.len {
            let expr = v.expr.clone();
            let value = match crate::lengths::unsupported(&expr) {
                Some((span, why)) => {
                    cx.errors.at(span, why);
                    None
                }
                None => cx.value(&mut Uses::default(), expr, "the length of a buffer"),
            };
            // A length in error is dropped: the buffer is still sound for every other check.
            if let crate::model::InputKind::Buffer(b) = &mut cx.inputs[i].kind {
                b.len = value;
            }
        }
    }
}

/// A temporary read where a write may not have happened on every path of the launch:
/// graph-owned memory starts uninitialised. A write counts for a reader when it runs before the
/// reader whenever the reader runs: a writer in the reader's scope or a scope around it,
/// ordered before it (before the conditional node that holds it, at that level), or a
/// conditional node there that writes on every path through it (`Flow::unwritten`).
pub(super) fn check_initialised(g: &Graph, errors: &mut Errors) {
    let reach = g.topo.reach();
    let flow = Flow::new(g, &reach);
    for t in temps(g) {
        for (r, n) in g.nodes.iter().enumerate() {
            if !n.uses.reads.contains(&t) {
                continue;
            }
            // The writers ordered before `r` at some level of its scopes, as the nodes that
            // stand for them there (a writer, or a conditional node with one inside).
            let mut candidates = Vec::new();
            let mut x = r as u32;
            loop {
                let s = g.topo.scope(x);
                for &y in &flow.by_scope[s as usize] {
                    if reach.reaches(y, x) && flow.writes_inside(t, y) {
                        candidates.push(y);
                    }
                }
                match g.topo.owner(s) {
                    Some(o) => x = o,
                    None => break,
                }
            }
            if candidates
                .iter()
                .any(|&y| flow.unwritten(t, y as usize).is_none())
            {
                continue;
            }
            let temp = &g.inputs[t].name;
            let msg = match candidates.first() {
                Some(&y) => {
                    let path = flow.unwritten(t, y as usize).expect("no candidate writes always");
                    let writer = flow.a_writer(t, y as usize);
                    format!(
                        "temporary `{temp}` may be read uninitialised by `{}`: when {}, no node writes it before `{}` (only `{writer}` does, on other paths); graph-owned memory starts uninitialised, so write it on every path: {}",
                        n.name,
                        path.join(" and "),
                        n.name,
                        flow.advice(y as usize, temp),
                    )
                }
                None if matches!(n.op, NodeOp::Child(_)) => format!(
                    "temporary `{temp}` is given to child graph node `{}` before any node writes it: the child may read it, and graph-owned memory starts uninitialised; write it in a node ordered before `{}`{}",
                    n.name,
                    n.name,
                    no_writer_hint(g, &reach, t, r)
                ),
                None => format!(
                    "temporary `{temp}` is read by `{}` before any node writes it: graph-owned memory starts uninitialised; write it in a node ordered before `{}`{}",
                    n.name,
                    n.name,
                    no_writer_hint(g, &reach, t, r)
                ),
            };
            errors.at(n.name.span(), msg);
        }
    }
}

/// Why no write is ordered before reader `r` at all: nothing writes `t`, or the writers run
/// after it, or in another branch, or an edge is missing.
fn no_writer_hint(g: &Graph, reach: &Reach, t: usize, r: usize) -> String {
    let Some(w) = (0..g.nodes.len()).find(|&j| j != r && g.nodes[j].uses.writes.contains(&t))
    else {
        let other = if g.nodes[r].uses.writes.contains(&t) {
            " other"
        } else {
            ""
        };
        return format!("; no{other} node writes it");
    };
    let (wn, rn) = (&g.nodes[w].name, &g.nodes[r].name);
    let later = reach.reaches(r as u32, w as u32);
    if let Some(b) = g.block_of(r).filter(|&b| later && g.block_of(w) == Some(b)) {
        let block = &g.nodes[b].name;
        let var = g.repeat(b).expect("a repeat block").var_shown();
        return format!(
            " (or before `{block}`): `{wn}` writes it later in the body of `{block}`, which a carry edge may hand to iteration `{var} + 1`, but in iteration 0 nothing has written it yet"
        );
    }
    match g.topo.meeting(w as u32, r as u32) {
        None => format!(
            "; `{wn}` writes it, but in another branch of a conditional node, which does not run in the same launch"
        ),
        Some((p, q)) if reach.reaches(q, p) => {
            format!("; `{wn}` writes it, but only after `{rn}`")
        }
        Some((p, q)) => format!(" (an edge `{} -> {}`)", g.topo.name(p), g.topo.name(q)),
    }
}

/// Control-flow facts about the writes of temporaries: what each conditional node's bodies
/// write on every path through them.
struct Flow<'g> {
    g: &'g Graph,
    reach: &'g Reach,
    /// The nodes of each scope.
    by_scope: Vec<Vec<u32>>,
}

impl<'g> Flow<'g> {
    fn new(g: &'g Graph, reach: &'g Reach) -> Self {
        let mut by_scope = vec![Vec::new(); g.topo.body_count() + 1];
        for i in 0..g.nodes.len() as u32 {
            by_scope[g.topo.scope(i) as usize].push(i);
        }
        Flow { g, reach, by_scope }
    }

    /// The bodies (scopes) of node `y`: none unless it is a conditional node.
    fn bodies(&self, y: usize) -> std::ops::Range<u32> {
        match &self.g.nodes[y].op {
            NodeOp::Conditional(c) => c.first..c.first + c.size,
            NodeOp::Repeat(r) => r.scope..r.scope + 1,
            _ => 0..0,
        }
    }

    /// Whether node `y` writes `t` on some path: itself, or a node of its bodies.
    fn writes_inside(&self, t: usize, y: u32) -> bool {
        let y = y as usize;
        self.g.nodes[y].uses.writes.contains(&t)
            || self.bodies(y).any(|s| {
                self.by_scope[s as usize]
                    .iter()
                    .any(|&v| self.writes_inside(t, v))
            })
    }

    /// A node that writes `t` inside `y` (or `y` itself), for messages.
    fn a_writer(&self, t: usize, y: usize) -> &'g syn::Ident {
        if self.g.nodes[y].uses.writes.contains(&t) {
            return &self.g.nodes[y].name;
        }
        let inner = self
            .bodies(y)
            .flat_map(|s| self.by_scope[s as usize].iter().copied())
            .find(|&v| self.writes_inside(t, v))
            .expect("a candidate writes inside");
        self.a_writer(t, inner as usize)
    }

    /// `None` when node `y` writes `t` on every path through it; else one path on which it
    /// does not, as clauses ("`br` takes its ELSE branch", ...).
    fn unwritten(&self, t: usize, y: usize) -> Option<Vec<String>> {
        let g = self.g;
        if g.nodes[y].uses.writes.contains(&t) {
            return None;
        }
        if let NodeOp::Repeat(r) = &g.nodes[y].op {
            let name = &g.nodes[y].name;
            let count = quote::ToTokens::to_token_stream(&r.count.expr).to_string();
            return match r.literal() {
                Some(n) if n >= 1 => self.body_unwritten(t, r.scope),
                Some(_) => Some(vec![format!(
                    "`{name}` runs zero times (its count is {count})"
                )]),
                None => Some(vec![format!(
                    "`{name}` runs zero times (its count `{count}` may be 0)"
                )]),
            };
        }
        let NodeOp::Conditional(c) = &g.nodes[y].op else {
            return Some(Vec::new());
        };
        let (name, cond) = (&g.nodes[y].name, &g.conds[c.cond].name);
        let body = |s: u32, clause: String| -> Option<Vec<String>> {
            let rest = self.body_unwritten(t, s)?;
            Some(std::iter::once(clause).chain(rest).collect())
        };
        match c.op {
            CondOp::If => Some(vec![format!("`{name}` skips its body (`{cond}` is 0)")]),
            CondOp::IfElse => (0..2).find_map(|b| {
                let which = if b == 0 { "THEN" } else { "ELSE" };
                body(c.first + b, format!("`{name}` takes its {which} branch"))
            }),
            CondOp::Switch => (0..c.size)
                .find_map(|k| body(c.first + k, format!("`{cond}` selects case {k} of `{name}`")))
                .or_else(|| {
                    Some(vec![format!(
                        "`{cond}` matches no case of `{name}` (a value past the last case runs nothing)"
                    )])
                }),
            CondOp::While => match conds::may_skip(g, self.reach, y) {
                Some(why) => Some(vec![format!(
                    "the body of `{name}` runs zero times ({why})"
                )]),
                None => body(c.first, format!("`{name}` runs its body")),
            },
        }
    }

    /// `None` when body `s` writes `t` on every path (some node of it does); else a path on
    /// which it does not.
    fn body_unwritten(&self, t: usize, s: u32) -> Option<Vec<String>> {
        let nodes = &self.by_scope[s as usize];
        let mut first_gap = None;
        for &v in nodes {
            match self.unwritten(t, v as usize) {
                None => return None,
                Some(gap) if first_gap.is_none() && self.writes_inside(t, v) => {
                    first_gap = Some(gap)
                }
                Some(_) => {}
            }
        }
        Some(first_gap.unwrap_or_else(|| {
            vec![format!(
                "that branch does not write `{}`",
                self.g.inputs[t].name
            )]
        }))
    }

    /// What to write instead, for a read that conditional node `y` (ordered before the reader)
    /// does not cover on every path.
    fn advice(&self, y: usize, temp: &syn::Ident) -> String {
        let g = self.g;
        let name = &g.nodes[y].name;
        let before = format!("write `{temp}` in a node ordered before `{name}`");
        match &g.nodes[y].op {
            NodeOp::Conditional(c) => {
                let cond = &g.conds[c.cond].name;
                match c.op {
                    CondOp::If => format!(
                        "{before}, or give it an `else` branch that writes it too (`{name} = if {cond} {{ .. }} else {{ .. }}`)"
                    ),
                    CondOp::IfElse => format!("{before}, or write it in both branches"),
                    CondOp::Switch => format!(
                        "{before}: a switch may run no case, so writes in its cases never cover a later read"
                    ),
                    CondOp::While => format!(
                        "{before}, or make its body run at least once: a non-zero literal default (`cond {cond} = 1;`) and no node setting `{cond}` before `{name}` starts"
                    ),
                }
            }
            NodeOp::Repeat(_) => {
                format!("{before}: a repeat block whose count may be 0 writes nothing for certain")
            }
            _ => before,
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
    let reported = !errors.is_empty();
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
            .filter(|&u| !users.iter().any(|&v| v != u && reach.reaches(v, u)))
            .collect();
        let last: Vec<u32> = users
            .iter()
            .copied()
            .filter(|&u| !users.iter().any(|&v| v != u && reach.reaches(u, v)))
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
            // In a graph whose users race or read unwritten memory (reported), unordered users
            // can make an edge close a cycle: it is left out, the graph is not built anyway.
            // In a graph without those errors the edges point forward.
            if let Err(e) = g.topo.add_edge(a, b) {
                if !reported {
                    errors.at(
                        name.span(),
                        format!("internal error: cannot place the allocation of temporary `{name}` ({e}); please report this graph"),
                    );
                }
            }
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
