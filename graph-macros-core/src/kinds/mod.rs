//! Node kinds, one module each: how its syntax is checked and lowered into the model, and how
//! the model is expanded (its handle type, how `build` adds it, how setters refresh it, its view
//! on the executable graph), as an implementation of [`Kind`]. This module holds the two tables
//! that dispatch on the kind: [`lower`] (syntax to model) and [`kind`] (model to expansion).

mod captured;
mod child;
mod collective;
mod cond;
mod empty;
mod event;
mod host;
mod kernel;
mod kernel_lower;
mod memcpy;
mod memset;
mod repeat;
mod stack;
mod temp;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Op;
use crate::gen::Cx;
use crate::lower::Lower;
use crate::model::{Graph, Node, NodeOp, Uses};

pub(crate) use captured::work_ty;
pub(crate) use child::child_nodes_path;
pub(crate) use cond::{add_limits, limit_methods};
pub(crate) use kernel::{add_run, args_alias, kernel_types, kernel_views};
pub(crate) use stack::{check_counts, written};

/// Checks a node's operation and lowers it into the model, recording what it uses. `None`
/// (with errors reported) leaves the node out.
/// `node` is the index the node gets.
pub(crate) fn lower(cx: &mut Lower<'_>, op: Op, uses: &mut Uses, node: usize) -> Option<NodeOp> {
    match op {
        Op::Conditional(c) => cond::lower(cx, &c, node).map(NodeOp::Conditional),
        Op::Repeat(r) => repeat::lower(cx, r).map(NodeOp::Repeat),
        Op::Capture {
            work,
            reads,
            writes,
        } => captured::lower(cx, work, reads, writes, uses).map(NodeOp::Captured),
        Op::Collective(c) => collective::lower(cx, c, uses).map(NodeOp::Collective),
        Op::Launch(l) => kernel_lower::lower(cx, l, uses).map(NodeOp::Launch),
        Op::Memset { dst, value } => memset::lower(cx, dst, value, uses).map(NodeOp::Memset),
        Op::Memcpy { dst, src } => memcpy::lower(cx, dst, src, uses).map(NodeOp::Memcpy),
        Op::Host(f) => host::lower(cx, f).map(NodeOp::Host),
        Op::Empty => Some(NodeOp::Empty),
        Op::Child { ty, fields } => child::lower(cx, ty, fields, uses).map(NodeOp::Child),
        Op::Record(ev) => event::lower(cx, &ev).map(NodeOp::Record),
        Op::Wait(ev) => event::lower(cx, &ev).map(NodeOp::Wait),
        // Blocks are placed before any check (`validate/blocks.rs`); one left here is inside
        // another block's body.
        Op::Use(u) => {
            cx.errors.at(
                u.block.span(),
                format!(
                    "a block cannot place another block: place `{}` in the graph, beside this one",
                    u.block
                ),
            );
            None
        }
    }
}

/// How a node uses an input: whether its launch configuration does (kernels), and which of
/// its parts do, as the runtime's `SendAgain` takes them
/// (bit `i`: a kernel's argument `i`; bit 0 a memset's or memcpy's destination, bit 1 its value
/// or source; kinds with one part: all bits). A setter sends only those parts, so edits of the
/// others through the node's view stay.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Use {
    pub cfg: bool,
    pub parts: u64,
}

impl Use {
    /// Every part.
    pub(crate) const ALL: Use = Use {
        cfg: false,
        parts: u64::MAX,
    };
}

