//! Communicators and collectives: the params a graph with one `comm` has without declaring
//! them (`rank` and `world`), the params collectives use (captured once, so they get no
//! setter), and the order proof.
//!
//! NCCL matches the collectives of one communicator across ranks by the order each rank
//! issues them. Every rank builds the same graph, but a launch runs unordered nodes in any
//! order, and two ranks that start two collectives in different orders wait for each other
//! forever. So every two collectives on one communicator must be joined by a path
//! ([`Topology::unordered_pairs`](cuda_graph_topology::Topology::unordered_pairs): exactly
//! when every topological order gives them in one sequence; `graph-topology/tests/order.rs`
//! checks it against all orders of small graphs, `tests/collectives.rs` checks the macro
//! against the same oracle). A condition is set on each rank's device, and ranks that take
//! different branches wait for each other forever: a collective goes inside a conditional body
//! only when every condition that decides whether it runs is declared agreed on its
//! communicator (`cond again on tp;`), the user's word that every rank sets it alike (from
//! replicated or all-reduced values), which the macro cannot see into a kernel to prove
//! ([`check_bodies`]). Iterations of a WHILE body run one after the other, so the order proof
//! of one body covers every iteration. In a repeat block, reachability orders one iteration's
//! collectives (and a collective outside the block against the whole block); between
//! iterations only carry edges order anything, and [`repeat::cross_races`] decides it for
//! every count, with the communicator standing for a buffer that each of its collectives
//! writes (`tests/collectives.rs` checks it against every order of the unrolled block). A
//! block whose body runs collectives must run as many times on every rank: its count may not
//! use `rank`.

use std::collections::BTreeSet;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::Ident;

use super::repeat::{self, Access, Body, Undecided};
use crate::model::{Errors, Graph, Implicit, Input, InputKind, NodeOp, Value};

/// The names a graph with a `comm` has built in.
const BUILT_IN: [&str; 2] = ["rank", "world"];

/// In a graph with communicators, `rank` and `world` name the communicator's rank and size: no
/// input may be called so (an error at its name). With exactly one `comm`, they are params
/// read from it when the graph is built (with more, using them is an error where they are
/// used: see `Lower::value`).
pub(super) fn implicit_params(inputs: &mut Vec<Input>, errors: &mut Errors) {
    let comms: Vec<usize> = (0..inputs.len())
        .filter(|&i| matches!(inputs[i].kind, InputKind::Comm))
        .collect();
    let Some(&first) = comms.first() else { return };
    let comm = inputs[first].name.clone();
    let mut taken = Vec::new();
    for inp in inputs.iter() {
        let n = inp.name.to_string();
        if !BUILT_IN.contains(&n.as_str()) {
            continue;
        }
        taken.push(n.clone());
        let what = if n == "rank" {
            "the communicator's rank"
        } else {
            "the communicator's number of ranks"
        };
        errors.at(
            inp.name.span(),
            format!(
                "in a graph with a `comm`, `{n}` is built in ({what}, read from `{comm}` when the graph is built); rename this {}",
                inp.kind.noun()
            ),
        );
    }
    if comms.len() > 1 {
        return;
    }
    for n in BUILT_IN
        .into_iter()
        .filter(|n| !taken.iter().any(|t| t == n))
    {
        let implicit = if n == "rank" {
            Implicit::Rank(first)
        } else {
            Implicit::World(first)
        };
        inputs.push(Input {
            name: Ident::new(n, comm.span()),
            kind: InputKind::Param(syn::parse_quote!(u32)),
            // Never reported unused: it is there whether the graph uses it or not.
            used: true,
            implicit: Some(implicit),
        });
    }
}

/// Params that collectives use (counts, roots, peers): the runtime captures a collective once,
/// so a new value would need another graph. They get no setter.
pub(super) fn structural(g: &Graph) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for n in &g.nodes {
        if let NodeOp::Collective(c) = &n.op {
            out.extend(&c.count.params);
            if let Some(p) = &c.peer {
                out.extend(&p.params);
            }
        }
    }
    out
}

