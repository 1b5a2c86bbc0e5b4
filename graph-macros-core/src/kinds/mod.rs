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
use quote::{quote, ToTokens};
use syn::Type;

use crate::ast::Op;
use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::{Graph, NodeOp, Uses};

pub(crate) use captured::work_ty;
pub(crate) use child::child_nodes_path;
pub(crate) use kernel::{add_run, args_alias, kernel_types, kernel_views};

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
    Child(String),
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
        NodeOp::Child(c) => Key::Child(c.ty.to_token_stream().to_string()),
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

/// The view a node's handle gives on the executable graph (kernel nodes get the graph's own
/// view types instead, with a setter per parameter).
pub(crate) fn view_ty(g: &Graph, op: &NodeOp) -> TokenStream {
    let rt = rt();
    let on = quote!(#rt::node::OnExec);
    match op {
        NodeOp::Launch(_) => unreachable!("kernel views are the graph's own types"),
        NodeOp::Memset(m) => {
            let e = &g.buffer(m.dst).elem;
            quote!(#rt::node::MemsetMut<'_, 'a, #e, #on>)
        }
        NodeOp::Memcpy(m) => memcpy::view_ty(g, m),
        NodeOp::Host(_) => quote!(#rt::node::HostMut<'_, 'a, #on>),
        NodeOp::Empty => quote!(#rt::node::EmptyMut<'_, 'a, #on>),
        NodeOp::Child(_) => quote!(#rt::node::ChildMut<'_, 'a, #on>),
        NodeOp::Record(_) => quote!(#rt::node::EventRecordMut<'_, 'a, #on>),
        NodeOp::Wait(_) => quote!(#rt::node::EventWaitMut<'_, 'a, #on>),
        NodeOp::Conditional(_) => quote!(#rt::node::CondMut<'_, 'a, #on>),
        NodeOp::MemAlloc(t) => {
            let e = &g.buffer(*t).elem;
            quote!(#rt::node::MemAllocMut<'_, 'a, #e, #on>)
        }
        NodeOp::MemFree(_) => quote!(#rt::node::MemFreeMut<'_, 'a, #on>),
        NodeOp::Captured(_) => quote!(#rt::node::CapturedMut<'_, 'a, #on>),
    }
}

/// `__cg_node_<gi>(j, inputs)`: what node `j` of group `gi` is made of, from the current
/// inputs (a kernel's launch configuration and arguments, a memset's buffer and value, ...),
/// used by `build` and by every setter; none for kinds with nothing that changes.
pub(crate) fn node_fn(cx: &Cx<'_>, gi: usize) -> TokenStream {
    let first = cx.groups.members[gi][0];
    let (ret, arms): (TokenStream, Vec<TokenStream>) = match &cx.g.nodes[first].op {
        NodeOp::Launch(l) => (kernel::node_ret(cx, l.kernel), kernel::node_arms(cx, gi)),
        NodeOp::Memset(m) => (memset::node_ret(cx, m), memset::node_arms(cx, gi)),
        NodeOp::Memcpy(m) => (memcpy::node_ret(cx, m), memcpy::node_arms(cx, gi)),
        NodeOp::Host(_) => (host::node_ret(), host::node_arms(cx, gi)),
        NodeOp::Record(_) | NodeOp::Wait(_) => (event::node_ret(), event::node_arms(cx, gi)),
        NodeOp::MemAlloc(_) => (quote!(usize), temp::node_arms(cx, gi)),
        NodeOp::Child(c) => (child::node_ret(c), child::node_arms(cx, gi)),
        _ => return TokenStream::new(),
    };
    let f = Cx::node_fn(gi);
    let body = match arms.as_slice() {
        [only] => quote!(#only),
        _ => {
            let js = 0..arms.len();
            quote!(match __cg_j { #(#js => { #arms })* _ => ::core::unreachable!() })
        }
    };
    quote!(fn #f(&self, __cg_j: usize) -> #ret { let __cg_s = self; #body })
}

/// The expression `build` adds node `ni` with (kernel nodes are added in runs, by `add_run`).
/// `deps` is the dependency list (`&[&dyn Dep]`).
pub(crate) fn add(cx: &Cx<'_>, ni: usize, deps: TokenStream) -> TokenStream {
    let n = &cx.g.nodes[ni];
    let name = n.name.to_string();
    let (gi, j) = cx.groups.of[ni];
    let made = {
        let f = Cx::node_fn(gi);
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        quote!(__cg_s.#f(#j))
    };
    match &n.op {
        NodeOp::Launch(_) => unreachable!("kernel nodes are added in runs by `add_run`"),
        NodeOp::Memset(_) => quote!(__cg_g.add_fill(#name, #deps, #made)?),
        NodeOp::Memcpy(_) => quote!(__cg_g.add_copy(#name, #deps, #made)?),
        NodeOp::Host(h) => host::add(cx, h, &name, deps),
        NodeOp::Empty => empty::add(&name, deps),
        NodeOp::Child(c) => child::add(cx, ni, c, &n.name, deps),
        NodeOp::Record(_) => quote!(__cg_g.add_event_record(#name, #deps, #made)?),
        NodeOp::Wait(_) => quote!(__cg_g.add_event_wait(#name, #deps, #made)?),
        NodeOp::Conditional(c) => cond::add(cx, c, &name, deps),
        NodeOp::MemAlloc(_) | NodeOp::MemFree(_) => temp::add(cx, ni, &n.op, &name, deps),
        NodeOp::Captured(c) => captured::add(cx, c, &name, deps),
    }
}

/// Whether node `ni` must be sent again when input `input` changes, and if so whether its
/// launch configuration uses it (kernels).
pub(crate) fn uses(cx: &Cx<'_>, ni: usize, input: usize) -> Option<bool> {
    let n = &cx.g.nodes[ni];
    match &n.op {
        NodeOp::Launch(l) if n.uses.any(input) => Some(l.dims().any(|v| v.params.contains(&input))),
        NodeOp::Memset(m) => (m.dst == input || m.value.params.contains(&input)).then_some(false),
        NodeOp::Memcpy(m) => (m.dst == input || m.src == input).then_some(false),
        NodeOp::Host(crate::model::Host::Callback(c)) => (*c == input).then_some(false),
        NodeOp::Record(e) | NodeOp::Wait(e) => (*e == input).then_some(false),
        NodeOp::MemAlloc(t) => {
            let len = cx.g.buffer(*t).temp.as_ref().expect("a temporary");
            len.params.contains(&input).then_some(false)
        }
        NodeOp::Child(c) => {
            (child::passes(c, input) || n.uses.params.contains(&input)).then_some(false)
        }
        _ => None,
    }
}

/// The arm of `Resend::resend` for group `gi`: sends node `j` of the group again from the
/// current inputs (`cfg`: with its launch configuration). `e` is the executable graph, `st`
/// the state (no user expression is evaluated here: the node functions do that).
pub(crate) fn resend(cx: &Cx<'_>, gi: usize) -> Option<TokenStream> {
    let first = cx.groups.members[gi][0];
    let f = Cx::group_field(gi);
    let nf = Cx::node_fn(gi);
    Some(match &cx.g.nodes[first].op {
        NodeOp::Launch(_)
        | NodeOp::Memset(_)
        | NodeOp::Memcpy(_)
        | NodeOp::Host(_)
        | NodeOp::Record(_)
        | NodeOp::Wait(_)
        | NodeOp::MemAlloc(_) => quote!(e.node(st.nodes.#f[j])?.send_again(st.inputs.#nf(j), cfg)),
        NodeOp::Child(_) => child::resend(cx, gi),
        _ => return None,
    })
}
