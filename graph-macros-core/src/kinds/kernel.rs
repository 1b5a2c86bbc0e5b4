//! Kernel nodes: `step = saxpy<<<grid, block, smem>>>(args)`, as code: argument types, node
//! functions, views and setters (the launch is checked against its declaration in
//! `kernel_lower.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use crate::ast::ParamTy;
use crate::gen::{rt, Cx};
use crate::lower::{camel_case, primitive, snake_case};
use crate::model::{Arg, Graph, InputKind, Launch, Value};

/// The type a kernel parameter takes in the node's argument tuple: the scalar itself, or a
/// buffer handle (`Buf` for `&[T]`, `BufMut` for `&mut [T]`), with the library at `rt`.
pub(crate) fn arg_ty(t: &ParamTy, rt: &TokenStream) -> TokenStream {
    match t {
        ParamTy::Scalar(t) => t.to_token_stream(),
        ParamTy::Slice {
            mutable: false,
            elem,
            ..
        } => quote!(#rt::buffer::Buf<#elem>),
        ParamTy::Slice {
            mutable: true,
            elem,
            ..
        } => quote!(#rt::buffer::BufMut<#elem>),
    }
}

/// The argument tuple type of kernel `k`, with the library at `rt`.
pub(crate) fn args_ty(g: &Graph, k: usize, rt: &TokenStream) -> TokenStream {
    let tys = g.kernels[k].params.iter().map(|(_, t)| arg_ty(t, rt));
    quote!((#(#tys,)*))
}

/// The alias of kernel `k`'s argument tuple, in the caller's scope: `<Graph><Kernel>Args`.
pub(crate) fn args_alias(g: &Graph, k: usize) -> Ident {
    format_ident!("{}Args", kernel_name(g, k))
}

pub(super) fn handle_ty(g: &Graph, k: usize) -> TokenStream {
    let rt = rt();
    let a = args_alias(g, k);
    quote!(#rt::node::KernelNode<#a>)
}

/// What a kernel group's node function returns: the launch configuration and the arguments.
pub(super) fn node_ret(cx: &Cx<'_>, k: usize) -> TokenStream {
    let rt = rt();
    let a = args_alias(cx.g, k);
    quote!((#rt::LaunchConfig, #a))
}

/// `{ let __cg_v: T = <expr>; __cg_v }` at the expression's span, so rustc reports a type
/// mismatch at the user's tokens; the expression alone where the macro checked its type.
fn typed(ty: &TokenStream, v: &Value, checked: bool) -> TokenStream {
    let e = &v.expr;
    if checked {
        quote_spanned!(e.span()=> #e)
    } else {
        quote_spanned!(e.span()=> { let __cg_v: #ty = #e; __cg_v })
    }
}

/// Per node of kernel group `gi`: its launch configuration and argument tuple.
pub(super) fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    let rt = rt();
    let g = cx.g;
    cx.groups.members[gi]
        .iter()
        .map(|&ni| {
            let crate::model::NodeOp::Launch(l) = &g.nodes[ni].op else {
                unreachable!("a group holds nodes of one kind")
            };
            let decl = &g.kernels[l.kernel];
            let values = l.args.iter().zip(&decl.params).enumerate().map(|(i, (a, (_, pty)))| {
                let ty = arg_ty(pty, &rt);
                match a {
                    Arg::Buffer { input, read, span, index } => {
                        let field = Ident::new(&cx.input_field(*input).to_string(), *span);
                        let at = super::stack::position(cx, ni, index.as_ref());
                        let value = if *read {
                            quote_spanned!(*span=> __cg_s.#field #at.read())
                        } else {
                            quote_spanned!(*span=> __cg_s.#field #at)
                        };
                        // Element types the macro compared need no check by the compiler.
                        let elem = |t: &ParamTy| match t {
                            ParamTy::Slice { elem, .. } => crate::lower::primitive(elem),
                            ParamTy::Scalar(_) => None,
                        };
                        let have = g.buffer(*input).elem.clone();
                        let void = matches!(pty, ParamTy::Slice { elem, .. } if crate::lower::is_void(elem));
                        if void {
                            quote_spanned!(*span=> #value.untyped())
                        } else if elem(pty).is_some() && elem(pty) == crate::lower::primitive(&have) {
                            value
                        } else {
                            quote_spanned!(*span=> { let __cg_v: #ty = #value; __cg_v })
                        }
                    }
                    Arg::Value(v) => typed(&ty, v, bare_param(g, v, l.kernel, i)),
                    Arg::Cond { cond, span } => {
                        let field = Ident::new(&cx.cond_field(*cond).to_string(), *span);
                        let cond_param = matches!(pty, ParamTy::Scalar(t) if primitive(t).as_deref() == Some("Cond"));
                        if cond_param {
                            quote_spanned!(*span=> __cg_s.#field)
                        } else {
                            quote_spanned!(*span=> { let __cg_v: #ty = __cg_s.#field; __cg_v })
                        }
                    }
                }
            });
            let lets = cx.bind_params(
                l.args
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Value(v) => Some(&v.params),
                        Arg::Buffer {
                            index: Some(crate::model::StackIndex::Value(v)),
                            ..
                        } => Some(&v.params),
                        Arg::Buffer { .. } | Arg::Cond { .. } => None,
                    })
                    .chain(l.dims().map(|v| &v.params)),
            );
            let (grid, block) = (&l.grid.expr, &l.block.expr);
            let grid = quote_spanned!(grid.span()=> #grid);
            let block = quote_spanned!(block.span()=> #block);
            let smem = match &l.smem {
                Some(v) => typed(&quote!(u32), v, false),
                None => quote!(0),
            };
            quote! {
                #lets
                (#rt::__private::config(#grid, #block, #smem), (#(#values,)*))
            }
        })
        .collect()
}

/// Adds a run of kernel nodes of group `gi` that follow each other in `build`'s order: one call
/// over a table of names and dependencies (node positions), not a statement each.
pub(crate) fn add_run(cx: &Cx<'_>, gi: usize, run: &[usize], pos: &[u32]) -> TokenStream {
    let g = cx.g;
    let (var, f) = (Cx::group_var(gi), Cx::node_fn(gi));
    let rows = run.iter().map(|&m| {
        let name = g.nodes[m].name.to_string();
        // A programmatic edge is added after the nodes, as such: a plain edge made first could
        // not be turned into one in a graph with memory nodes (the driver removes no
        // dependency there).
        let deps = g.preds[m]
            .iter()
            .filter(|&&a| g.topo.programmatic_port(a as u32, m as u32).is_none())
            .map(|&a| pos[a]);
        quote!((#name, &[#(#deps),*]))
    });
    quote!(#var.add(&mut *__cg_g, &[#(#rows),*], |j| __cg_s.#f(j))?;)
}

/// Whether the value is exactly a param of the very type the kernel parameter takes (then the
/// compiler has nothing to check).
fn bare_param(g: &Graph, v: &Value, kernel: usize, i: usize) -> bool {
    let Expr::Path(p) = &v.expr else {
        return false;
    };
    let Some(input) = g.inputs.iter().find(|inp| p.path.is_ident(&inp.name)) else {
        return false;
    };
    let InputKind::Param(ty) = &input.kind else {
        return false;
    };
    matches!(&g.kernels[kernel].params[i].1, ParamTy::Scalar(t) if t == ty)
}

/// `<Graph><Kernel>` for kernel `k` (with its index if two kernels' names meet in
/// UpperCamelCase).
fn kernel_name(g: &Graph, k: usize) -> String {
    let camel = camel_case(&g.kernels[k].name.to_string());
    let taken = g
        .kernels
        .iter()
        .take(k)
        .any(|o| camel_case(&o.name.to_string()) == camel);
    let suffix = if taken { k.to_string() } else { String::new() };
    format!("{}{}{}", g.name, camel, suffix)
}

/// The view type of nodes launching kernel `k`: `<Graph><Kernel>View`.
pub(crate) fn view_name(g: &Graph, k: usize) -> Ident {
    format_ident!("{}View", kernel_name(g, k))
}

/// The kernels some node launches, each once, in declaration order.
fn launched(g: &Graph) -> Vec<usize> {
    (0..g.kernels.len())
        .filter(|&k| {
            g.nodes.iter().any(|n| {
                matches!(&n.op, crate::model::NodeOp::Launch(l) if l.kernel == k)
                    && !g.hidden.contains(&format!("node:{}", n.name))
            })
        })
        .collect()
}

/// The types of kernel `k`'s nodes, in the caller's scope (nameable): its argument tuple
/// (`<Graph><Kernel>Args`, for every declared kernel) and, for a kernel some node launches,
/// its view (`<Graph><Kernel>View`, wrapping the runtime's `KernelMut`).
pub(crate) fn kernel_types(g: &Graph) -> TokenStream {
    let abs = crate::gen::abs();
    let vis = &g.vis;
    let views = launched(g);
    g.kernels
        .iter()
        .enumerate()
        .filter(|(_, k)| k.used && !k.broken)
        .map(|(k, decl)| {
            let (args, a) = (args_alias(g, k), args_ty(g, k, &abs));
            let doc = format!("The arguments of kernel `{}` in [`{}`], as its nodes take them.", decl.name, g.name);
            let mut out = quote!(#[doc = #doc] #vis type #args = #a;);
            if views.contains(&k) {
                let view = view_name(g, k);
                let doc = format!(
                    "The view of a node of [`{}`] launching kernel `{}`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.",
                    g.name, decl.name
                );
                out.extend(quote! {
                    #[doc = #doc]
                    #vis struct #view<'v, 'a>(#abs::node::KernelMut<'v, 'a, #args, #abs::node::OnExec>);
                });
            }
            out
        })
        .collect()
}

/// Per kernel view: `Deref` to `KernelMut` and a typed setter per parameter; per kernel node:
/// its accessor on `NameExec` (`exec.step()`).
pub(crate) fn kernel_views(cx: &Cx<'_>, exec: &Ident) -> TokenStream {
    let bounds = &cx.bounds;
    let rt = rt();
    let g = cx.g;
    let mut out = TokenStream::new();
    for k in launched(g) {
        let view = view_name(g, k);
        let a = args_alias(g, k);
        let setters = g.kernels[k].params.iter().enumerate().map(|(i, (p, t))| {
            let set = format_ident!("set_{}", snake_case(&p.to_string()), span = p.span());
            let ty = arg_ty(t, &rt);
            let doc = format!("Sets kernel parameter `{p}` of this node only.");
            let i = proc_macro2::Literal::usize_unsuffixed(i);
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #set(&mut self, v: #ty) -> #rt::error::EditResult {
                    self.0.set_arg::<#i>(v)
                }
            }
        });
        out.extend(quote! {
            #rt::__private::deref!(impl<'v, 'a> #view<'v, 'a> => #rt::node::KernelMut<'v, 'a, #a, #rt::node::OnExec>, 0 #bounds);
            impl<'v, 'a> #view<'v, 'a> #bounds {
                #(#setters)*
            }
        });
    }
    let accessors = g.nodes.iter().enumerate().filter_map(|(ni, n)| {
        let crate::model::NodeOp::Launch(l) = &n.op else {
            return None;
        };
        if g.hidden.contains(&format!("node:{}", n.name)) {
            return None;
        }
        let (name, view, handle) = (&n.name, view_name(g, l.kernel), cx.handle(ni));
        if g.block_of(ni).is_some() {
            let doc = format!("The view of node `{name}` in iteration `l` of its repeat block: its typed setters.");
            let (f, text) = (Cx::group_field(cx.groups.of[ni].0), name.to_string());
            return Some(quote! {
                #[doc = #doc]
                pub fn #name(&mut self, l: usize) -> #rt::error::EditResult<#view<'_, 'a>> {
                    let h = #rt::__private::iteration(&self.__cg.nodes.#f, #text, l)?;
                    self.__cg_exec.node(h).map(#view)
                }
            });
        }
        let doc = format!("The view of node `{name}`: its typed setters.");
        Some(quote! {
            #[doc = #doc]
            #[inline]
            pub fn #name(&mut self) -> #rt::error::EditResult<#view<'_, 'a>> {
                self.__cg_exec.node(#handle).map(#view)
            }
        })
    });
    out.extend(quote! {
        impl<'a> #exec<'a> #bounds {
            #(#accessors)*
        }
    });
    out
}

/// A kernel launch as a [`Kind`](super::Kind).
pub(super) struct Run<'m>(pub &'m Launch);

impl super::Kind for Run<'_> {
    fn key(&self, _: &Graph) -> String {
        format!("kernel {}", self.0.kernel)
    }
    fn handle_ty(&self, g: &Graph) -> TokenStream {
        handle_ty(g, self.0.kernel)
    }
    fn view_ty(&self, _: &Graph) -> TokenStream {
        unreachable!("kernel views are the graph's own types (`kernel_views`)")
    }
    fn node_fn(&self, cx: &Cx<'_>, gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        Some((node_ret(cx, self.0.kernel), node_arms(cx, gi)))
    }
    /// A setter that changes one argument of the group's nodes (one bit in `which`) sends it
    /// as the node's own setter does (`set_arg`): the argument written in place, nothing else
    /// of the node read or copied. Anything else (several arguments, the launch
    /// configuration) sends what changed of the whole node (`send_again`).
    fn resend(&self, cx: &Cx<'_>, gi: usize) -> Option<TokenStream> {
        let (f, nf) = (Cx::group_field(gi), Cx::node_fn(gi));
        let arms = single_args(cx, gi).into_iter().map(|i| {
            let bit = proc_macro2::Literal::u64_unsuffixed(1 << i);
            let at = syn::Index::from(i);
            quote!(#bit => e.node(st.nodes.#f[j])?.set_arg::<#at>(st.inputs.#nf(j).1.#at))
        });
        // The view is made in each arm, so the one-argument arms keep it in registers.
        Some(quote!(match which {
            #(#arms,)*
            _ => e.node(st.nodes.#f[j])?.send_again(st.inputs.#nf(j), which),
        }))
    }
    fn add(
        &self,
        _: &Cx<'_>,
        _: usize,
        _: &TokenStream,
        _: TokenStream,
        _: TokenStream,
    ) -> TokenStream {
        unreachable!("kernel nodes are added in runs by `add_run`")
    }
    fn uses(&self, _: &Cx<'_>, n: &crate::model::Node, input: usize) -> Option<super::Use> {
        if !n.uses.any(input) {
            return None;
        }
        let cfg = self.0.dims().any(|v| v.params.contains(&input));
        let parts = self.0.args.iter().enumerate().fold(0u64, |m, (i, a)| {
            let uses = match a {
                Arg::Buffer { input: b, .. } => *b == input,
                Arg::Value(v) => v.params.contains(&input),
                Arg::Cond { .. } => false,
            };
            if uses && i < 64 {
                m | 1 << i
            } else {
                m
            }
        });
        Some(super::Use { cfg, parts })
    }
}

/// The arguments of kernel group `gi` that an input changes alone (its only use in a node of
/// the group, outside the launch configuration): the setters that send one argument.
fn single_args(cx: &Cx<'_>, gi: usize) -> Vec<usize> {
    let mut args: Vec<usize> = cx.groups.members[gi]
        .iter()
        .flat_map(|&ni| (0..cx.g.inputs.len()).filter_map(move |i| super::uses(cx, ni, i)))
        .filter(|u| !u.cfg && u.parts.count_ones() == 1)
        .map(|u| u.parts.trailing_zeros() as usize)
        .collect();
    args.sort_unstable();
    args.dedup();
    args
}