/// Every two collectives on one communicator are ordered by a path: otherwise an error at the
/// later-declared one, naming both (one error per node, for the first collective it is
/// unordered with).
pub(super) fn check_order(g: &Graph, errors: &mut Errors) {
    let comms: BTreeSet<usize> = g
        .nodes
        .iter()
        .filter_map(|n| match &n.op {
            NodeOp::Collective(c) => Some(c.comm),
            _ => None,
        })
        .collect();
    if comms.is_empty() {
        return;
    }
    check_iterations(g, errors);
    let reach = g.topo.reach();
    for comm in comms {
        let on: Vec<u32> = g
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| matches!(&n.op, NodeOp::Collective(c) if c.comm == comm))
            .map(|(i, _)| i as u32)
            .collect();
        let mut reported = BTreeSet::new();
        for (a, b) in g.topo.unordered_pairs(&reach, &on) {
            // `a` was declared first: the error goes to `b`, once.
            if !reported.insert(b) {
                continue;
            }
            let (na, nb) = (&g.nodes[a as usize].name, &g.nodes[b as usize].name);
            errors.at(
                nb.span(),
                format!(
                    "collectives `{na}` and `{nb}` both run on communicator `{}`, but neither depends on the other: ranks may issue them in different orders and then wait for each other forever; add an edge `{na} -> {nb}` (or the reverse)",
                    g.inputs[comm].name
                ),
            );
        }
    }
}

/// Condition `c`'s declaration as written, agreed on communicator `comm`: `cond c on tp = 1;`
/// (its default kept).
fn agreed_decl(c: &crate::model::Cond, comm: &str) -> String {
    match &c.default {
        Some(d) => format!(
            "cond {} on {comm} = {};",
            c.name,
            quote::ToTokens::to_token_stream(d)
        ),
        None => format!("cond {} on {comm};", c.name),
    }
}

/// Conditions declared `on` a communicator name one of the graph's (else an error at the
/// name), and a collective runs inside conditional bodies only when each condition deciding it
/// is agreed on its communicator (else an error at the collective, naming the condition and
/// what to write).
pub(super) fn check_bodies(g: &Graph, errors: &mut Errors) {
    let agreed: Vec<Option<usize>> = g
        .conds
        .iter()
        .map(|c| {
            let on = c.on.as_ref()?;
            let found = g
                .inputs
                .iter()
                .position(|i| i.name == *on && matches!(i.kind, InputKind::Comm));
            if found.is_none() {
                let what = match g.inputs.iter().find(|i| i.name == *on) {
                    Some(i) => format!("is {}", i.kind.describe()),
                    None => "is not declared".to_owned(),
                };
                let comms: Vec<String> = g
                    .inputs
                    .iter()
                    .filter(|i| matches!(i.kind, InputKind::Comm))
                    .map(|i| format!("`{}`", agreed_decl(c, &i.name.to_string())))
                    .collect();
                let fix = if comms.is_empty() {
                    format!("declare the communicator (`comm tp;`) and write `{}`", agreed_decl(c, "tp"))
                } else {
                    format!("write {}", comms.join(" or "))
                };
                errors.at(
                    on.span(),
                    format!(
                        "condition `{}` is declared agreed on `{on}`, which {what}; a condition is agreed on a communicator: {fix}",
                        c.name
                    ),
                );
            }
            found
        })
        .collect();
    for (i, n) in g.nodes.iter().enumerate() {
        let NodeOp::Collective(c) = &n.op else {
            continue;
        };
        let mut s = g.topo.scope(i as u32);
        while let Some(owner) = g.topo.owner(s) {
            let o = &g.nodes[owner as usize];
            if let NodeOp::Conditional(k) = &o.op {
                let cond = &g.conds[k.cond];
                // An `on` that names no communicator is reported at the name.
                let misnamed = cond.on.is_some() && agreed[k.cond].is_none();
                if !misnamed && agreed[k.cond] != Some(c.comm) {
                    let comm = &g.inputs[c.comm].name;
                    let (name, owner) = (&n.name, &o.name);
                    let elsewhere = match &cond.on {
                        Some(other) if agreed[k.cond].is_some() => {
                            format!(" (it is agreed on `{other}`, not on `{comm}`)")
                        }
                        _ => String::new(),
                    };
                    errors.at(
                        name.span(),
                        format!(
                            "collective `{name}` is inside the body of conditional node `{owner}`, whose condition `{}` is set on each rank's device{elsewhere}: a rank that skips the collective leaves the others waiting for it forever; if every rank of `{comm}` sets `{}` alike (from values that are the same on every rank, such as an all-reduce's result), declare it so: `{}`, else move `{name}` before or after `{owner}`",
                            cond.name, cond.name, agreed_decl(cond, &comm.to_string())
                        ),
                    );
                    break;
                }
            }
            s = g.topo.scope(owner);
        }
    }
}

