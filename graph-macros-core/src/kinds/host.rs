//! Host nodes: `tell = host(done)` (a declared callback) or `host(|| ...)` (a closure).

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::Expr;

use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::{Host, InputKind};

pub(super) fn lower(cx: &mut Lower<'_>, f: Expr) -> Option<Host> {
    if let Expr::Path(p) = &f {
        if let Some(id) = p.path.get_ident() {
            return match cx.find(id) {
                Some(i) if matches!(cx.inputs[i].kind, InputKind::Callback) => {
                    cx.inputs[i].used = true;
                    Some(Host::Callback(i))
                }
                Some(i) if is_temp(&cx.inputs[i].kind) => {
                    cx.errors.at(id.span(), unreachable_temp(id));
                    None
                }
                _ => {
                    cx.errors.at(
                        id.span(),
                        format!(
                            "no callback named `{id}` is declared; declare it with `callback {id};` or write a closure `host(|| ...)`"
                        ),
                    );
                    None
                }
            };
        }
    }
    if !matches!(f, Expr::Closure(_)) {
        cx.errors.at(
            f.span(),
            "`host(...)` takes a declared callback or a closure `|| ...`",
        );
        return None;
    }
    // The closure runs on the host, which cannot reach graph-owned memory: a temporary named
    // there is a mistake (it would name a variable of the surrounding scope, or nothing).
    let mut ok = true;
    let tokens = quote::ToTokens::to_token_stream(&f);
    let bound = let_bound(tokens.clone());
    for id in crate::lower::free_idents(tokens) {
        let temp = cx.find(&id).is_some_and(|i| is_temp(&cx.inputs[i].kind));
        if temp && !bound.contains(&id) {
            cx.errors.at(id.span(), unreachable_temp(&id));
            ok = false;
        }
    }
    ok.then_some(Host::Closure(f))
}

fn is_temp(kind: &InputKind) -> bool {
    matches!(kind.buffer(), Some(b) if b.temp.is_some())
}

fn unreachable_temp(id: &syn::Ident) -> String {
    format!(
        "`{id}` is a temporary: graph-owned memory that exists only on the device while a launch runs, so host code cannot reach it; copy it into a `host_buffer` with a memcpy node (`back = memcpy(out, {id});`) ordered before the host node, and read that buffer"
    )
}

/// Names bound by `let` (or `let mut`) inside `tokens`: the closure's own variables.
fn let_bound(tokens: proc_macro2::TokenStream) -> Vec<syn::Ident> {
    let mut out = Vec::new();
    let tts: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            proc_macro2::TokenTree::Group(g) => out.extend(let_bound(g.stream())),
            proc_macro2::TokenTree::Ident(id) if id == "let" => {
                let mut j = i + 1;
                if matches!(tts.get(j), Some(proc_macro2::TokenTree::Ident(m)) if m == "mut") {
                    j += 1;
                }
                if let Some(proc_macro2::TokenTree::Ident(name)) = tts.get(j) {
                    out.push(name.clone());
                }
            }
            _ => {}
        }
    }
    out
}

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::node::HostNode)
}

pub(super) fn add(cx: &Cx<'_>, h: &Host, name: &TokenStream, deps: TokenStream) -> TokenStream {
    match h {
        Host::Callback(c) => {
            let f = cx.input_field(*c);
            quote!(__cg_g.add_host(#name, #deps, __cg_s.#f)?)
        }
        Host::Closure(f) => quote!(__cg_g.add_host(#name, #deps, #f)?),
    }
}

/// What a host group's node function returns: the callback of a node that runs a declared
/// one (a closure written in place never changes).
pub(super) fn node_ret() -> TokenStream {
    let cb = crate::gen::callback_ty();
    quote!(::core::option::Option<#cb>)
}

/// Per host node of group `gi`: its declared callback, if any.
pub(super) fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    cx.groups.members[gi]
        .iter()
        .map(|&ni| match &cx.g.nodes[ni].op {
            crate::model::NodeOp::Host(Host::Callback(c)) => {
                let f = cx.input_field(*c);
                quote!(::core::option::Option::Some(__cg_s.#f))
            }
            _ => quote!(::core::option::Option::None),
        })
        .collect()
}

/// A host node as a [`Kind`](super::Kind).
pub(super) struct Call<'m>(pub &'m Host);

impl super::Kind for Call<'_> {
    fn key(&self, _: &crate::model::Graph) -> String {
        "host".into()
    }
    fn handle_ty(&self, _: &crate::model::Graph) -> TokenStream {
        handle_ty()
    }
    fn view_ty(&self, _: &crate::model::Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::HostMut<'_, 'a, #rt::node::OnExec>)
    }
    fn node_fn(&self, cx: &Cx<'_>, gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        Some((node_ret(), node_arms(cx, gi)))
    }
    fn add(
        &self,
        cx: &Cx<'_>,
        _: usize,
        name: &TokenStream,
        _: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        add(cx, self.0, name, deps)
    }
    fn uses(&self, _: &Cx<'_>, _: &crate::model::Node, input: usize) -> Option<super::Use> {
        matches!(self.0, Host::Callback(c) if *c == input).then_some(super::Use::ALL)
    }
}
