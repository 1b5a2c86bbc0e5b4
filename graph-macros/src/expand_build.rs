//! Phase 3, building the template: how `build` adds the nodes.
//!
//! - Node handles are grouped by handle type ([`Groups`]): each group is one boxed array in the
//!   generated state, so its type stays small however many nodes there are, and setters that
//!   touch many nodes of a group loop over it.
//! - Node values (kernel arguments, launch configuration, memset values) come from one private
//!   function per group and value, a `match` on the node's index in its group.
//! - `__cg_populate` adds kernel nodes that follow each other from a table of names and
//!   dependencies (node indices), other nodes one statement each.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::ast::ParamTy;
use crate::expand::{arg_ty, elem_of, index, rt, Slots, Types};
use crate::validate::{Arg, ChildArg, Graph, InputKind, NodeOp};

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
    pub(crate) fn state_ty(&self) -> TokenStream {
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
pub(crate) fn groups(g: &Graph, node_tys: &[TokenStream]) -> Groups {
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
pub(crate) fn value_fns(g: &Graph, s: &Slots, t: &Types, gr: &Groups) -> TokenStream {
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
pub(crate) fn populate(g: &Graph, s: &Slots, gr: &Groups) -> TokenStream {
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

/// `Other` becomes `OtherChild` (same path, last segment suffixed).
fn child_struct_path(ty: &syn::Path) -> TokenStream {
    let mut p = ty.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = format_ident!("{}Child", last.ident, span = last.ident.span());
    }
    p.to_token_stream()
}
