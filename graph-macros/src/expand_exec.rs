//! Phase 3, second half: the methods of `NameExec`.
//!
//! - `launch`, `synchronize`, `update`, `inner`, `inner_mut`, `into_inner`, `handles`;
//! - one view per node, named after it (`exec.step()`); a kernel node's view has a typed setter
//!   per kernel parameter (`set_a`) and reaches the launch setters through `Deref`;
//! - per param `a`: `a()` and `set_a(v)`, which updates exactly the nodes that use `a` (kernel
//!   arguments and launch dimensions written with it, memset values): one driver call per node,
//!   no allocation, and on failure every node is put back;
//! - per buffer `y`: `y()` (and `y_mut()` if writable) for cudarc calls, and `set_y(&buf)`,
//!   which binds another buffer and re-points the nodes that use it;
//! - per callback or event: `set_name(..)`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::ast::ParamTy;
use crate::expand::{arg_ty, handle_ty};
use crate::expand_build::Groups;
use crate::validate::{Arg, ChildArg, Graph, InputKind, NodeOp};

fn index(i: usize) -> syn::Index {
    syn::Index::from(i)
}

/// Statements refreshing every node that uses input `input` from the current state. Nodes of
/// one group that need the same statement share one loop over their indices (`__cg_j`), so a
/// param used by a thousand nodes gives a short loop, not a thousand statements.
fn refresh(g: &Graph, of: &[(usize, usize)], gr: &Groups, input: usize) -> TokenStream {
    let name = &g.name;
    let h = index(of[input].1);
    // (statement, group, indices), in first-use order.
    let mut loops: Vec<(String, TokenStream, usize, Vec<usize>)> = Vec::new();
    for (ni, n) in g.nodes.iter().enumerate() {
        let (gi, j) = gr.of[ni];
        let gidx = index(gi);
        let view = quote!(self.__cg_exec.node(self.__cg_s.4.#gidx[__cg_j])?);
        let mut stmts = Vec::new();
        match &n.op {
            NodeOp::Launch {
                kernel,
                args,
                grid,
                block,
                smem,
            } if n.params.contains(&input)
                || n.reads.contains(&input)
                || n.writes.contains(&input) =>
            {
                let (fa, fc) = (
                    format_ident!("__cg_args_{}", gi),
                    format_ident!("__cg_cfg_{}", gi),
                );
                let input_name = g.inputs[input].name.to_string();
                let uses = |e: &syn::Expr| {
                    crate::validate::free_idents(e.to_token_stream())
                        .iter()
                        .any(|id| *id == input_name)
                };
                let in_dims = [grid, block].into_iter().chain(smem.as_ref()).any(uses);
                let positions: Vec<usize> = args
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| match a {
                        Arg::Buffer { input: i, .. } => *i == input,
                        Arg::Value(e) => uses(e),
                    })
                    .map(|(i, _)| i)
                    .collect();
                let all_args = quote!(#name::#fa(__cg_j, &self.__cg_s.0, &self.__cg_s.1));
                // The cheapest setter that covers the change: one argument, all arguments, or
                // arguments and launch configuration.
                stmts.push(match (in_dims, positions.as_slice()) {
                    // The argument is the param itself: send its value, nothing to compute.
                    (false, [i]) if bare_param(g, input, &args[*i], *kernel, *i) => {
                        let slot = index(of[input].1);
                        quote!(#view.set_arg::<#i>(::core::clone::Clone::clone(&self.__cg_s.0.#slot))?;)
                    }
                    (false, [i]) => {
                        let idx = index(*i);
                        quote!(#view.set_arg::<#i>(#all_args.#idx)?;)
                    }
                    (false, _) => quote!(#view.set_args(#all_args)?;),
                    (true, _) => {
                        quote!(#view.set(#all_args, #name::#fc(__cg_j, &self.__cg_s.0))?;)
                    }
                });
            }
            NodeOp::Memset { dst, .. } => {
                if n.params.contains(&input) {
                    let f = format_ident!("__cg_value_{}", gi);
                    stmts.push(quote!(#view.set_value(#name::#f(__cg_j, &self.__cg_s.0))?;));
                }
                if *dst == input {
                    stmts.push(quote!(#view.set_dst(self.__cg_s.1.#h)?;));
                }
            }
            NodeOp::Memcpy { dst, src } => {
                if *src == input {
                    stmts.push(quote!(#view.set_src(self.__cg_s.1.#h)?;));
                }
                if *dst == input {
                    stmts.push(quote!(#view.set_dst(self.__cg_s.1.#h)?;));
                }
            }
            NodeOp::Host {
                callback: Some(c), ..
            } if *c == input => {
                stmts.push(quote!(#view.set_callback(self.__cg_s.2.#h)?;));
            }
            NodeOp::Record(e) | NodeOp::Wait(e) if *e == input => {
                stmts.push(quote!(#view.set_event(self.__cg_s.3.#h)?;));
            }
            _ => {}
        }
        for stmt in stmts {
            let key = stmt.to_string();
            match loops.iter_mut().find(|(k, ..)| *k == key) {
                Some((.., js)) => js.push(j),
                None => loops.push((key, stmt, gi, vec![j])),
            }
        }
    }
    let mut out = TokenStream::new();
    for (_, stmt, gi, js) in loops {
        let whole = js.len() == gr.len[gi] && js.iter().enumerate().all(|(a, b)| a == *b);
        out.extend(match js.as_slice() {
            [j] => quote!({ let __cg_j: usize = #j; #stmt }),
            _ if whole => {
                let len = gr.len[gi];
                quote!(for __cg_j in 0..#len { #stmt })
            }
            _ => quote!(for &__cg_j in &[#(#js),*] { #stmt }),
        });
    }
    out
}

/// Whether kernel argument `i` is exactly param `input`, of the very type the kernel takes (then
/// a setter can send the param's value without computing the argument list).
fn bare_param(g: &Graph, input: usize, arg: &Arg, kernel: usize, i: usize) -> bool {
    let InputKind::Param(ty) = &g.inputs[input].kind else {
        return false;
    };
    let is_param =
        matches!(arg, Arg::Value(syn::Expr::Path(p)) if p.path.is_ident(&g.inputs[input].name));
    let same_type = match &g.kernels[kernel].params[i].1 {
        ParamTy::Scalar(t) => t.to_token_stream().to_string() == ty.to_token_stream().to_string(),
        ParamTy::Slice { .. } => false,
    };
    is_param && same_type
}

/// Whether a child node uses the input (it cannot be re-pointed: the child is built once).
fn used_by_child(g: &Graph, input: usize) -> bool {
    g.nodes.iter().any(|n| match &n.op {
        NodeOp::Child { fields, .. } => fields
            .iter()
            .any(|(_, a)| matches!(a, ChildArg::Input(i, _) if *i == input)),
        _ => false,
    })
}

pub fn exec_methods(
    g: &Graph,
    of: &[(usize, usize)],
    gr: &Groups,
    args: &[Option<TokenStream>],
    node_tys: &[TokenStream],
) -> TokenStream {
    let rt = quote!(::cuda_graph::__private);
    let exec = format_ident!("{}Exec", g.name);
    let mut methods = TokenStream::new();
    let hidden = |m: &str| g.hidden.contains(m);
    for (i, inp) in g.inputs.iter().enumerate() {
        let n = &inp.name;
        if hidden(&n.to_string()) || hidden(&format!("set_{n}")) || hidden(&format!("{n}_mut")) {
            continue;
        }
        let set = format_ident!("set_{}", n);
        let refresh_fn = format_ident!("__cg_refresh_{}", i);
        let slot = index(of[i].1);
        let body = refresh(g, of, gr, i);
        let child = used_by_child(g, i);
        match &inp.kind {
            InputKind::Param(ty) => {
                let doc_get = format!("The current value of param `{n}`.");
                let doc_set = format!(
                    "Sets param `{n}` and updates every node that uses it (one driver call each). On failure nothing changes."
                );
                methods.extend(quote! {
                    #[doc = #doc_get]
                    pub fn #n(&self) -> #ty {
                        ::core::clone::Clone::clone(&self.__cg_s.0.#slot)
                    }
                    #[doc = #doc_set]
                    pub fn #set(&mut self, value: #ty) -> ::core::result::Result<(), #rt::EditError> {
                        let __cg_old = ::core::mem::replace(&mut self.__cg_s.0.#slot, value);
                        match self.#refresh_fn() {
                            ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                            ::core::result::Result::Err(e) => {
                                self.__cg_s.0.#slot = __cg_old;
                                let _ = self.#refresh_fn();
                                ::core::result::Result::Err(e)
                            }
                        }
                    }
                });
            }
            InputKind::Buffer {
                host: false,
                mutable,
                elem,
                ..
            } => {
                let doc = format!("Buffer `{n}`, for cudarc calls between launches.");
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #n(&self) -> ::core::result::Result<&#rt::CudaSlice<#elem>, #rt::AccessError> {
                        self.__cg_exec.buffer(self.__cg_s.1.#slot)
                    }
                });
                if *mutable {
                    let m = format_ident!("{}_mut", n);
                    let doc = format!("Buffer `{n}`, writable (a view), e.g. to upload new input.");
                    methods.extend(quote! {
                        #[doc = #doc]
                        pub fn #m(&mut self) -> ::core::result::Result<#rt::CudaViewMut<'_, #elem>, #rt::AccessError> {
                            self.__cg_exec.buffer_mut(self.__cg_s.1.#slot)
                        }
                    });
                }
                if !child {
                    let (swap, ty) = if *mutable {
                        (
                            quote!(swap_buffer_mut),
                            quote!(&'a mut #rt::CudaSlice<#elem>),
                        )
                    } else {
                        (quote!(swap_buffer), quote!(&'a #rt::CudaSlice<#elem>))
                    };
                    let doc = format!(
                        "Binds another buffer as `{n}` and re-points every node that uses it. On failure nothing changes."
                    );
                    methods.extend(quote! {
                        #[doc = #doc]
                        pub fn #set(&mut self, buffer: #ty) -> ::core::result::Result<(), #rt::EditError> {
                            let __cg_h = self.__cg_s.1.#slot;
                            let __cg_old = self.__cg_exec.#swap(__cg_h, buffer)?;
                            match self.#refresh_fn() {
                                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                                ::core::result::Result::Err(e) => {
                                    let _ = self.__cg_exec.restore_buffer(__cg_h, __cg_old);
                                    let _ = self.#refresh_fn();
                                    ::core::result::Result::Err(e)
                                }
                            }
                        }
                    });
                }
            }
            InputKind::Buffer {
                host: true,
                mutable: true,
                elem,
                ..
            } => {
                let m = format_ident!("{}_mut", n);
                let doc = format!("Host buffer `{n}`; waits for running launches first.");
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #n(&mut self) -> ::core::result::Result<&[#elem], #rt::AccessError> {
                        self.__cg_exec.host(self.__cg_s.1.#slot)
                    }
                    #[doc = #doc]
                    pub fn #m(&mut self) -> ::core::result::Result<&mut [#elem], #rt::AccessError> {
                        self.__cg_exec.host_mut(self.__cg_s.1.#slot)
                    }
                });
            }
            InputKind::Buffer { host: true, .. } => {}
            InputKind::Callback | InputKind::Event if !child => {
                let (tuple, ty) = if matches!(inp.kind, InputKind::Callback) {
                    (
                        index(2),
                        quote!(
                            &'a (dyn ::core::ops::Fn()
                                     + ::core::marker::Send
                                     + ::core::marker::Sync
                                     + 'a)
                        ),
                    )
                } else {
                    (index(3), quote!(&'a #rt::CudaEvent))
                };
                let doc = format!(
                    "Replaces `{n}` in every node that uses it. On failure nothing changes."
                );
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #set(&mut self, value: #ty) -> ::core::result::Result<(), #rt::EditError> {
                        let __cg_old = ::core::mem::replace(&mut self.__cg_s.#tuple.#slot, value);
                        match self.#refresh_fn() {
                            ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                            ::core::result::Result::Err(e) => {
                                self.__cg_s.#tuple.#slot = __cg_old;
                                let _ = self.#refresh_fn();
                                ::core::result::Result::Err(e)
                            }
                        }
                    }
                });
            }
            InputKind::Callback | InputKind::Event => {}
        }
        methods.extend(quote! {
            #[allow(unused_variables, unreachable_code, clippy::all)]
            fn #refresh_fn(&mut self) -> ::core::result::Result<(), #rt::EditError> {
                #body
                ::core::result::Result::Ok(())
            }
        });
    }

    // Node views, and the handle struct, in an anonymous block.
    let mut views = TokenStream::new();
    let mut declared_views = std::collections::BTreeSet::new();
    for (ni, n) in g.nodes.iter().enumerate() {
        let name = &n.name;
        if hidden(&format!("node:{name}")) {
            continue;
        }
        let node = gr.handle(ni);
        let doc = format!("The view of node `{name}`: its typed setters.");
        match (&n.op, &args[ni]) {
            (NodeOp::Launch { kernel, .. }, Some(a)) => {
                // One view type per kernel declaration, shared by its nodes.
                let view = format_ident!("__CgView{}", kernel);
                if !declared_views.contains(kernel) {
                    declared_views.insert(*kernel);
                    let setters =
                        g.kernels[*kernel]
                            .params
                            .iter()
                            .enumerate()
                            .map(|(i, (p, t))| {
                                let set = format_ident!("set_{}", p);
                                let ty = arg_ty(t);
                                let doc = format!("Sets kernel parameter `{p}` of this node only.");
                                quote! {
                                    #[doc = #doc]
                                    pub fn #set(&mut self, value: #ty) -> ::core::result::Result<(), #rt::EditError> {
                                        self.0.set_arg::<#i>(value)
                                    }
                                }
                            });
                    views.extend(quote! {
                        pub struct #view<'v, 'a>(#rt::KernelMut<'v, 'a, #a, #rt::OnExec>);
                        impl<'v, 'a> ::core::ops::Deref for #view<'v, 'a> {
                            type Target = #rt::KernelMut<'v, 'a, #a, #rt::OnExec>;
                            fn deref(&self) -> &Self::Target {
                                &self.0
                            }
                        }
                        impl<'v, 'a> ::core::ops::DerefMut for #view<'v, 'a> {
                            fn deref_mut(&mut self) -> &mut Self::Target {
                                &mut self.0
                            }
                        }
                        impl<'v, 'a> #view<'v, 'a> {
                            #(#setters)*
                        }
                    });
                }
                views.extend(quote! {
                    impl<'a> #exec<'a> {
                        #[doc = #doc]
                        pub fn #name(&mut self) -> ::core::result::Result<#view<'_, 'a>, #rt::EditError> {
                            ::core::result::Result::Ok(#view(self.__cg_exec.node(#node)?))
                        }
                    }
                });
            }
            _ => {
                let ty = &node_tys[ni];
                views.extend(quote! {
                    impl<'a> #exec<'a> {
                        #[doc = #doc]
                        pub fn #name(&mut self) -> ::core::result::Result<<#ty as #rt::NodeHandle>::OnExec<'_, 'a>, #rt::EditError> {
                            self.__cg_exec.node(#node)
                        }
                    }
                });
            }
        }
    }
    let buffers: Vec<_> = g
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i.kind, InputKind::Buffer { .. }))
        .collect();
    let handle_fields = buffers.iter().map(|(_, i)| {
        let n = &i.name;
        let ty = handle_ty(&i.kind);
        quote!(pub #n: #ty)
    });
    let handle_values = buffers.iter().map(|(j, i)| {
        let n = &i.name;
        let slot = index(of[*j].1);
        quote!(#n: self.__cg_s.1.#slot)
    });

    quote! {
        impl<'a> #exec<'a> {
            /// Launches the graph on `stream`.
            pub fn launch(&mut self, stream: &#rt::Arc<#rt::CudaStream>) -> ::core::result::Result<(), #rt::LaunchError> {
                self.__cg_exec.launch(stream)
            }
            /// Waits for every launch, then reports a host-callback panic if one happened.
            pub fn synchronize(&mut self) -> ::core::result::Result<(), #rt::LaunchError> {
                self.__cg_exec.synchronize()
            }
            /// Applies template edits made through `inner_mut().graph_mut()`.
            pub fn update(&mut self) -> ::core::result::Result<#rt::UpdatePath, #rt::UpdateError> {
                self.__cg_exec.update()
            }
            /// The runtime executable graph.
            pub fn inner(&self) -> &#rt::GraphExec<'a> {
                &self.__cg_exec
            }
            /// The runtime executable graph, mutable.
            pub fn inner_mut(&mut self) -> &mut #rt::GraphExec<'a> {
                &mut self.__cg_exec
            }
            /// The runtime executable graph, taken out.
            pub fn into_inner(self) -> #rt::GraphExec<'a> {
                self.__cg_exec
            }
            #methods
        }

        const _: () = {
            #[derive(Clone, Copy, Debug)]
            pub struct __CgHandles {
                #(#handle_fields,)*
            }
            impl<'a> #exec<'a> {
                /// Handles of the bound buffers, for the node views' buffer setters.
                pub fn handles(&self) -> __CgHandles {
                    __CgHandles { #(#handle_values,)* }
                }
            }
            #views
        };
    }
}