/// What the expansion asks of a node kind, given the node's operation. A kind whose nodes
/// have nothing that changes has no node function, is never sent again and uses no input.
pub(crate) trait Kind {
    /// What makes two nodes' handles the same type: nodes with equal keys share one handle
    /// group in the generated state. Types compare as token text (spans ignored).
    fn key(&self, g: &Graph) -> String;
    /// The node's handle type.
    fn handle_ty(&self, g: &Graph) -> TokenStream;
    /// The view its handle gives on the executable graph.
    fn view_ty(&self, g: &Graph) -> TokenStream;
    /// The return type of its group's node function and, per node of group `gi`, what it
    /// is made of from the current inputs; `None` for kinds with nothing that changes.
    fn node_fn(&self, _cx: &Cx<'_>, _gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        None
    }
    /// The expression `build` adds node `ni` with, after `deps` (`&[&dyn Dep]`); `made` calls
    /// its node function.
    fn add(
        &self,
        cx: &Cx<'_>,
        ni: usize,
        name: &TokenStream,
        made: TokenStream,
        deps: TokenStream,
    ) -> TokenStream;
    /// Whether node `n` must be sent again when input `input` changes, and if so how it uses
    /// it (see [`Use`]).
    fn uses(&self, _cx: &Cx<'_>, _n: &Node, _input: usize) -> Option<Use> {
        None
    }
    /// The arm of `Resend::resend` for group `gi`, which sends node `j` again (`e`: the
    /// executable graph, `st`: the state); by default the runtime's `send_again` with what the
    /// node function makes, for kinds that have one.
    fn resend(&self, cx: &Cx<'_>, gi: usize) -> Option<TokenStream> {
        self.node_fn(cx, gi)?;
        let (f, nf) = (Cx::group_field(gi), Cx::node_fn(gi));
        Some(quote!(e.node(st.nodes.#f[j])?.send_again(st.inputs.#nf(j), which)))
    }
}

/// The table of node kinds in the model: each operation as its [`Kind`].
pub(crate) fn kind(op: &NodeOp) -> Box<dyn Kind + '_> {
    match op {
        NodeOp::Launch(l) => Box::new(kernel::Run(l)),
        NodeOp::Memset(m) => Box::new(memset::Fill(m)),
        NodeOp::Memcpy(m) => Box::new(memcpy::Transfer(m)),
        NodeOp::Host(h) => Box::new(host::Call(h)),
        NodeOp::Empty => Box::new(empty::Empty),
        NodeOp::Child(c) => Box::new(child::Run(c)),
        NodeOp::Record(e) => Box::new(event::Event {
            input: *e,
            record: true,
        }),
        NodeOp::Wait(e) => Box::new(event::Event {
            input: *e,
            record: false,
        }),
        NodeOp::Conditional(c) => Box::new(cond::Branch(c)),
        NodeOp::Repeat(_) => Box::new(repeat::Block),
        NodeOp::MemAlloc(t) => Box::new(temp::Alloc(*t)),
        NodeOp::MemFree(t) => Box::new(temp::Free(*t)),
        NodeOp::Captured(c) => Box::new(captured::Work(c)),
        NodeOp::Collective(c) => Box::new(collective::Run(c)),
    }
}

/// The node's handle type.
pub(crate) fn handle_ty(g: &Graph, op: &NodeOp) -> TokenStream {
    kind(op).handle_ty(g)
}

/// `nodeN(&self, j)`, a method of the inputs: what node `j` of group `gi` is made of, from the
/// current inputs (a kernel's launch configuration and arguments, a memset's buffer and value,
/// ...), used by `build` and by every setter; none for kinds with nothing that changes.
pub(crate) fn node_fn(cx: &Cx<'_>, gi: usize) -> TokenStream {
    let first = cx.groups.members[gi][0];
    let Some((ret, arms)) = kind(&cx.g.nodes[first].op).node_fn(cx, gi) else {
        return TokenStream::new();
    };
    let f = Cx::node_fn(gi);
    // Nodes made the same way share one arm (a chain of one kernel with the same arguments
    // has one), which keeps the function small for large graphs.
    let mut distinct: Vec<(&TokenStream, Vec<usize>)> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for (j, arm) in arms.iter().enumerate() {
        let k = *seen.entry(arm.to_string()).or_insert_with(|| {
            distinct.push((arm, Vec::new()));
            distinct.len() - 1
        });
        distinct[k].1.push(j);
    }
    let firsts: Vec<&TokenStream> = distinct.iter().map(|(arm, _)| *arm).collect();
    let columns = (distinct.len() > 4 && distinct.len() == arms.len())
        .then(|| crate::gen::literal_columns(&firsts))
        .flatten();
    // A repeat block's node: `__cg_j` is the iteration, named as the user wrote it.
    let var = cx
        .groups
        .repeated(cx.g, gi)
        .then(|| cx.loop_var(first))
        .map(|v| quote!(let #v: usize = __cg_j;));
    // A small body (one arm, a few, or columns looked up) is inlined where it is called: its
    // launch configuration then goes to the shadow from registers, where a call's result
    // would be read back from memory just after it was written, which stalls.
    let inline = (distinct.len() <= 4 || columns.is_some()).then(|| quote!(#[inline(always)]));
    let body = match distinct.as_slice() {
        [(only, _)] => quote!(#var #only),
        _ if columns.is_some() => {
            let (lets, arm) = columns.expect("checked");
            quote!(#lets #arm)
        }
        _ => {
            let rows = distinct
                .iter()
                .map(|(arm, js)| quote!(#(#js)|* => { #arm }));
            quote!(match __cg_j { #(#rows)* _ => ::core::unreachable!() })
        }
    };
    quote!(#inline fn #f(&self, __cg_j: usize) -> #ret { let __cg_s = self; #body })
}

/// The expression `build` adds node `ni` with (kernel nodes are added in runs, by `add_run`,
/// or one by one, by `add_one`). `deps` is the dependency list (`&[&dyn Dep]`); `iteration`,
/// for a node of a repeat block, the variable holding the iteration being added.
pub(crate) fn add(
    cx: &Cx<'_>,
    ni: usize,
    iteration: Option<&TokenStream>,
    deps: TokenStream,
) -> TokenStream {
    let n = &cx.g.nodes[ni];
    let (name, made) = made(cx, ni, iteration);
    kind(&n.op).add(cx, ni, &name, made, deps)
}

/// Node `ni`'s name (an expression of type `&str`) and what its node function makes, for
/// iteration `iteration` of its repeat block if it is in one.
pub(crate) fn made(
    cx: &Cx<'_>,
    ni: usize,
    iteration: Option<&TokenStream>,
) -> (TokenStream, TokenStream) {
    let rt = crate::gen::rt();
    let name = cx.g.nodes[ni].name.to_string();
    let (gi, j) = cx.groups.of[ni];
    let f = Cx::node_fn(gi);
    match iteration {
        None => {
            let j = proc_macro2::Literal::usize_unsuffixed(j);
            (quote!(#name), quote!(__cg_s.#f(#j)))
        }
        Some(l) => (
            quote!(&#rt::__private::iteration_name(#name, #l)),
            quote!(__cg_s.#f(#l)),
        ),
    }
}

/// Whether node `ni` must be sent again when input `input` changes, and how it uses it.
pub(crate) fn uses(cx: &Cx<'_>, ni: usize, input: usize) -> Option<Use> {
    let n = &cx.g.nodes[ni];
    kind(&n.op).uses(cx, n, input)
}

/// The arm of `Resend::resend` for group `gi` (no user expression is evaluated there: the
/// node functions do that).
pub(crate) fn resend(cx: &Cx<'_>, gi: usize) -> Option<TokenStream> {
    let first = cx.groups.members[gi][0];
    kind(&cx.g.nodes[first].op).resend(cx, gi)
}
