//! What the expansion of one graph shares with each node kind's expansion: the runtime's path,
//! the generated state's names (fields of inputs, arrays of node handles, value functions), and
//! where each node's handle is.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::model::{Graph, InputKind};

/// Node handles grouped by handle type: each group is one boxed array in the generated state
/// (`Box<[KernelNode<A>; N]>`), so the state's type stays small however many nodes the graph
/// has, and setters that touch many nodes of a group loop over it.
pub(crate) struct Groups {
    /// Per node: its group and its index in the group.
    pub of: Vec<(usize, usize)>,
    /// Per group: the handle type.
    pub tys: Vec<TokenStream>,
    /// Per group: the number of nodes.
    pub len: Vec<usize>,
    /// Per group: its nodes, in group order.
    pub members: Vec<Vec<usize>>,
}

impl Groups {
    /// Whether group `gi` holds a repeat block's node (one handle per iteration).
    pub fn repeated(&self, g: &Graph, gi: usize) -> bool {
        g.block_of(self.members[gi][0]).is_some()
    }
}

/// The library, as code inside the expansion's `const _` block names it (`__cg`, an alias of
/// `::cuda_graph` made there): its public paths (`__cg::node::...`), and `__cg::__private`
/// for what only generated code uses.
pub(crate) fn rt() -> TokenStream {
    quote!(__cg)
}

/// The library by its absolute path, for the items the expansion puts in the caller's scope.
pub(crate) fn abs() -> TokenStream {
    quote!(::cuda_graph)
}

/// What every part of the expansion of one graph reads: the model, and where each node's
/// handle is in the generated state.
pub(crate) struct Cx<'g> {
    pub g: &'g Graph,
    pub groups: Groups,
    /// The `where` clause every generated `impl` carries: the bounds the user's types must meet
    /// (see `expand::bounds`).
    pub bounds: TokenStream,
}

impl<'g> Cx<'g> {
    /// Input `i`'s field in `__CgInputs`: `p_a` for param `a`, `b_x` for buffer `x`, `c_` for
    /// callbacks, `e_` for events, `w_` for works and `m_` for communicators, so no two fields
    /// collide.
    pub fn input_field(&self, i: usize) -> Ident {
        let input = &self.g.inputs[i];
        let prefix = match input.kind {
            InputKind::Param(_) => "p",
            InputKind::Buffer(_) => "b",
            InputKind::Callback => "c",
            InputKind::Event => "e",
            InputKind::Work => "w",
            InputKind::Comm => "m",
        };
        format_ident!("{}_{}", prefix, input.name)
    }

    /// Condition `c`'s field in `__CgInputs` (`q_name`; set while `build` runs).
    pub fn cond_field(&self, c: usize) -> Ident {
        format_ident!("q_{}", self.g.conds[c].name)
    }

    /// The state's field holding the iteration limit of the WHILE node on condition `c`
    /// (`while c, max n`): the runtime's `WhileLimit`, set once the graph is built.
    pub fn limit_field(&self, c: usize) -> Ident {
        format_ident!("w_{}", self.g.conds[c].name)
    }

