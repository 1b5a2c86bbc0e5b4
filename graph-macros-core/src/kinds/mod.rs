//! Node kinds, one module each: how its syntax is checked and lowered into the model, and how
//! the model is expanded (its handle type, how `build` adds it, how setters refresh it, its view
//! on the executable graph). This module only dispatches on the kind.

mod captured;
mod child;
mod cond;
mod empty;
mod event;
mod host;
mod kernel;
mod memcpy;
mod memset;
mod temp;

use proc_macro2::TokenStream;
use syn::Type;

use crate::ast::Op;
use crate::gen::Cx;
use crate::lower::Lower;
use crate::model::{Graph, NodeOp, Uses};

pub(crate) use captured::work_ty;
pub(crate) use child::child_nodes_path;
pub(crate) use kernel::{add_run, kernel_views};

/// Checks a node's operation and lowers it into the model, recording what it uses. `None`
/// (with errors reported) leaves the node out.
/// `node` is the index the node gets.
pub(crate) fn lower(cx: &mut Lower<'_>, op: Op, uses: &mut Uses, node: usize) -> Option<NodeOp> {
    match op {
        Op::Conditional(c) => cond::lower(cx, &c, node).map(NodeOp::Conditional),
        Op::Capture {
            work,
            reads,
            writes,
        } => captured::lower(cx, work, reads, writes, uses).map(NodeOp::Captured),
        Op::Launch(l) => kernel::lower(cx, l, uses).map(NodeOp::Launch),
        Op::Memset { dst, value } => memset::lower(cx, dst, value, uses).map(NodeOp::Memset),
        Op::Memcpy { dst, src } => memcpy::lower(cx, dst, src, uses).map(NodeOp::Memcpy),
        Op::Host(f) => host::lower(cx, f).map(NodeOp::Host),
        Op::Empty => Some(NodeOp::Empty),
        Op::Child { ty, fields } => child::lower(cx, ty, fields, uses).map(NodeOp::Child),
        Op::Record(ev) => event::lower(cx, &ev).map(NodeOp::Record),
        Op::Wait(ev) => event::lower(cx, &ev).map(NodeOp::Wait),
    }
}

