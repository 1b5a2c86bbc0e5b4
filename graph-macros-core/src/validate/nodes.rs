//! Node checks: unique names, each operation lowered by its kind (`crate::kinds`), and the
//! nodes of conditional bodies flattened into one list, each with the body it is in.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{self, Item, Op};
use crate::lower::{Iter, Lower};
use crate::model::{Node, NodeOp, Uses};

/// The nodes that passed, in declaration order (a conditional node before its bodies' nodes),
/// each with its place: `None` at the top of the graph, or `(conditional node, body)`.
pub(super) struct Checked {
    pub nodes: Vec<Node>,
    pub parents: Vec<Option<(usize, u32)>>,
    /// Names of nodes left out (a conditional node or repeat block with an error of its own,
    /// the nodes of its bodies, a repeat block inside another).
    pub failed: Vec<Ident>,
    /// Nodes kept as empty nodes after an error of their own (see `Graph::ghosts`).
    pub ghosts: std::collections::BTreeSet<usize>,
    /// A node was left out before its operation was read (a second node of one name): what it
    /// uses is not known.
    pub unread: bool,
    /// Every edge chain, from the top of the graph and from the bodies.
    pub chains: Vec<ast::EdgeChain>,
    /// Every carry edge, with the repeat block (node index) whose body it is in.
    pub carries: Vec<(ast::EdgeChain, usize)>,
    /// The names of carry edges outside a repeat block (reported): each may have been meant
    /// as a plain edge.
    pub misplaced: Vec<Vec<Ident>>,
}

/// Checks every node, those of conditional bodies too.
pub(super) fn check_nodes(cx: &mut Lower<'_>, items: Vec<Item>) -> Checked {
    let mut out = Checked {
        nodes: Vec::new(),
        parents: Vec::new(),
        failed: Vec::new(),
        ghosts: Default::default(),
        unread: false,
        chains: Vec::new(),
        carries: Vec::new(),
        misplaced: Vec::new(),
    };
    let mut by_name: HashMap<String, usize> = HashMap::new();
    walk(cx, items, None, &mut by_name, &mut out);
    out
}

/// Every repeat block's loop variable and name, in bodies too.
pub(super) fn loop_vars(items: &[Item]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for item in items {
        let Item::Node(n) = item else { continue };
        match &n.op {
            Op::Repeat(r) => {
                out.push((r.var.to_string(), n.name.to_string()));
                out.extend(loop_vars(&r.body.items));
            }
            Op::Conditional(c) => {
                for b in &c.bodies {
                    out.extend(loop_vars(&b.items));
                }
            }
            _ => {}
        }
    }
    out
}

/// The names an operation other than a launch or a conditional names (inputs among them).
fn op_names(op: &Op) -> Vec<Ident> {
    let free = |e: &syn::Expr| crate::lower::free_idents(quote::ToTokens::to_token_stream(e));
    match op {
        Op::Memset { dst, value } => [vec![dst.clone()], free(value)].concat(),
        Op::Memcpy { dst, src } => vec![dst.clone(), src.clone()],
        Op::Host(e) => free(e),
        Op::Child { fields, .. } => fields
            .iter()
            .flat_map(|(f, e)| std::iter::once(f.clone()).chain(free(e)))
            .collect(),
        Op::Record(e) | Op::Wait(e) => vec![e.clone()],
        Op::Capture {
            work,
            reads,
            writes,
        } => std::iter::once(work)
            .chain(reads)
            .chain(writes)
            .cloned()
            .collect(),
        Op::Collective(c) => {
            let mut out: Vec<Ident> = c.src.iter().chain(&c.dst).cloned().collect();
            out.push(c.comm.clone());
            out.extend(free(&c.count));
            out.extend(c.peer.iter().flat_map(free));
            out
        }
        Op::Launch(_) | Op::Empty | Op::Conditional(_) | Op::Repeat(_) | Op::Use(_) => Vec::new(),
    }
}

