//! Child graph nodes: `sub = child(Other { y: y, k: 3 })`, another `cuda_graph!` graph.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Path};

use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::{Child, ChildArg, InputKind, Uses};

/// Each field is an input of the parent (a buffer, callback or event, passed by name) or a
/// constant expression; params cannot flow in (the child is built once).
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
                    // What the child does with it is unknown here: count it as a write.
                    uses.writes.insert(i);
                }
                out.push((name, ChildArg::Input(i, value.span())));
            }
            Some(i) => {
                param_into_child(cx, value.span(), i);
                ok = false;
            }
            None => {
                // A constant expression: its names are checked, and must use no param.
                let span = value.span();
                match cx.value(&mut Uses::default(), value, "a child graph input") {
                    Some(v) => match v.params.first() {
                        Some(&p) => {
                            param_into_child(cx, span, p);
                            ok = false;
                        }
                        None => out.push((name, ChildArg::Expr(v.expr))),
                    },
                    None => ok = false,
                }
            }
        }
    }
    ok.then_some(Child { ty, fields: out })
}

fn param_into_child(cx: &mut Lower<'_>, span: Span, param: usize) {
    let name = &cx.inputs[param].name;
    let msg = format!(
        "param `{name}` cannot flow into a child graph (the child is built once); pass a constant"
    );
    cx.errors.at(span, msg);
}

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::ChildNode)
}

/// Builds the child graph (`Other::__cg_child`) with the parent's inputs, then adds the node.
pub(super) fn add(cx: &Cx<'_>, c: &Child, name: &str, deps: TokenStream) -> TokenStream {
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
            ChildArg::Expr(e) => e.to_token_stream(),
        };
        quote!(#f: #v)
    });
    let ty = &c.ty;
    let child_ty = child_struct_path(ty);
    quote! {{
        let __cg_child = #ty::__cg_child(&*__cg_g, __cg_module, #child_ty { #(#fields,)* })?;
        __cg_g.add_child(#name, #deps, __cg_child)?
    }}
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