    /// The WHILE nodes with an iteration limit: node index, and the node's model.
    pub fn limited(&self) -> impl Iterator<Item = (usize, &crate::model::Conditional)> + '_ {
        self.g
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(ni, n)| match &n.op {
                crate::model::NodeOp::Conditional(c) if c.limit.is_some() => Some((ni, c)),
                _ => None,
            })
    }

    /// The variable holding the runtime's scope of body `s` of the topology while `build`
    /// runs (0 for the graph itself).
    pub fn scope_expr(s: u32) -> TokenStream {
        if s == 0 {
            quote!(0u32)
        } else {
            let v = format_ident!("__cg_b{}", s);
            quote!(#v)
        }
    }

    /// Child group `gi`'s field in `__CgInputs`: the handles of the graphs its nodes run.
    pub fn kid_field(gi: usize) -> Ident {
        format_ident!("k{}", gi)
    }

    /// Group `gi`'s field in `__CgNodes`, and its variable while `build` adds the nodes (no
    /// user expression is evaluated there after the variables are made).
    pub fn group_field(gi: usize) -> Ident {
        format_ident!("n{}", gi)
    }

    /// Group `gi`'s handles while `build` adds them.
    pub fn group_var(gi: usize) -> Ident {
        Self::group_field(gi)
    }

    /// Whether group `gi` holds kernel nodes (kept as the library's `Kernels`, with their
    /// function).
    pub fn kernel_group(&self, gi: usize) -> Option<usize> {
        match &self.g.nodes[self.groups.members[gi][0]].op {
            crate::model::NodeOp::Launch(l) => Some(l.kernel),
            _ => None,
        }
    }

    /// The loop variable of the repeat block node `ni` is in (as written: user expressions name
    /// it), or `__cg_l` outside any block (never used there).
    pub fn loop_var(&self, ni: usize) -> Ident {
        match self.g.block_of(ni).and_then(|b| self.g.repeat(b)) {
            Some(r) => r.var.clone(),
            None => format_ident!("__cg_l"),
        }
    }

    /// Node `ni`'s handle, read from the state of `self`.
    pub fn handle(&self, ni: usize) -> TokenStream {
        let (gi, j) = self.groups.of[ni];
        let f = Self::group_field(gi);
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        quote!(self.__cg.nodes.#f[#j])
    }

    /// Group `gi`'s node function, a method of the inputs: what each of its nodes is made of.
    pub fn node_fn(gi: usize) -> Ident {
        format_ident!("node{}", gi)
    }

    /// `let a = __cg_s.p_a;` for every param in `sets` (params are `Copy`), so user expressions
    /// can name them.
    pub fn bind_params<'s>(
        &self,
        sets: impl IntoIterator<Item = &'s std::collections::BTreeSet<usize>>,
    ) -> TokenStream {
        let mut params: Vec<usize> = sets.into_iter().flatten().copied().collect();
        params.sort_unstable();
        params.dedup();
        let lets = params.into_iter().map(|i| {
            let name = &self.g.inputs[i].name;
            let f = self.input_field(i);
            quote!(let #name = __cg_s.#f;)
        });
        quote!(#(#lets)*)
    }
}

/// The type of a callback input.
pub(crate) fn callback_ty() -> TokenStream {
    quote!(&'a (dyn ::core::ops::Fn() + ::core::marker::Send + ::core::marker::Sync + 'a))
}

/// The handle type a buffer input gets, with the library at `rt`.
pub(crate) fn handle_ty(kind: &InputKind, rt: &TokenStream) -> TokenStream {
    let b = kind.buffer().expect("only buffers have handles");
    let elem = &b.elem;
    match (b.host, b.mutable) {
        (false, false) if b.peer => quote!(#rt::buffer::PeerBuf<#elem>),
        (false, true) if b.peer => quote!(#rt::buffer::PeerBufMut<#elem>),
        (false, false) => quote!(#rt::buffer::Buf<#elem>),
        (false, true) => quote!(#rt::buffer::BufMut<#elem>),
        (true, false) => quote!(#rt::buffer::HostBuf<#elem>),
        (true, true) => quote!(#rt::buffer::HostBufMut<#elem>),
    }
}

/// Nodes made the same way but for some literals (a fan-out whose nodes differ in an offset):
/// if every arm has the tokens of the first where they are not literals, the literals that
/// differ become columns, read by node index from a constant array. Returns the `let`s that
/// read the columns and the arm written once over `__cg_l<k>`; `None` when the arms differ in
/// anything else.
pub(crate) fn literal_columns(arms: &[&TokenStream]) -> Option<(TokenStream, TokenStream)> {
    use proc_macro2::TokenTree;
    /// A token stream flattened: a group's opening, its tokens, its closing.
    fn leaves(ts: &TokenStream, out: &mut Vec<Option<TokenTree>>) {
        for t in ts.clone() {
            match t {
                TokenTree::Group(g) => {
                    out.push(Some(TokenTree::Group(proc_macro2::Group::new(
                        g.delimiter(),
                        TokenStream::new(),
                    ))));
                    leaves(&g.stream(), out);
                    out.push(None);
                }
                t => out.push(Some(t)),
            }
        }
    }
    let text = |t: &Option<TokenTree>| t.as_ref().map(|t| t.to_string());
    let flat: Vec<Vec<Option<TokenTree>>> = arms
        .iter()
        .map(|a| {
            let mut v = Vec::new();
            leaves(a, &mut v);
            v
        })
        .collect();
    let first = &flat[0];
    if flat.iter().any(|f| f.len() != first.len()) {
        return None;
    }
    let mut columns: Vec<usize> = Vec::new();
    for (p, t) in first.iter().enumerate() {
        let mine = text(t);
        let mut differs = false;
        for other in &flat[1..] {
            if text(&other[p]) != mine {
                if !matches!(
                    (t, &other[p]),
                    (Some(TokenTree::Literal(_)), Some(TokenTree::Literal(_)))
                ) {
                    return None;
                }
                differs = true;
            }
        }
        if differs {
            columns.push(p);
        }
    }
    if columns.is_empty() {
        return None;
    }
    let names: Vec<syn::Ident> = (0..columns.len())
        .map(|k| quote::format_ident!("__cg_l{}", k))
        .collect();
    // The first arm again, its column literals replaced by the names.
    fn rebuild(
        ts: &TokenStream,
        pos: &mut usize,
        columns: &[usize],
        names: &[syn::Ident],
    ) -> TokenStream {
        let mut out = TokenStream::new();
        for t in ts.clone() {
            let here = *pos;
            *pos += 1;
            match t {
                TokenTree::Group(g) => {
                    let inner = rebuild(&g.stream(), pos, columns, names);
                    *pos += 1;
                    let mut ng = proc_macro2::Group::new(g.delimiter(), inner);
                    ng.set_span(g.span());
                    out.extend([TokenTree::Group(ng)]);
                }
                t => match columns.iter().position(|&c| c == here) {
                    Some(k) => {
                        let mut name = names[k].clone();
                        name.set_span(t.span());
                        out.extend([TokenTree::Ident(name)]);
                    }
                    None => out.extend([t]),
                },
            }
        }
        out
    }
    let template = rebuild(arms[0], &mut 0, &columns, &names);
    let lets = columns.iter().zip(&names).map(|(&p, name)| {
        let values = flat.iter().map(|f| f[p].as_ref().expect("a literal"));
        quote::quote!(let #name = (&[#(#values),*])[__cg_j];)
    });
    Some((quote::quote!(#(#lets)*), template))
}
