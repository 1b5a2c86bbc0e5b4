//! Phase 3: code generation against `::cuda_graph::__private` (the runtime).
//!
//! For `graph Name { ... }` it emits `NameInputs<'a>` (what `build` borrows), `Name<'a>` (the
//! template), `NameExec<'a>` (the executable graph with node views and graph-level setters) and
//! `NameChild` (the inputs when `Name` is used as a child graph). Helper types (per-node views,
//! the handle struct) live in an anonymous `const _` block, so nothing but those four names
//! reaches the caller's scope. Generated code carries the user's spans, so rustc's type errors
//! land on the user's tokens.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Type;

use crate::ast::ParamTy;
use crate::validate::{Arg, ChildArg, Graph, InputKind, NodeOp};

/// The runtime, as generated code names it.
fn rt() -> TokenStream {
    quote!(::cuda_graph::__private)
}

/// Positions of each input within its kind's tuple (params, buffers, callbacks, events).
struct Slots {
    /// `(tuple, index)`: tuple 0 params, 1 buffers, 2 callbacks, 3 events.
    of: Vec<(usize, usize)>,
}

fn slots(g: &Graph) -> Slots {
    let mut counts = [0usize; 4];
    let of = g
        .inputs
        .iter()
        .map(|i| {
            let t = match i.kind {
                InputKind::Param(_) => 0,
                InputKind::Buffer { .. } => 1,
                InputKind::Callback => 2,
                InputKind::Event => 3,
            };
            counts[t] += 1;
            (t, counts[t] - 1)
        })
        .collect();
    Slots { of }
}

fn index(i: usize) -> syn::Index {
    syn::Index::from(i)
}

