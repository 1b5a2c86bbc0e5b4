//! Kernel nodes: `step = saxpy<<<grid, block, smem>>>(args)`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use crate::ast::{self, ParamTy};
use crate::gen::{rt, Cx};
use crate::lower::{camel_case, hint, primitive, snake_case, Lower};
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
    match (slice, buffer) {
        (Some((writes, want)), Some((i, host, mutable, elem))) => {
            let id = named.expect("an input was found by name");
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
            if let (Some(w), Some(e)) = (primitive(&want), primitive(&elem)) {
                if w != e {
                    cx.errors.at(
                        id.span(),
                        format!(
                            "kernel `{kernel}` takes a buffer of `{w}` for `{pname}`, but buffer `{id}` holds `{e}`; pass a buffer of `{w}`, or declare the parameter `{pname}: &{}[{e}]`",
                            if writes { "mut " } else { "" }
                        ),
                    );
                    return None;
                }
            }
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
/// buffer handle (`Buf` for `&[T]`, `BufMut` for `&mut [T]`).
pub(crate) fn arg_ty(t: &ParamTy) -> TokenStream {
    let rt = rt();
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

/// The argument tuple type of kernel `k`.
fn args_ty(g: &Graph, k: usize) -> TokenStream {
    let tys = g.kernels[k].params.iter().map(|(_, t)| arg_ty(t));
    quote!((#(#tys,)*))
}

pub(super) fn handle_ty(g: &Graph, k: usize) -> TokenStream {
    let rt = rt();
    let a = args_ty(g, k);
    quote!(#rt::node::KernelNode<#a>)
}

/// `{ let __cg_v: T = <expr>; __cg_v }` at the expression's span, so rustc reports a type
/// mismatch at the user's tokens.
fn typed(ty: &TokenStream, v: &Value) -> TokenStream {
    let e = &v.expr;
    quote_spanned!(e.span()=> { let __cg_v: #ty = #e; __cg_v })
}

/// `__cg_args_{gi}` (the argument tuple) and `__cg_cfg_{gi}` (the launch configuration) of
/// group `gi`'s nodes.
pub(super) fn value_fns(cx: &Cx<'_>, gi: usize) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let (mut args_arms, mut cfg_arms) = (Vec::new(), Vec::new());
    let mut kernel = 0;
    for (j, &ni) in cx.groups.members[gi].iter().enumerate() {
        let n = &g.nodes[ni];
        let crate::model::NodeOp::Launch(l) = &n.op else {
            unreachable!("a group holds nodes of one kind")
        };
        kernel = l.kernel;
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        let decl = &g.kernels[l.kernel];
        let values = l
            .args
            .iter()
            .zip(&decl.params)
            .map(|(a, (_, pty))| match a {
                Arg::Buffer { input, read, span } => {
                    let field = Ident::new(&cx.input_field(*input).to_string(), *span);
                    let ty = arg_ty(pty);
                    let value = if *read {
                        quote_spanned!(*span=> __cg_s.#field.read())
                    } else {
                        quote_spanned!(*span=> __cg_s.#field)
                    };
                    quote_spanned!(*span=> { let __cg_v: #ty = #value; __cg_v })
                }
                Arg::Value(v) => typed(&arg_ty(pty), v),
                Arg::Cond { cond, span } => {
                    let field = Ident::new(&cx.cond_field(*cond).to_string(), *span);
                    let ty = arg_ty(pty);
                    quote_spanned!(*span=> { let __cg_v: #ty = __cg_s.#field; __cg_v })
                }
            });
        let lets = cx.bind_params(l.args.iter().filter_map(|a| match a {
            Arg::Value(v) => Some(&v.params),
            Arg::Buffer { .. } | Arg::Cond { .. } => None,
        }));
        args_arms.push(quote!(#j => { #lets (#(#values,)*) }));
        let lets = cx.bind_params(l.dims().map(|v| &v.params));
        let dim = |v: &Value| {
            let e = &v.expr;
            quote_spanned!(e.span()=> #rt::__private::dim3(#e))
        };
        let (grid, block) = (dim(&l.grid), dim(&l.block));
        let smem = match &l.smem {
            Some(v) => typed(&quote!(u32), v),
            None => quote!(0u32),
        };
        cfg_arms.push(quote! {
            #j => {
                #lets
                #rt::LaunchConfig { grid_dim: #grid, block_dim: #block, shared_mem_bytes: #smem }
            }
        });
    }
    let ret = args_ty(g, kernel);
    let (fa, fc) = (cx.args_fn(gi), cx.cfg_fn(gi));
    let allow = Cx::value_fn_attrs();
    let unreachable = quote!(_ => ::core::unreachable!("no such node in this group"));
    quote! {
        #allow
        fn #fa(__cg_j: usize, __cg_s: &__CgInputs<'a>) -> #ret {
            match __cg_j { #(#args_arms,)* #unreachable }
        }
        #allow
        fn #fc(__cg_j: usize, __cg_s: &__CgInputs<'a>) -> #rt::LaunchConfig {
            match __cg_j { #(#cfg_arms,)* #unreachable }
        }
    }
}

/// Adds a run of kernel nodes of group `gi` that follow each other in `build`'s order: one loop
/// over a table of names and dependencies (node positions), not a statement each.
pub(crate) fn add_run(cx: &Cx<'_>, gi: usize, run: &[usize], pos: &[u32]) -> TokenStream {
    let g = cx.g;
    let crate::model::NodeOp::Launch(l) = &g.nodes[run[0]].op else {
        unreachable!("a run holds kernel nodes")
    };
    let kv = format_ident!("__cg_k{}", l.kernel);
    let var = Cx::group_var(gi);
    let (fa, fc) = (cx.args_fn(gi), cx.cfg_fn(gi));
    let rows = run.iter().map(|&m| {
        let name = g.nodes[m].name.to_string();
        let deps = g.preds[m].iter().map(|&a| pos[a]);
        quote!((#name, &[#(#deps),*]))
    });
    quote! {{
        const __CG_NODES: &[(&str, &[u32])] = &[#(#rows),*];
        for &(__cg_name, __cg_deps) in __CG_NODES {
            let __cg_j = #var.len();
            let __cg_n = __cg_g.add_kernel_after(
                __cg_name,
                __cg_deps,
                &#kv,
                Self::#fc(__cg_j, __cg_s),
                Self::#fa(__cg_j, __cg_s),
            )?;
            #var.push(__cg_n);
        }
    }}
}

/// The cheapest setter that covers a change of `input`: one argument, all arguments, or
/// arguments and launch configuration.
pub(super) fn refresh(
    cx: &Cx<'_>,
    ni: usize,
    l: &Launch,
    input: usize,
    view: &TokenStream,
) -> TokenStream {
    let g = cx.g;
    let (gi, _) = cx.groups.of[ni];
    let name = &g.name;
    let (fa, fc) = (cx.args_fn(gi), cx.cfg_fn(gi));
    let in_dims = l.dims().any(|v| v.params.contains(&input));
    let positions: Vec<usize> = (0..l.args.len())
        .filter(|&i| l.args[i].uses(input))
        .collect();
    let all_args = quote!(#name::#fa(__cg_j, &self.__cg.inputs));
    match (in_dims, positions.as_slice()) {
        // The argument is the param itself, of the kernel's type: send its value.
        (false, [i]) if bare_param(g, input, &l.args[*i], l.kernel, *i) => {
            let field = cx.input_field(input);
            quote!(#view.set_arg::<#i>(::core::clone::Clone::clone(&self.__cg.inputs.#field))?;)
        }
        (false, [i]) => {
            let idx = syn::Index::from(*i);
            quote!(#view.set_arg::<#i>(#all_args.#idx)?;)
        }
        (false, _) => quote!(#view.set_args(#all_args)?;),
        (true, _) => quote!(#view.set(#all_args, #name::#fc(__cg_j, &self.__cg.inputs))?;),
    }
}

/// Whether kernel argument `i` is exactly param `input`, of the very type the kernel takes.
fn bare_param(g: &Graph, input: usize, arg: &Arg, kernel: usize, i: usize) -> bool {
    let InputKind::Param(ty) = &g.inputs[input].kind else {
        return false;
    };
    let is_param = matches!(arg, Arg::Value(v) if matches!(&v.expr, Expr::Path(p) if p.path.is_ident(&g.inputs[input].name)));
    let same_type = matches!(&g.kernels[kernel].params[i].1, ParamTy::Scalar(t) if t == ty);
    is_param && same_type
}

/// The accessors of kernel nodes on `NameExec` (`exec.step()`), and one view type per kernel
/// declaration with a typed setter per kernel parameter (`set_a`), reaching `KernelMut`'s own
/// setters through `Deref`.
pub(crate) fn kernel_views(cx: &Cx<'_>, exec: &Ident) -> TokenStream {
    let bounds = &cx.bounds;
    let rt = rt();
    let g = cx.g;
    let mut out = TokenStream::new();
    let mut declared = Vec::new();
    for (ni, n) in g.nodes.iter().enumerate() {
        let crate::model::NodeOp::Launch(l) = &n.op else {
            continue;
        };
        if g.hidden.contains(&format!("node:{}", n.name)) {
            continue;
        }
        let view = format_ident!(
            "__CgView{}{}",
            l.kernel,
            camel_case(&g.kernels[l.kernel].name.to_string())
        );
        let a = args_ty(g, l.kernel);
        if !declared.contains(&l.kernel) {
            declared.push(l.kernel);
            let setters = g.kernels[l.kernel]
                .params
                .iter()
                .enumerate()
                .map(|(i, (p, t))| {
                    let set = format_ident!("set_{}", snake_case(&p.to_string()), span = p.span());
                    let ty = arg_ty(t);
                    let doc = format!("Sets kernel parameter `{p}` of this node only.");
                    quote! {
                        #[doc = #doc]
                        pub fn #set(&mut self, value: #ty) -> ::core::result::Result<(), #rt::error::EditError> {
                            self.0.set_arg::<#i>(value)
                        }
                    }
                });
            out.extend(quote! {
                pub struct #view<'v, 'a>(#rt::node::KernelMut<'v, 'a, #a, #rt::node::OnExec>);
                impl<'v, 'a> ::core::ops::Deref for #view<'v, 'a> #bounds {
                    type Target = #rt::node::KernelMut<'v, 'a, #a, #rt::node::OnExec>;
                    fn deref(&self) -> &Self::Target {
                        &self.0
                    }
                }
                impl<'v, 'a> ::core::ops::DerefMut for #view<'v, 'a> #bounds {
                    fn deref_mut(&mut self) -> &mut Self::Target {
                        &mut self.0
                    }
                }
                impl<'v, 'a> #view<'v, 'a> #bounds {
                    #(#setters)*
                }
            });
        }
        let name = &n.name;
        let handle = cx.handle(ni);
        let doc = format!("The view of node `{name}`: its typed setters.");
        out.extend(quote! {
            impl<'a> #exec<'a> #bounds {
                #[doc = #doc]
                pub fn #name(&mut self) -> ::core::result::Result<#view<'_, 'a>, #rt::error::EditError> {
                    ::core::result::Result::Ok(#view(self.__cg_exec.node(#handle)?))
                }
            }
        });
    }
    out
}
