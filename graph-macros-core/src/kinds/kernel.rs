//! Kernel nodes: `step = saxpy<<<grid, block, smem>>>(args)`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use crate::ast::{self, ParamTy};
use crate::gen::{rt, Cx};
use crate::lower::{camel_case, check_elem, hint, primitive, snake_case, Lower};
use crate::model::{Arg, Graph, InputKind, Launch, Uses, Value};

/// Checks a launch against the kernel's declaration: the kernel exists, the argument count
/// matches, buffers go to slice parameters (writable ones to `&mut`), values to scalars.
pub(super) fn lower(cx: &mut Lower<'_>, l: ast::Launch, uses: &mut Uses) -> Option<Launch> {
    let Some(k) = cx.kernels.iter().position(|k| k.name == l.kernel) else {
        let names = cx.kernels.iter().map(|k| k.name.to_string()).collect();
        let fallback = format!("; declare it with `kernel {}(...);`", l.kernel);
        cx.errors.once(
            format!("no-kernel:{}", l.kernel),
            l.kernel.span(),
            format!(
                "no kernel named `{}` is declared{}",
                l.kernel,
                hint(&l.kernel.to_string(), names, &fallback),
            ),
        );
        return None;
    };
    cx.kernels[k].used = true;
    if cx.kernels[k].broken {
        // Its declaration's error is reported; more here would be noise.
        return None;
    }
    let grid = cx.value(uses, l.grid, "launch dimensions");
    let block = cx.value(uses, l.block, "launch dimensions");
    let smem = l.smem.map(|e| cx.value(uses, e, "launch dimensions"));
    let decl = &cx.kernels[k];
    if decl.params.len() != l.args.len() {
        let sig: Vec<String> = decl
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {}", param_ty_text(t)))
            .collect();
        let (want, given) = (decl.params.len(), l.args.len());
        let msg = format!(
            "kernel `{}` takes {want} argument{} ({}) but {given} {} given",
            decl.name,
            if want == 1 { "" } else { "s" },
            sig.join(", "),
            if given == 1 { "was" } else { "were" }
        );
        cx.errors.at(l.args_span, msg);
        return None;
    }
    let params: Vec<(String, ParamTy)> = decl
        .params
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let kernel = decl.name.to_string();
    let mut args = Vec::new();
    let mut ok = true;
    for ((pname, ty), arg) in params.into_iter().zip(l.args) {
        match lower_arg(cx, uses, &kernel, &pname, ty, arg) {
            Some(a) => args.push(a),
            None => ok = false,
        }
    }
    Some(Launch {
        kernel: k,
        args,
        grid: grid?,
        block: block?,
        smem: smem.map_or(Some(None), |s| s.map(Some))?,
    })
    .filter(|_| ok)
}