/// What makes two nodes' handles the same type: nodes with equal keys share one array in the
/// generated state. Types compare structurally (spans ignored).
#[derive(PartialEq)]
pub(crate) enum Key<'g> {
    Kernel(usize),
    Memset(&'g Type),
    Memcpy(&'g Type, bool, bool),
    Host,
    Empty,
    Child,
    Record,
    Wait,
    Conditional,
    MemAlloc(&'g Type),
    MemFree,
    Captured,
}

pub(crate) fn key<'g>(g: &'g Graph, op: &'g NodeOp) -> Key<'g> {
    match op {
        NodeOp::Launch(l) => Key::Kernel(l.kernel),
        NodeOp::Memset(m) => Key::Memset(&g.buffer(m.dst).elem),
        NodeOp::Memcpy(m) => Key::Memcpy(
            &g.buffer(m.dst).elem,
            g.buffer(m.dst).host,
            g.buffer(m.src).host,
        ),
        NodeOp::Host(_) => Key::Host,
        NodeOp::Empty => Key::Empty,
        NodeOp::Child(_) => Key::Child,
        NodeOp::Record(_) => Key::Record,
        NodeOp::Wait(_) => Key::Wait,
        NodeOp::Conditional(_) => Key::Conditional,
        NodeOp::MemAlloc(t) => Key::MemAlloc(&g.buffer(*t).elem),
        NodeOp::MemFree(_) => Key::MemFree,
        NodeOp::Captured(_) => Key::Captured,
    }
}

/// The node's handle type.
pub(crate) fn handle_ty(g: &Graph, op: &NodeOp) -> TokenStream {
    match op {
        NodeOp::Launch(l) => kernel::handle_ty(g, l.kernel),
        NodeOp::Memset(m) => memset::handle_ty(g, m),
        NodeOp::Memcpy(m) => memcpy::handle_ty(g, m),
        NodeOp::Host(_) => host::handle_ty(),
        NodeOp::Empty => empty::handle_ty(),
        NodeOp::Child(_) => child::handle_ty(),
        NodeOp::Record(_) => event::handle_ty(true),
        NodeOp::Wait(_) => event::handle_ty(false),
        NodeOp::Conditional(_) => cond::handle_ty(),
        NodeOp::MemAlloc(_) | NodeOp::MemFree(_) => temp::handle_ty(g, op),
        NodeOp::Captured(_) => captured::handle_ty(),
    }
}

/// Private functions computing the values of group `gi`'s nodes from the current inputs (a
/// `match` on the node's index in the group), used by `build` and by every setter.
pub(crate) fn value_fns(cx: &Cx<'_>, gi: usize) -> TokenStream {
    let first = cx.groups.members[gi][0];
    match &cx.g.nodes[first].op {
        NodeOp::Launch(_) => kernel::value_fns(cx, gi),
        NodeOp::Memset(_) => memset::value_fns(cx, gi),
        NodeOp::MemAlloc(_) => temp::value_fns(cx, gi),
        _ => TokenStream::new(),
    }
}

/// The expression `build` adds node `ni` with (kernel nodes are added in runs, by `add_run`).
/// `deps` is the dependency list (`&[&dyn Dep]`).
pub(crate) fn add(cx: &Cx<'_>, ni: usize, deps: TokenStream) -> TokenStream {
    let n = &cx.g.nodes[ni];
    let name = n.name.to_string();
    match &n.op {
        NodeOp::Launch(_) => unreachable!("kernel nodes are added in runs by `add_run`"),
        NodeOp::Memset(m) => memset::add(cx, ni, m, &name, deps),
        NodeOp::Memcpy(m) => memcpy::add(cx, m, &name, deps),
        NodeOp::Host(h) => host::add(cx, h, &name, deps),
        NodeOp::Empty => empty::add(&name, deps),
        NodeOp::Child(c) => child::add(cx, c, &n.name, deps),
        NodeOp::Record(e) => event::add(cx, *e, true, &name, deps),
        NodeOp::Wait(e) => event::add(cx, *e, false, &name, deps),
        NodeOp::Conditional(c) => cond::add(cx, c, &name, deps),
        NodeOp::MemAlloc(_) | NodeOp::MemFree(_) => temp::add(cx, ni, &n.op, &name, deps),
        NodeOp::Captured(c) => captured::add(cx, c, &name, deps),
    }
}

/// Statements that bring node `ni` in line with a changed input `input` (a param, buffer,
/// callback or event), opening its view with `view` and reading the state through
/// `self.__cg.inputs`; none if the node does not use it. Each runs with `__cg_j`, the node's
/// index in its group, in scope.
pub(crate) fn refresh(
    cx: &Cx<'_>,
    ni: usize,
    input: usize,
    view: &TokenStream,
) -> Vec<TokenStream> {
    let n = &cx.g.nodes[ni];
    match &n.op {
        NodeOp::Launch(l) if n.uses.any(input) => vec![kernel::refresh(cx, ni, l, input, view)],
        NodeOp::Launch(_) => Vec::new(),
        NodeOp::Memset(m) => memset::refresh(cx, ni, m, input, view),
        NodeOp::Memcpy(m) => memcpy::refresh(cx, m, input, view),
        NodeOp::Host(h) => host::refresh(cx, h, input, view),
        NodeOp::Record(e) | NodeOp::Wait(e) => event::refresh(cx, *e, input, view),
        NodeOp::MemAlloc(_) => temp::refresh(cx, ni, input, view),
        NodeOp::Child(c) => {
            child::refresh(cx, c, &n.name, input, n.uses.params.contains(&input), view)
        }
        NodeOp::Empty | NodeOp::Conditional(_) | NodeOp::MemFree(_) | NodeOp::Captured(_) => {
            Vec::new()
        }
    }
}
