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
use crate::lower::{hint, primitive, KnownInput, Lower};
use crate::model::{Child, ChildArg, InputKind, NodeOp, Uses};

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
    let known = ty
        .get_ident()
        .filter(|id| **id != cx.graph)
        .and_then(|id| cx.known.iter().position(|k| k.name == *id));
    if let Some(k) = known {
        let comm = cx.known[k]
            .inputs
            .iter()
            .find(|(_, i)| matches!(i, KnownInput::Comm));
        if let Some((c, _)) = comm {
            let span = ty
                .segments
                .last()
                .map_or_else(|| ty.span(), |s| s.ident.span());
            cx.errors.at(
                span,
                format!(
                    "graph `{}` runs collectives on communicator `{c}`, and a graph with a `comm` cannot be a child graph: the order of its collectives could not be proved the same on every rank with this graph's; write its nodes in this graph",
                    cx.known[k].name
                ),
            );
            return None;
        }
        ok &= check_fields(cx, k, &ty, &fields);
    }
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
                if cx.inputs[i].kind.buffer().is_some_and(|b| b.peer) {
                    let id = named.as_ref().expect("found by name");
                    cx.errors
                        .at(id.span(), crate::lower::peer_misuse(id, "a child graph"));
                    ok = false;
                    continue;
                }
                if let Some(k) = known {
                    ok &= check_passed(cx, k, &name, named.as_ref().expect("found by name"), i);
                }
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

/// A child graph of this macro call gets each of its inputs once, and no other field.
fn check_fields(cx: &mut Lower<'_>, k: usize, ty: &Path, fields: &[(Ident, Expr)]) -> bool {
    let child = &cx.known[k];
    let mut ok = true;
    for (name, _) in fields {
        if !child.inputs.iter().any(|(n, _)| n == name) {
            let names: Vec<String> = child.inputs.iter().map(|(n, _)| n.to_string()).collect();
            let fallback = if names.is_empty() {
                "; it has no inputs"
            } else {
                ""
            };
            cx.errors.at(
                name.span(),
                format!(
                    "graph `{}` has no input `{name}`{}",
                    child.name,
                    hint(&name.to_string(), names, fallback)
                ),
            );
            ok = false;
        }
    }
    let missing: Vec<String> = child
        .inputs
        .iter()
        .filter(|(n, _)| !fields.iter().any(|(f, _)| f == n))
        .map(|(n, _)| format!("`{n}`"))
        .collect();
    if ok && !missing.is_empty() {
        let span = ty
            .segments
            .last()
            .map_or_else(|| ty.span(), |s| s.ident.span());
        cx.errors.at(
            span,
            format!(
                "child graph `{}` needs {} {}: write `{} {{ ..., {}: ... }}`",
                child.name,
                if missing.len() == 1 {
                    "its input"
                } else {
                    "its inputs"
                },
                missing.join(", "),
                child.name,
                missing[0].trim_matches('`')
            ),
        );
        ok = false;
    }
    ok
}

/// Input `i` of this graph, passed by name as the child's input `field`: a buffer where the
/// child takes one, writable where it writes, of the element type it takes.
fn check_passed(cx: &mut Lower<'_>, k: usize, field: &Ident, id: &Ident, i: usize) -> bool {
    let child = &cx.known[k];
    let Some((_, want)) = child.inputs.iter().find(|(n, _)| n == field) else {
        return true; // reported by `check_fields`
    };
    let g = &child.name;
    let msg = match (want, &cx.inputs[i].kind) {
        (
            KnownInput::Buffer {
                host,
                mutable,
                elem,
                stack,
            },
            InputKind::Buffer(b),
        ) => {
            let kw = if b.host { "host_buffer" } else { "buffer" };
            if *stack || b.stack.is_some() {
                let which = if *stack {
                    format!("graph `{g}` takes a stack of buffers for `{field}`")
                } else {
                    format!("`{id}` is a stack of buffers")
                };
                Some(format!(
                    "{which}, and stacks are not passed to child graphs; give the child one buffer per input, or write the repeat block in this graph"
                ))
            } else if *host != b.host {
                let (what, other) = if *host {
                    ("a host buffer", "a device buffer")
                } else {
                    ("a device buffer", "a host buffer")
                };
                Some(format!(
                    "graph `{g}` takes {what} for `{field}`, but `{id}` is {other}"
                ))
            } else if *mutable && !b.mutable {
                Some(format!(
                    "{kw} `{id}` is read-only but graph `{g}` writes its input `{field}`; declare it `{kw} mut {id}: ...;`"
                ))
            } else {
                match (primitive(elem), primitive(&b.elem)) {
                    (Some(w), Some(e)) if w != e => Some(format!(
                        "graph `{g}` takes a buffer of `{w}` for `{field}`, but {kw} `{id}` holds `{e}`; pass a buffer of `{w}`"
                    )),
                    _ => None,
                }
            }
        }
        (KnownInput::Buffer { .. }, other) => Some(format!(
            "graph `{g}` takes a buffer for `{field}`, but `{id}` is {}",
            other.describe()
        )),
        (KnownInput::Callback, InputKind::Callback)
        | (KnownInput::Event, InputKind::Event)
        | (KnownInput::Work, InputKind::Work) => None,
        (want, other) => {
            let what = match want {
                KnownInput::Param(_) => "a value (a param)",
                KnownInput::Callback => "a callback",
                KnownInput::Event => "an event",
                KnownInput::Comm => "a communicator",
                _ => "a work",
            };
            Some(format!(
                "graph `{g}` takes {what} for `{field}`, but `{id}` is {}",
                other.describe()
            ))
        }
    };
    match msg {
        Some(m) => {
            cx.errors.once(format!("{field}:{id}"), id.span(), m);
            false
        }
        None => true,
    }
}

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::node::ChildNode)
}