/// The collective node `n` runs on, if it is one.
fn comm_of(g: &Graph, n: usize) -> Option<usize> {
    match &g.nodes[n].op {
        NodeOp::Collective(c) => Some(c.comm),
        _ => None,
    }
}

/// Repeat blocks whose bodies run collectives: a count the same on every rank, and every
/// collective of iteration `l` ordered before every one (of the same communicator) of
/// iteration `l + k` by carry edges, for every count. One error per block and communicator.
fn check_iterations(g: &Graph, errors: &mut Errors) {
    let reach = g.topo.reach();
    for block in &g.nodes {
        let NodeOp::Repeat(r) = &block.op else {
            continue;
        };
        let body = Body::of(g, r);
        let runs: Vec<(usize, usize)> = body
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(k, &n)| Some((k, comm_of(g, n)?)))
            .collect();
        let Some(&(first, _)) = runs.first() else {
            continue;
        };
        // Collectives of one iteration that no path orders: reported by `check_order`, and
        // the carry edges cannot order what one iteration leaves unordered.
        let within = runs.iter().enumerate().any(|(k, &(a, ca))| {
            runs[k + 1..].iter().any(|&(b, cb)| {
                ca == cb && !reach.ordered(body.nodes[a] as u32, body.nodes[b] as u32)
            })
        });
        if let Some(at) = uses_rank(g, &r.count) {
            errors.at(
                at,
                format!(
                    "the count of repeat block `{}` must be the same on every rank, since its body runs collective `{}`, and a rank that runs it fewer times leaves the others waiting forever; `rank` makes it differ: write it with params, constants and `world`",
                    block.name, g.nodes[body.nodes[first]].name
                ),
            );
        }
        if within {
            continue;
        }
        // Each collective writes its communicator: two that no carry edge orders "race".
        let accesses: Vec<Access> = runs
            .iter()
            .map(|&(node, comm)| Access {
                node,
                buffer: comm,
                slot: None,
                writes: true,
            })
            .collect();
        let count = r.literal().map(|n| n.max(0) as u64);
        let races =
            match repeat::cross_races(body.nodes.len(), &body.edges, &body.carry, &accesses, count)
            {
                Ok(races) => races,
                // Reported by the race check between iterations, which asks the same question.
                Err(Undecided(_)) => continue,
            };
        let mut reported = BTreeSet::new();
        for race in races {
            if !reported.insert(race.first.buffer) {
                continue;
            }
            let (a, b) = (
                &g.nodes[body.nodes[race.first.node]].name,
                &g.nodes[body.nodes[race.second.node]].name,
            );
            let var = r.var_shown();
            let later = match race.distance {
                1 => format!("{var} + 1"),
                k => format!("{var} + {k}"),
            };
            // One iteration's collectives run in one sequence (checked above): ordering its
            // last before the next iteration's first orders them all.
            let on: Vec<usize> = runs
                .iter()
                .filter(|&&(_, c)| c == race.first.buffer)
                .map(|&(k, _)| body.nodes[k])
                .collect();
            let first = on.iter().find(|&&x| {
                on.iter()
                    .all(|&y| x == y || reach.reaches(x as u32, y as u32))
            });
            let last = on.iter().find(|&&x| {
                on.iter()
                    .all(|&y| x == y || reach.reaches(y as u32, x as u32))
            });
            let (first, last) = (
                &g.nodes[*first.expect("totally ordered")].name,
                &g.nodes[*last.expect("totally ordered")].name,
            );
            let fix = format!("add a carry edge from the block's last collective to its first, `carry {last} -> {first};` (or from a node after `{last}` to a node before `{first}`)");
            errors.at(
                b.span(),
                format!(
                    "collectives `{a}` in iteration {var} and `{b}` in iteration {later} of repeat block `{}` both run on communicator `{}`, but no carry edge orders them: ranks may issue them in different orders and then wait for each other forever; {fix}",
                    block.name, g.inputs[race.first.buffer].name
                ),
            );
        }
    }
}

/// Where `v` uses `rank` (the implicit param), if it does.
fn uses_rank(g: &Graph, v: &Value) -> Option<proc_macro2::Span> {
    let i = v
        .params
        .iter()
        .copied()
        .find(|&i| matches!(g.inputs[i].implicit, Some(Implicit::Rank(_))))?;
    let name = g.inputs[i].name.to_string();
    Some(
        crate::lower::free_idents(v.expr.to_token_stream())
            .into_iter()
            .find(|id| *id == name)
            .map_or_else(|| v.expr.span(), |id| id.span()),
    )
}
