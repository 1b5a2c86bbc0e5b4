//! Child graph nodes: `sub = child(Other { y: y, k: 3 })`, another `cuda_graph!` graph. A
//! field is an input of the parent passed by name (a buffer, callback or event), or an
//! expression of the parent's params and constants. When one of those changes on the executable
//! graph, the child graph is built again with the new inputs and swapped into the node in place
//! (same nodes and edges, one driver call).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Path};

use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::{Child, ChildArg, InputKind, Uses};

/// Each field is an input of the parent (a buffer, callback or event, passed by name) or an
/// expression of params and constants.
pub(super) fn lower(
    cx: &mut Lower<'_>,
    ty: Path,
    fields: Vec<(Ident, Expr)>,
    uses: &mut Uses,
) -> Option<Child> {
    let mut ok = true;
    let mut out = Vec::new();
    for (name, value) in fields {
        let named = match &value {
            Expr::Path(p) => p.path.get_ident().cloned(),
            _ => None,
        };
        if let Some(id) = named.as_ref().filter(|id| cx.find_cond(id).is_some()) {
            cx.errors.at(
                id.span(),
                format!(
                    "condition `{id}` belongs to graph `{}` and cannot go into a child graph, which is a graph of its own; declare a `cond` in the child graph and set it there",
                    cx.graph
                ),
            );
            ok = false;
            continue;
        }
        match named.as_ref().and_then(|id| cx.find(id)) {
            Some(i) if !matches!(cx.inputs[i].kind, InputKind::Param(_)) => {
                cx.inputs[i].used = true;
                if cx.inputs[i].kind.buffer().is_some() {
                    // What the child does with it is unknown here: count it as read (so a
                    // temporary must be written before) and written.
                    uses.reads.insert(i);
                    uses.writes.insert(i);
                }
                out.push((name, ChildArg::Input(i, value.span())));
            }
            _ => match cx.value(uses, value, "a child graph input") {
                Some(v) => out.push((name, ChildArg::Value(v))),
                None => ok = false,
            },
        }
    }
    ok.then_some(Child { ty, fields: out })
}

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::ChildNode)
}

/// `OtherChild { ... }` from the parent's state `state` (`__cg_s` in `build`, the stored
/// inputs in a setter), with the params the values use bound first.
fn child_args(cx: &Cx<'_>, c: &Child, state: &TokenStream) -> TokenStream {
    let lets = cx.bind_params(c.fields.iter().filter_map(|(_, a)| match a {
        ChildArg::Value(v) => Some(&v.params),
        ChildArg::Input(..) => None,
    }));
    let fields = c.fields.iter().map(|(f, a)| {
        let v = match a {
            ChildArg::Input(i, span) => {
                let field = Ident::new(&cx.input_field(*i).to_string(), *span);
                match cx.g.inputs[*i].kind {
                    InputKind::Buffer(_) => {
                        quote_spanned!(*span=> ::core::convert::From::from(__cg_s.#field))
                    }
                    _ => quote!(__cg_s.#field),
                }
            }
            ChildArg::Value(v) => v.expr.to_token_stream(),
        };
        quote!(#f: #v)
    });
    let child_ty = child_struct_path(&c.ty);
    quote!({
        let __cg_s = &#state;
        #lets
        #child_ty { #(#fields,)* }
    })
}

/// Builds the child graph (`Other::__cg_child`) with the parent's inputs, keeps its node
/// handles, then adds the node.
pub(super) fn add(cx: &Cx<'_>, c: &Child, node: &Ident, deps: TokenStream) -> TokenStream {
    let ty = &c.ty;
    let args = child_args(cx, c, &quote!(*__cg_s));
    let (name, kid) = (node.to_string(), Cx::kid_field(node));
    quote! {{
        let (__cg_child, __cg_nodes) = #ty::__cg_child(&*__cg_g, __cg_module, #args)?;
        __cg_s.#kid = ::core::option::Option::Some(__cg_nodes);
        __cg_g.add_child(#name, #deps, __cg_child)?
    }}
}

/// `Other` becomes `OtherNodes`.
pub(crate) fn child_nodes_path(ty: &Path) -> TokenStream {
    let mut p = ty.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = format_ident!("{}Nodes", last.ident, span = last.ident.span());
    }
    p.to_token_stream()
}

/// When an input the child uses changes: the child graph built again from the stored inputs,
/// and swapped into the node (same shape, one driver call; on failure nothing changes).
pub(super) fn refresh(
    cx: &Cx<'_>,
    c: &Child,
    node: &Ident,
    input: usize,
    uses_param: bool,
    view: &TokenStream,
) -> Vec<TokenStream> {
    if !passes(c, input) && !uses_param {
        return Vec::new();
    }
    let rt = rt();
    let ty = &c.ty;
    let args = child_args(cx, c, &quote!(self.__cg.inputs));
    let (name, kid) = (node.to_string(), Cx::kid_field(node));
    vec![quote! {
        let (__cg_child, __cg_nodes) =
            #ty::__cg_child(self.__cg_exec.graph(), &self.__cg.module, #args)
                .map_err(|e| #rt::EditError::child_build(#name, e))?;
        #view.set_graph(__cg_child)?;
        self.__cg.inputs.#kid = ::core::option::Option::Some(__cg_nodes);
    }]
}

/// `Other` becomes `OtherChild` (same path, last segment suffixed).
fn child_struct_path(ty: &Path) -> TokenStream {
    let mut p = ty.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = format_ident!("{}Child", last.ident, span = last.ident.span());
    }
    p.to_token_stream()
}

/// Whether the child node passes input `input` to its child graph.
pub(super) fn passes(c: &Child, input: usize) -> bool {
    c.fields
        .iter()
        .any(|(_, a)| matches!(a, ChildArg::Input(i, _) if *i == input))
}