/// What a child group's node function returns: the child graph's inputs (`OtherChild<'a>`).
pub(super) fn node_ret(c: &Child) -> TokenStream {
    let p = child_struct_path(&c.ty);
    quote!(#p<'a>)
}

/// Per child node of group `gi` (one child graph type): `OtherChild { ... }` from the parent's
/// inputs, with the params the values use bound first.
pub(super) fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    cx.groups.members[gi]
        .iter()
        .map(|&ni| {
            let NodeOp::Child(c) = &cx.g.nodes[ni].op else {
                unreachable!("a group holds nodes of one kind")
            };
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
                                // The path spelled here: the whole call carries the user's span.
                                quote_spanned!(*span=> __cg::__private::child_buffer(__cg_s.#field))
                            }
                            _ => quote!(__cg_s.#field),
                        }
                    }
                    ChildArg::Value(v) => v.expr.to_token_stream(),
                };
                quote!(#f: #v)
            });
            let child_ty = child_struct_path(&c.ty);
            quote!(#lets #child_ty { #(#fields,)* __cg_borrow: ::core::marker::PhantomData })
        })
        .collect()
}

/// Builds the child graph (`Other::__cg_child`) with the parent's inputs, keeps its node
/// handles, then adds the node.
pub(super) fn add(
    cx: &Cx<'_>,
    ni: usize,
    c: &Child,
    node: &Ident,
    deps: TokenStream,
) -> TokenStream {
    let ty = &c.ty;
    let (gi, j) = cx.groups.of[ni];
    let (f, kid) = (Cx::node_fn(gi), Cx::kid_field(gi));
    let name = node.to_string();
    quote! {{
        let (__cg_child, __cg_nodes) = #ty::__cg_child(&*__cg_g, __cg_module, __cg_s.#f(#j))?;
        __cg_s.#kid.push(__cg_nodes);
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

/// The arm of `resend` for a group of child nodes: node `j`'s child graph built again from the
/// stored inputs and swapped into the node (same shape, one driver call; on failure nothing
/// changes).
pub(super) fn resend(cx: &Cx<'_>, gi: usize) -> TokenStream {
    let rt = rt();
    let first = cx.groups.members[gi][0];
    let NodeOp::Child(c) = &cx.g.nodes[first].op else {
        unreachable!("a group holds nodes of one kind")
    };
    let ty = &c.ty;
    let names = cx.groups.members[gi]
        .iter()
        .map(|&ni| cx.g.nodes[ni].name.to_string());
    let (f, kid, field) = (Cx::node_fn(gi), Cx::kid_field(gi), Cx::group_field(gi));
    quote! {{
        let (c, k) = #ty::__cg_child(e.graph(), &st.module, st.inputs.#f(j))
            .map_err(|x| #rt::error::EditError::child_build([#(#names),*][j], x))?;
        e.node(st.nodes.#field[j])?.set_graph(c)?;
        st.inputs.#kid[j] = k;
        ::core::result::Result::Ok(())
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

/// A child graph node as a [`Kind`](super::Kind).
pub(super) struct Run<'m>(pub &'m Child);

impl super::Kind for Run<'_> {
    fn key(&self, _: &crate::model::Graph) -> String {
        format!("child {}", self.0.ty.to_token_stream())
    }
    fn handle_ty(&self, _: &crate::model::Graph) -> TokenStream {
        handle_ty()
    }
    fn view_ty(&self, _: &crate::model::Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::ChildMut<'_, 'a, #rt::node::OnExec>)
    }
    fn node_fn(&self, cx: &Cx<'_>, gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        Some((node_ret(self.0), node_arms(cx, gi)))
    }
    fn add(
        &self,
        cx: &Cx<'_>,
        ni: usize,
        _: &TokenStream,
        _: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        add(cx, ni, self.0, &cx.g.nodes[ni].name, deps)
    }
    fn uses(&self, _: &Cx<'_>, n: &crate::model::Node, input: usize) -> Option<super::Use> {
        (passes(self.0, input) || n.uses.params.contains(&input)).then_some(super::Use::ALL)
    }
    fn resend(&self, cx: &Cx<'_>, gi: usize) -> Option<TokenStream> {
        Some(resend(cx, gi))
    }
}