/// Where an item that is no node or edge starts, and what it is.
fn declaration(item: &Item) -> Option<(Span, String)> {
    Some(match item {
        Item::Source(lit) => (lit.span(), "a source file".to_owned()),
        Item::Define(d) => (d.name.span(), format!("define `{}`", d.name)),
        Item::Kernel(k) => (k.name.span(), format!("kernel `{}`", k.name)),
        Item::Buffer(b) => (b.name.span(), format!("buffer `{}`", b.name)),
        Item::Temp(t) => (t.name.span(), format!("temporary `{}`", t.name)),
        Item::Param(p) => (p.name.span(), format!("param `{}`", p.name)),
        Item::Callback(c) => (c.span(), format!("callback `{c}`")),
        Item::Event(e) => (e.span(), format!("event `{e}`")),
        Item::Work(w) => (w.span(), format!("work `{w}`")),
        Item::Comm(c) => (c.span(), format!("communicator `{c}`")),
        Item::Inputs(b) => (b.span(), format!("the inputs of block `{b}`")),
        Item::Cond(c) => (c.name.span(), format!("condition `{}`", c.name)),
        Item::Node(_) | Item::Edges(_) => return None,
    })
}

/// `parent`: the conditional node and body these items are in; `None` when that node was left
/// out (its body's nodes are checked, then left out too) or at the top of the graph.
fn walk(
    cx: &mut Lower<'_>,
    items: Vec<Item>,
    place: Option<Option<(usize, u32)>>,
    by_name: &mut HashMap<String, usize>,
    out: &mut Checked,
) {
    for item in items {
        let mut n = match item {
            Item::Node(n) => n,
            Item::Edges(e) if e.carry.is_some() => {
                match &cx.iter {
                    Some(Iter { block: Some(b), .. }) => out.carries.push((e, *b)),
                    Some(_) => {}
                    None => {
                        cx.errors.at(
                            e.carry.expect("a carry edge"),
                            "`carry` edges go inside a repeat block's body (`layers = repeat l in 0..n { ... carry last -> first; }`): they order iteration `l`'s node before iteration `l + 1`'s; between other nodes write a plain edge `a -> b;`",
                        );
                        out.misplaced.push(e.groups.into_iter().flatten().collect());
                    }
                }
                continue;
            }
            Item::Edges(e) => {
                out.chains.push(e);
                continue;
            }
            other => {
                // Declarations are read at the top of the graph only.
                if place.is_some() {
                    let (span, what) = declaration(&other).expect("no node or edge");
                    let body = if cx.iter.is_some() {
                        "a repeat block's body"
                    } else {
                        "a conditional body"
                    };
                    cx.errors.at(
                        span,
                        format!("only nodes and edges go inside {body}; declare {what} at the top of the graph"),
                    );
                }
                continue;
            }
        };
        if by_name.contains_key(&n.name.to_string()) {
            cx.errors.at(
                n.name.span(),
                format!(
                    "a node named `{}` is already declared; node names must be unique",
                    n.name
                ),
            );
            out.unread = true;
            continue;
        }
        // A conditional's bodies (a repeat block's body) are walked after it, with it as their
        // parent.
        let bodies: Vec<Vec<Item>> = match &mut n.op {
            Op::Conditional(c) => c
                .bodies
                .iter_mut()
                .map(|b| std::mem::take(&mut b.items))
                .collect(),
            Op::Repeat(r) => vec![std::mem::take(&mut r.body.items)],
            _ => Vec::new(),
        };
        let iter = match &n.op {
            Op::Repeat(r) => Some(Iter {
                var: r.var.clone(),
                block: None,
                name: n.name.clone(),
                count: r.count.clone(),
            }),
            _ => None,
        };
        let mut uses = Uses::default();
        let index = out.nodes.len();
        let plain = !matches!(n.op, Op::Conditional(_) | Op::Repeat(_));
        let launch = matches!(n.op, Op::Launch(_));
        let names = if launch { Vec::new() } else { op_names(&n.op) };
        let lowered = match &cx.iter {
            // One repeat block in another is not supported.
            Some(outer) if iter.is_some() => {
                cx.errors.at(
                    n.name.span(),
                    format!(
                        "repeat block `{}` is inside repeat block `{}`, and blocks do not nest; write the inner block's nodes once for the two loop variables, or repeat the outer block's work in a graph of its own",
                        n.name, outer.name
                    ),
                );
                None
            }
            _ => crate::kinds::lower(cx, n.op, &mut uses, index),
        };
        let parent = match place {
            None => Some(None),
            Some(p) => p.map(Some),
        };
        // A node of a kind a repeat block cannot hold is left out (its bodies' nodes too).
        let lowered = lowered.filter(|op| match &cx.iter {
            Some(it) => {
                let owner = it.name.clone();
                check_repeat_kind(cx, &n.name, op, &owner)
            }
            None => true,
        });
        // A node with no bodies and an error of its own (reported) stays as an empty node with
        // the uses that were sound (a launch marks those it could not check as `unknown`).
        let lowered = match lowered {
            None if plain && parent.is_some() => {
                // What it names is used (an "unused" error would repeat its error); the
                // buffers among them, with an access not known.
                for id in &names {
                    if let Some(i) = cx.find(id) {
                        cx.inputs[i].used = true;
                        if cx.inputs[i].kind.buffer().is_some() {
                            uses.unknown.insert(i);
                        }
                    }
                }
                out.ghosts.insert(index);
                Some(NodeOp::Empty)
            }
            other => other,
        };
        let kept = match (lowered, parent) {
            (Some(op), Some(parent)) => {
                if let (None, Some((p, _))) = (&cx.iter, parent) {
                    check_body_kind(cx, &n.name, &op, &out.nodes[p].name);
                }
                by_name.insert(n.name.to_string(), index);
                out.nodes.push(Node {
                    name: n.name,
                    op,
                    uses,
                    concurrent: n.concurrent,
                    scope: 0,
                });
                out.parents.push(parent);
                true
            }
            _ => {
                by_name.insert(n.name.to_string(), usize::MAX);
                out.failed.push(n.name);
                false
            }
        };
        for (b, items) in bodies.into_iter().enumerate() {
            let inner = kept.then_some((index, b as u32));
            let outer = match &iter {
                Some(it) => cx.iter.replace(Iter {
                    block: kept.then_some(index),
                    ..it.clone()
                }),
                None => cx.iter.clone(),
            };
            walk(cx, items, Some(inner), by_name, out);
            cx.iter = outer;
        }
    }
}