/// The type a kernel parameter takes in the node's argument tuple: the scalar itself, or a
/// buffer handle (`Buf` for `&[T]`, `BufMut` for `&mut [T]`).
pub fn arg_ty(t: &ParamTy) -> TokenStream {
    let rt = rt();
    match t {
        ParamTy::Scalar(t) => t.to_token_stream(),
        ParamTy::Slice {
            mutable: false,
            elem,
        } => quote!(#rt::Buf<#elem>),
        ParamTy::Slice {
            mutable: true,
            elem,
        } => quote!(#rt::BufMut<#elem>),
    }
}

/// The handle type a buffer input gets.
pub fn handle_ty(kind: &InputKind) -> TokenStream {
    let rt = rt();
    match kind {
        InputKind::Buffer {
            host,
            mutable,
            elem,
            ..
        } => match (host, mutable) {
            (false, false) => quote!(#rt::Buf<#elem>),
            (false, true) => quote!(#rt::BufMut<#elem>),
            (true, false) => quote!(#rt::HostBuf<#elem>),
            (true, true) => quote!(#rt::HostBufMut<#elem>),
        },
        _ => unreachable!("only buffers have handles"),
    }
}

fn elem_of(kind: &InputKind) -> &Type {
    match kind {
        InputKind::Buffer { elem, .. } => elem,
        _ => unreachable!("only buffers have elements"),
    }
}

fn callback_ty() -> TokenStream {
    quote!(&'a (dyn ::core::ops::Fn() + ::core::marker::Send + ::core::marker::Sync + 'a))
}

/// The tuple types of the generated state: params, buffer handles, callbacks, events, nodes.
struct Types {
    params: TokenStream,
    bufs: TokenStream,
    cbs: TokenStream,
    evs: TokenStream,
    /// Per node: its handle type.
    node_tys: Vec<TokenStream>,
    /// Per kernel node: its argument tuple type.
    args: Vec<Option<TokenStream>>,
}

fn types(g: &Graph) -> Types {
    let rt = rt();
    let mut params = Vec::new();
    let mut bufs = Vec::new();
    let mut cbs = Vec::new();
    let mut evs = Vec::new();
    for i in &g.inputs {
        match &i.kind {
            InputKind::Param(t) => params.push(t.to_token_stream()),
            InputKind::Buffer { .. } => bufs.push(handle_ty(&i.kind)),
            InputKind::Callback => cbs.push(callback_ty()),
            InputKind::Event => evs.push(quote!(&'a #rt::CudaEvent)),
        }
    }
    let mut nodes = Vec::new();
    let mut args = Vec::new();
    for n in &g.nodes {
        let (ty, a) = match &n.op {
            NodeOp::Launch { kernel, .. } => {
                let k = &g.kernels[*kernel];
                let tys = k.params.iter().map(|(_, t)| arg_ty(t));
                let a = quote!((#(#tys,)*));
                (quote!(#rt::KernelNode<#a>), Some(a))
            }
            NodeOp::Memset { dst, .. } => {
                let e = elem_of(&g.inputs[*dst].kind);
                (quote!(#rt::MemsetNode<#e>), None)
            }
            NodeOp::Memcpy { dst, src } => {
                let e = elem_of(&g.inputs[*dst].kind);
                let loc = |i: usize| match g.inputs[i].kind {
                    InputKind::Buffer { host: true, .. } => quote!(#rt::Host),
                    _ => quote!(#rt::Device),
                };
                let (d, s) = (loc(*dst), loc(*src));
                (quote!(#rt::MemcpyNode<#e, #d, #s>), None)
            }
            NodeOp::Host { .. } => (quote!(#rt::HostNode), None),
            NodeOp::Empty => (quote!(#rt::EmptyNode), None),
            NodeOp::Child { .. } => (quote!(#rt::ChildNode), None),
            NodeOp::Record(_) => (quote!(#rt::EventRecordNode), None),
            NodeOp::Wait(_) => (quote!(#rt::EventWaitNode), None),
        };
        nodes.push(ty);
        args.push(a);
    }
    Types {
        params: quote!((#(#params,)*)),
        bufs: quote!((#(#bufs,)*)),
        cbs: quote!((#(#cbs,)*)),
        evs: quote!((#(#evs,)*)),
        node_tys: nodes,
        args,
    }
}

/// Node handles grouped by handle type: each group is one boxed array in the generated state
/// (`Box<[KernelNode<A>; N]>`), so the state's type stays small however many nodes the graph
/// has, and setters that touch many nodes of a group loop over it.
pub struct Groups {
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
    /// The state's type for the node handles: a tuple of boxed arrays.
    fn state_ty(&self) -> TokenStream {
        let arrays = self.tys.iter().zip(&self.len).map(|(t, n)| {
            let n = proc_macro2::Literal::usize_unsuffixed(*n);
            quote!(::std::boxed::Box<[#t; #n]>)
        });
        quote!((#(#arrays,)*))
    }

    /// Node `ni`'s handle in the generated state.
    pub fn handle(&self, ni: usize) -> TokenStream {
        let (g, j) = self.of[ni];
        let g = index(g);
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        quote!(self.__cg_s.4.#g[#j])
    }
}

/// Groups nodes by handle type; indices in a group follow the order nodes are added in.
fn groups(g: &Graph, node_tys: &[TokenStream]) -> Groups {
    let mut keys: Vec<String> = Vec::new();
    let mut out = Groups {
        of: vec![(0, 0); g.nodes.len()],
        tys: Vec::new(),
        len: Vec::new(),
        members: Vec::new(),
    };
    for &ni in &g.order {
        let key = node_tys[ni].to_string();
        let gi = match keys.iter().position(|k| *k == key) {
            Some(gi) => gi,
            None => {
                keys.push(key);
                out.tys.push(node_tys[ni].clone());
                out.len.push(0);
                out.members.push(Vec::new());
                keys.len() - 1
            }
        };
        out.of[ni] = (gi, out.len[gi]);
        out.len[gi] += 1;
        out.members[gi].push(ni);
    }
    out
}

/// `let a = __cg_p.0;` for every param, so user expressions can name them.
fn bind_params(g: &Graph, s: &Slots, used: impl Iterator<Item = usize>) -> TokenStream {
    let lets = used.map(|i| {
        let name = &g.inputs[i].name;
        let idx = index(s.of[i].1);
        quote!(let #name = ::core::clone::Clone::clone(&__cg_p.#idx);)
    });
    quote!(#(#lets)*)
}

/// Private helpers computing node values from the current params and handles, one per group
/// and value (kernel arguments, launch configuration, memset value), each a `match` on the
/// node's index in its group. `build` and every setter use them.
fn value_fns(g: &Graph, s: &Slots, t: &Types, gr: &Groups) -> TokenStream {
    let rt = rt();
    let (pty, bty) = (&t.params, &t.bufs);
    let mut out = TokenStream::new();
    for (gi, members) in gr.members.iter().enumerate() {
        let (mut args_arms, mut cfg_arms, mut value_arms) = (Vec::new(), Vec::new(), Vec::new());
        let mut ret = None;
        for &ni in members {
            let n = &g.nodes[ni];
            let j = proc_macro2::Literal::usize_unsuffixed(gr.of[ni].1);
            let lets = bind_params(g, s, n.params.iter().copied());
            match &n.op {
                NodeOp::Launch {
                    kernel,
                    args,
                    grid,
                    block,
                    smem,
                } => {
                    let decl = &g.kernels[*kernel];
                    let values = args.iter().zip(&decl.params).map(|(a, (_, pty))| match a {
                        Arg::Buffer { input, read, span } => {
                            let idx = syn::Index {
                                index: s.of[*input].1 as u32,
                                span: *span,
                            };
                            let ty = arg_ty(pty);
                            let value = if *read {
                                quote_spanned!(*span=> __cg_b.#idx.read())
                            } else {
                                quote_spanned!(*span=> __cg_b.#idx)
                            };
                            quote_spanned!(*span=> { let __cg_v: #ty = #value; __cg_v })
                        }
                        Arg::Value(e) => {
                            let ty = match pty {
                                ParamTy::Scalar(t) => t,
                                ParamTy::Slice { .. } => {
                                    unreachable!("checked: buffers go to slices")
                                }
                            };
                            quote_spanned!(e.span()=> { let __cg_v: #ty = #e; __cg_v })
                        }
                    });
                    ret = t.args[ni].clone();
                    let smem = match smem {
                        Some(e) => quote_spanned!(e.span()=> { let __cg_v: u32 = #e; __cg_v }),
                        None => quote!(0u32),
                    };
                    let grid = quote_spanned!(grid.span()=> #rt::dim3(#grid));
                    let block = quote_spanned!(block.span()=> #rt::dim3(#block));
                    args_arms.push(quote!(#j => { #lets (#(#values,)*) }));
                    cfg_arms.push(quote! {
                        #j => {
                            #lets
                            #rt::LaunchConfig {
                                grid_dim: #grid,
                                block_dim: #block,
                                shared_mem_bytes: #smem,
                            }
                        }
                    });
                }
                NodeOp::Memset { dst, value } => {
                    let e = elem_of(&g.inputs[*dst].kind);
                    ret = Some(e.to_token_stream());
                    let v = quote_spanned!(value.span()=> { let __cg_v: #e = #value; __cg_v });
                    value_arms.push(quote!(#j => { #lets #v }));
                }
                _ => {}
            }
        }
        let unreachable = quote!(_ => ::core::unreachable!("no such node in this group"));
        let allow =
            quote!(#[allow(unused_variables, unreachable_patterns, clippy::all)] #[inline(never)]);
        if !args_arms.is_empty() {
            let (fa, fc) = (
                format_ident!("__cg_args_{}", gi),
                format_ident!("__cg_cfg_{}", gi),
            );
            out.extend(quote! {
                #allow
                fn #fa(__cg_j: usize, __cg_p: &#pty, __cg_b: &#bty) -> #ret {
                    match __cg_j { #(#args_arms,)* #unreachable }
                }
                #allow
                fn #fc(__cg_j: usize, __cg_p: &#pty) -> #rt::LaunchConfig {
                    match __cg_j { #(#cfg_arms,)* #unreachable }
                }
            });
        }
        if !value_arms.is_empty() {
            let f = format_ident!("__cg_value_{}", gi);
            out.extend(quote! {
                #allow
                fn #f(__cg_j: usize, __cg_p: &#pty) -> #ret {
                    match __cg_j { #(#value_arms,)* #unreachable }
                }
            });
        }
    }
    out
}

/// The body of `__cg_populate`: adds every node in dependency order.
fn populate(g: &Graph, s: &Slots, gr: &Groups) -> TokenStream {
    let rt = rt();
    let mut kernels = TokenStream::new();
    for (ki, k) in g.kernels.iter().enumerate().filter(|(_, k)| k.used) {
        let var = format_ident!("__cg_k{}", ki);
        let name = k.name.to_string();
        kernels.extend(quote!(let #var = __cg_module.function(#name)?;));
    }
    let mut adds = TokenStream::new();
    let mut preds = vec![Vec::new(); g.nodes.len()];
    for &(a, b) in &g.edges {
        preds[b].push(a);
    }
    let at = |ni: usize| {
        let (gi, j) = gr.of[ni];
        let var = format_ident!("__cg_h{}", gi);
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        quote!(#var[#j])
    };
    let mut pos = vec![0u32; g.nodes.len()];
    for (p, &ni) in g.order.iter().enumerate() {
        pos[ni] = p as u32;
    }
    let mut k = 0;
    while k < g.order.len() {
        let ni = g.order[k];
        let n = &g.nodes[ni];
        let (gi, j) = gr.of[ni];
        let var = format_ident!("__cg_h{}", gi);
        // Kernel nodes of one group added one after another: one loop over a table of names
        // and dependencies (node indices), instead of a statement each.
        if let NodeOp::Launch { kernel, .. } = &n.op {
            let run: Vec<usize> = g.order[k..]
                .iter()
                .copied()
                .take_while(|&m| gr.of[m].0 == gi && matches!(g.nodes[m].op, NodeOp::Launch { .. }))
                .collect();
            k += run.len();
            let kv = format_ident!("__cg_k{}", kernel);
            let (fa, fc) = (
                format_ident!("__cg_args_{}", gi),
                format_ident!("__cg_cfg_{}", gi),
            );
            let rows = run.iter().map(|&m| {
                let name = g.nodes[m].name.to_string();
                let deps = preds[m].iter().map(|&a| pos[a]);
                quote!((#name, &[#(#deps),*]))
            });
            adds.extend(quote! {{
                const __CG_NODES: &[(&str, &[u32])] = &[#(#rows),*];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = #var.len();
                    let __cg_n = __cg_g.add_kernel_after(
                        __cg_name,
                        __cg_deps,
                        &#kv,
                        Self::#fc(__cg_j, __cg_p),
                        Self::#fa(__cg_j, __cg_p, __cg_b),
                    )?;
                    #var.push(__cg_n);
                }
            }});
            continue;
        }
        k += 1;
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        let name = n.name.to_string();
        let deps = preds[ni].iter().map(|&a| at(a));
        let deps = quote!(&[#(&#deps as &dyn #rt::Dep),*]);
        let h = |i: usize| {
            let idx = index(s.of[i].1);
            quote!(__cg_b.#idx)
        };
        let add = match &n.op {
            NodeOp::Launch { .. } => unreachable!("kernel nodes are added above"),
            NodeOp::Memset { dst, .. } => {
                let f = format_ident!("__cg_value_{}", gi);
                let d = h(*dst);
                quote!(__cg_g.add_memset(#name, #deps, #d, Self::#f(#j, __cg_p))?)
            }
            NodeOp::Memcpy { dst, src } => {
                let (d, sr) = (h(*dst), h(*src));
                quote!(__cg_g.add_memcpy(#name, #deps, #d, #sr)?)
            }
            NodeOp::Host {
                callback: Some(c), ..
            } => {
                let idx = index(s.of[*c].1);
                quote!(__cg_g.add_host(#name, #deps, __cg_c.#idx)?)
            }
            NodeOp::Host {
                closure: Some(f), ..
            } => quote!(__cg_g.add_host(#name, #deps, #f)?),
            NodeOp::Host { .. } => unreachable!("a host node has a callback or a closure"),
            NodeOp::Empty => quote!(__cg_g.add_empty(#name, #deps)?),
            NodeOp::Child { ty, fields } => {
                let fields = fields.iter().map(|(f, a)| {
                    let v = match a {
                        ChildArg::Input(i, span) => match g.inputs[*i].kind {
                            InputKind::Buffer { .. } => {
                                let idx = syn::Index {
                                    index: s.of[*i].1 as u32,
                                    span: *span,
                                };
                                quote_spanned!(*span=> ::core::convert::From::from(__cg_b.#idx))
                            }
                            InputKind::Callback => {
                                let idx = index(s.of[*i].1);
                                quote!(__cg_c.#idx)
                            }
                            InputKind::Event => {
                                let idx = index(s.of[*i].1);
                                quote!(__cg_e.#idx)
                            }
                            InputKind::Param(_) => {
                                unreachable!("checked: params do not flow into children")
                            }
                        },
                        ChildArg::Expr(e) => e.to_token_stream(),
                    };
                    quote!(#f: #v)
                });
                let child_ty = child_struct_path(ty);
                quote! {{
                    let __cg_child = #ty::__cg_child(&*__cg_g, __cg_module, #child_ty { #(#fields,)* })?;
                    __cg_g.add_child(#name, #deps, __cg_child)?
                }}
            }
            NodeOp::Record(e) => {
                let idx = index(s.of[*e].1);
                quote!(__cg_g.add_event_record(#name, #deps, __cg_e.#idx)?)
            }
            NodeOp::Wait(e) => {
                let idx = index(s.of[*e].1);
                quote!(__cg_g.add_event_wait(#name, #deps, __cg_e.#idx)?)
            }
        };
        adds.extend(quote!({
            let __cg_n = #add;
            #var.push(__cg_n);
        }));
    }
    let vecs = gr.tys.iter().zip(&gr.len).enumerate().map(|(gi, (t, n))| {
        let var = format_ident!("__cg_h{}", gi);
        quote!(let mut #var: ::std::vec::Vec<#t> = ::std::vec::Vec::with_capacity(#n);)
    });
    let arrays = (0..gr.tys.len()).map(|gi| {
        let var = format_ident!("__cg_h{}", gi);
        quote! {
            match ::core::convert::TryFrom::try_from(#var.into_boxed_slice()) {
                ::core::result::Result::Ok(a) => a,
                ::core::result::Result::Err(_) => ::core::unreachable!("every node of the group was added"),
            }
        }
    });
    let (nodes, edges) = (g.nodes.len(), g.edges.len());
    quote! {
        #kernels
        __cg_g.reserve(#nodes, #edges);
        #(#vecs)*
        #adds
        ::core::result::Result::Ok((#(#arrays,)*))
    }
}

/// Bounds on the types the user wrote, checked at those types' spans: params are `Copy`,
/// buffer elements and kernel scalars are `DeviceRepr` (what the runtime can send to a kernel).
fn type_checks(g: &Graph) -> TokenStream {
    let rt = rt();
    let mut calls = TokenStream::new();
    for i in &g.inputs {
        match &i.kind {
            InputKind::Param(t) => calls.extend(quote_spanned!(t.span()=> __cg_copy::<#t>();)),
            InputKind::Buffer { elem, .. } => {
                calls.extend(quote_spanned!(elem.span()=> __cg_device::<#elem>();))
            }
            _ => {}
        }
    }
    for k in &g.kernels {
        for (_, t) in &k.params {
            match t {
                ParamTy::Scalar(t) => calls.extend(quote_spanned!(t.span()=> __cg_arg::<#t>();)),
                ParamTy::Slice { elem, .. } => {
                    calls.extend(quote_spanned!(elem.span()=> __cg_device::<#elem>();))
                }
            }
        }
    }
    quote! {
        const _: () = {
            fn __cg_copy<T: ::core::marker::Copy>() {}
            fn __cg_device<T: #rt::DeviceRepr + ::core::marker::Send + ::core::marker::Sync + 'static>() {}
            fn __cg_arg<T: #rt::KernelArg>() {}
            #[allow(dead_code)]
            fn __cg_checks() {
                #calls
            }
        };
    }
}

/// `Other` becomes `OtherChild` (same path, last segment suffixed).
fn child_struct_path(ty: &syn::Path) -> TokenStream {
    let mut p = ty.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = format_ident!("{}Child", last.ident, span = last.ident.span());
    }
    p.to_token_stream()
}

pub fn expand(g: &Graph) -> TokenStream {
    let rt = rt();
    let s = slots(g);
    let t = types(g);
    let gr = groups(g, &t.node_tys);
    let nodes_ty = gr.state_ty();
    let name = &g.name;
    let vis = &g.vis;
    let attrs = &g.attrs;
    let inputs_name = format_ident!("{}Inputs", name);
    let exec_name = format_ident!("{}Exec", name);
    let child_name = format_ident!("{}Child", name);
    let (pty, bty, cty, ety, nty) = (&t.params, &t.bufs, &t.cbs, &t.evs, &nodes_ty);
    let dot = crate::dot::dot(g);
    let name_str = name.to_string();

    // NameInputs and NameChild fields.
    let mut input_fields = Vec::new();
    let mut child_fields = Vec::new();
    let mut child_needs_lifetime = false;
    let mut bind = Vec::new();
    let (mut from_inputs, mut from_child) = (
        [vec![], vec![], vec![], vec![]],
        [vec![], vec![], vec![], vec![]],
    );
    for (i, inp) in g.inputs.iter().enumerate() {
        let n = &inp.name;
        let (ty, cty_) = match &inp.kind {
            InputKind::Buffer {
                host,
                mutable,
                elem,
                ..
            } => {
                let ty = match (host, mutable) {
                    (false, false) => quote!(&'a #rt::CudaSlice<#elem>),
                    (false, true) => quote!(&'a mut #rt::CudaSlice<#elem>),
                    (true, false) => quote!(&'a [#elem]),
                    (true, true) => quote!(&'a mut [#elem]),
                };
                let method = match (host, mutable) {
                    (false, false) => quote!(bind(inputs.#n)?),
                    (false, true) => quote!(bind_mut(inputs.#n)?),
                    (true, false) => quote!(bind_host(inputs.#n)),
                    (true, true) => quote!(bind_host_mut(inputs.#n)),
                };
                bind.push(quote!(__cg_g.#method));
                (ty, handle_ty(&inp.kind))
            }
            InputKind::Param(ty) => (ty.to_token_stream(), ty.to_token_stream()),
            InputKind::Callback => {
                child_needs_lifetime = true;
                (callback_ty(), callback_ty())
            }
            InputKind::Event => {
                child_needs_lifetime = true;
                (quote!(&'a #rt::CudaEvent), quote!(&'a #rt::CudaEvent))
            }
        };
        let doc = format!("{} `{n}`.", crate::validate::describe(&inp.kind));
        input_fields.push(quote!(#[doc = #doc] pub #n: #ty));
        child_fields.push(quote!(#[doc = #doc] pub #n: #cty_));
        let (tuple, _) = s.of[i];
        if tuple != 1 {
            from_inputs[tuple].push(quote!(inputs.#n));
        }
        from_child[tuple].push(quote!(__cg_args.#n));
    }
    let inputs_needs_lifetime = g
        .inputs
        .iter()
        .any(|i| !matches!(i.kind, InputKind::Param(_)));
    let inputs_generics = if inputs_needs_lifetime {
        quote!(<'a>)
    } else {
        quote!()
    };
    let child_generics = if child_needs_lifetime {
        quote!(<'a>)
    } else {
        quote!()
    };
    let [p_in, _, c_in, e_in] = &from_inputs;
    let [p_ch, b_ch, c_ch, e_ch] = &from_child;
    let value_fns = value_fns(g, &s, &t, &gr);
    let populate = populate(g, &s, &gr);
    let exec_methods = crate::expand_exec::exec_methods(g, &s.of, &gr, &t.args, &t.node_tys);
    let inputs_doc = format!("The inputs of the [`{name}`] graph: the buffers it borrows, its params, callbacks and events.");
    let exec_doc = format!("The executable [`{name}`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).");
    let child_doc = format!("The inputs of [`{name}`] used as a child graph (`child({name} {{ ... }})`): buffer handles of the parent, constant params, callbacks and events.");

    let checks = type_checks(g);
    quote! {
        #checks

        #[doc = #inputs_doc]
        #vis struct #inputs_name #inputs_generics {
            #(#input_fields,)*
        }

        #[doc = #child_doc]
        #vis struct #child_name #child_generics {
            #(#child_fields,)*
        }

        #(#attrs)*
        #vis struct #name<'a> {
            __cg_graph: #rt::Graph<'a>,
            __cg_s: (#pty, #bty, #cty, #ety, #nty),
        }

        #[doc = #exec_doc]
        #vis struct #exec_name<'a> {
            __cg_exec: #rt::GraphExec<'a>,
            __cg_s: (#pty, #bty, #cty, #ety, #nty),
        }

        impl<'a> #name<'a> {
            /// The graph as DOT text, computed at compile time from the names written here.
            pub const DOT: &'static str = #dot;

            /// The graph as DOT text (no GPU needed).
            pub fn to_dot() -> &'static str {
                Self::DOT
            }

            /// Builds the template: binds the inputs and adds every node, loading the kernels
            /// from `module` by name.
            pub fn build(
                __cg_module: &#rt::Module,
                inputs: #inputs_name #inputs_generics,
            ) -> #rt::Result<Self> {
                let mut __cg_g = #rt::Graph::new(__cg_module.context())?.with_name(#name_str);
                let __cg_p: #pty = (#(#p_in,)*);
                let __cg_b: #bty = (#(#bind,)*);
                let __cg_c: #cty = (#(#c_in,)*);
                let __cg_e: #ety = (#(#e_in,)*);
                let __cg_n = Self::__cg_populate(&mut __cg_g, __cg_module, &__cg_p, &__cg_b, &__cg_c, &__cg_e)?;
                ::core::result::Result::Ok(Self {
                    __cg_graph: __cg_g,
                    __cg_s: (__cg_p, __cg_b, __cg_c, __cg_e, __cg_n),
                })
            }

            /// Makes the executable graph.
            pub fn instantiate(self) -> #rt::Result<#exec_name<'a>> {
                self.instantiate_with(#rt::Instantiate::new())
            }

            /// Makes the executable graph with options.
            pub fn instantiate_with(self, opts: #rt::Instantiate<'_>) -> #rt::Result<#exec_name<'a>> {
                ::core::result::Result::Ok(#exec_name {
                    __cg_exec: self.__cg_graph.instantiate_with(opts)?,
                    __cg_s: self.__cg_s,
                })
            }

            /// The runtime template graph.
            pub fn graph(&self) -> &#rt::Graph<'a> {
                &self.__cg_graph
            }

            /// Builds this graph as a child of `parent` (used by `child(...)` nodes).
            #[doc(hidden)]
            pub fn __cg_child(
                parent: &#rt::Graph<'a>,
                __cg_module: &#rt::Module,
                __cg_args: #child_name #child_generics,
            ) -> #rt::Result<#rt::Graph<'a>> {
                let mut __cg_g = parent.child_graph()?;
                let __cg_p: #pty = (#(#p_ch,)*);
                let __cg_b: #bty = (#(#b_ch,)*);
                let __cg_c: #cty = (#(#c_ch,)*);
                let __cg_e: #ety = (#(#e_ch,)*);
                Self::__cg_populate(&mut __cg_g, __cg_module, &__cg_p, &__cg_b, &__cg_c, &__cg_e)?;
                ::core::result::Result::Ok(__cg_g)
            }

            #[allow(unused_variables, clippy::all)]
            fn __cg_populate(
                __cg_g: &mut #rt::Graph<'a>,
                __cg_module: &#rt::Module,
                __cg_p: &#pty,
                __cg_b: &#bty,
                __cg_c: &#cty,
                __cg_e: &#ety,
            ) -> #rt::Result<#nty> {
                #populate
            }

            #value_fns
        }

        #exec_methods
    }
}