fn lower_arg(
    cx: &mut Lower<'_>,
    uses: &mut Uses,
    kernel: &str,
    pname: &str,
    ty: ParamTy,
    arg: Expr,
) -> Option<Arg> {
    // `Some((writes, element))` for a slice parameter.
    let slice = match &ty {
        ParamTy::Slice { mutable, elem, .. } => Some((*mutable, elem.clone())),
        ParamTy::Scalar(_) => None,
    };
    if let Expr::Index(ix) = &arg {
        if let Expr::Path(p) = &*ix.expr {
            if let (None, Some(id)) = (&p.qself, p.path.get_ident()) {
                return super::stack::lower_arg(cx, uses, kernel, pname, &ty, id, ix);
            }
        }
    }
    let named: Option<Ident> = match &arg {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    };
    if let Some(c) = named.as_ref().and_then(|id| cx.find_cond(id)) {
        let id = named.expect("a condition was found by name");
        if slice.is_some() {
            cx.errors.at(
                id.span(),
                format!("kernel `{kernel}` takes a device buffer for `{pname}`, but `{id}` is a condition handle"),
            );
            return None;
        }
        uses.conds.insert(c);
        return Some(Arg::Cond {
            cond: c,
            span: id.span(),
        });
    }
    let input = named.as_ref().and_then(|id| cx.find(id));
    let buffer = input.and_then(|i| {
        let b = cx.inputs[i].kind.buffer()?;
        Some((i, b.host, b.mutable, b.elem.clone()))
    });
    if let Some((i, ..)) = buffer {
        if cx.inputs[i]
            .kind
            .buffer()
            .is_some_and(|b| b.stack.is_some())
        {
            let id = named.expect("an input was found by name");
            let var = cx
                .iter
                .as_ref()
                .map_or("l".to_owned(), |it| it.var.to_string());
            cx.errors.at(
                id.span(),
                format!("`{id}` is a stack of buffers (`buffer {id}[..]`), and kernel `{kernel}` takes one buffer for `{pname}`; pass one of them, `{id}[{var}]`"),
            );
            return None;
        }
    }
    match (slice, buffer) {
        (Some((writes, want)), Some((i, host, mutable, elem))) => {
            let id = named.expect("an input was found by name");
            if cx.inputs[i].kind.buffer().is_some_and(|b| b.peer) {
                let what = format!("kernel `{kernel}`");
                cx.errors.once(
                    format!("peer:{id}"),
                    id.span(),
                    crate::lower::peer_misuse(&id, &what),
                );
                return None;
            }
            if host {
                cx.errors.once(
                    format!("host:{id}"),
                    id.span(),
                    format!(
                        "`{id}` is a host buffer; kernel `{kernel}` takes a device buffer for `{pname}`; copy it to a `buffer` with a `memcpy` node first"
                    ),
                );
                return None;
            }
            if writes && !mutable {
                cx.errors.once(
                    format!("read-only:{id}"),
                    id.span(),
                    format!(
                        "buffer `{id}` is read-only but kernel `{kernel}` writes its parameter `{pname}`; declare it `buffer mut {id}: ...;`"
                    ),
                );
                return None;
            }
            check_elem(cx, &id, kernel, pname, writes, &want, &elem)?;
            cx.inputs[i].used = true;
            if writes {
                uses.writes.insert(i);
            } else {
                uses.reads.insert(i);
            }
            Some(Arg::Buffer {
                input: i,
                read: mutable && !writes,
                span: id.span(),
                index: None,
            })
        }
        (Some((writes, _)), None) => {
            let (m, kw) = if writes { ("mut ", " mut") } else { ("", "") };
            cx.errors.at(
                arg.span(),
                format!(
                    "kernel `{kernel}` takes a device buffer for `{pname}` (`&{m}[...]`); pass the name of a declared `buffer{kw}`"
                ),
            );
            None
        }
        (None, Some(_)) => {
            let id = named.expect("found by name");
            cx.errors.at(
                arg.span(),
                format!("kernel `{kernel}` takes a value for `{pname}`, but `{id}` is a buffer"),
            );
            None
        }
        (None, None) => {
            // A param passed as it is, whose declared type differs from the parameter's: said
            // once per param, in the declarations' words.
            if let (ParamTy::Scalar(want), Some(i)) = (&ty, input) {
                if let InputKind::Param(have) = &cx.inputs[i].kind {
                    if let (Some(w), Some(h)) = (primitive(want), primitive(have)) {
                        if w != h {
                            let id = named.expect("an input was found by name");
                            cx.errors.once(
                                format!("type:{id}:{w}"),
                                id.span(),
                                format!(
                                    "kernel `{kernel}` takes `{w}` for `{pname}`, but param `{id}` is `{h}`; declare `param {id}: {w};`, or pass `{id} as {w}`"
                                ),
                            );
                            return None;
                        }
                    }
                }
            }
            cx.value(uses, arg, "kernel arguments").map(Arg::Value)
        }
    }
}

fn param_ty_text(t: &ParamTy) -> String {
    match t {
        ParamTy::Scalar(ty) => ty.to_token_stream().to_string(),
        ParamTy::Slice { mutable, elem, .. } => format!(
            "&{}[{}]",
            if *mutable { "mut " } else { "" },
            elem.to_token_stream()
        ),
    }
}

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