/// A repeat block's body holds kernel, memset, memcpy, empty and collective nodes (the order
/// of collectives between iterations is `validate::collectives`' proof).
fn check_repeat_kind(cx: &mut Lower<'_>, name: &Ident, op: &NodeOp, owner: &Ident) -> bool {
    if matches!(op, NodeOp::Collective(_)) {
        return true;
    }
    let kind = op.kind();
    use cuda_graph_topology::NodeKind as K;
    let ok = matches!(kind, K::Kernel | K::Memset | K::Memcpy | K::Empty);
    if !ok {
        cx.errors.at(
            name.span(),
            format!(
                "{} {} node cannot go inside repeat block `{owner}`: a block's body holds kernel, memset, memcpy, empty and collective nodes; move `{name}` before or after `{owner}`",
                if kind.as_str().starts_with(['a', 'e']) { "an" } else { "a" },
                kind.as_str()
            ),
        );
    }
    ok
}

/// Host and event nodes cannot go inside a conditional body (collectives may, under a
/// condition every rank sets alike: `collectives::check_bodies`).
fn check_body_kind(cx: &mut Lower<'_>, name: &Ident, op: &NodeOp, owner: &Ident) {
    if matches!(op, NodeOp::Collective(_)) {
        return;
    }
    let kind = op.kind();
    if !kind.runs_in_body() {
        cx.errors.at(
            name.span(),
            format!(
                "{} {} node cannot go inside the body of conditional node `{owner}`: CUDA runs only kernel, memset, memcpy, empty, child graph and conditional nodes there; move `{name}` before or after `{owner}`",
                if kind.as_str().starts_with('e') { "an" } else { "a" },
                kind.as_str()
            ),
        );
    }
}
