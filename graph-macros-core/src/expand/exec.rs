//! The methods of `NameExec`:
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
use quote::{format_ident, quote};

use crate::gen::{callback_ty, handle_ty, rt, Cx};
use crate::kinds;
use crate::model::{InputKind, NodeOp};

/// Statements refreshing every node that uses input `input` from the current state. Nodes of
/// one group that need the same statement share one loop over their indices (`__cg_j`), so a
/// param used by a thousand nodes gives a short loop, not a thousand statements.
fn refresh(cx: &Cx<'_>, input: usize) -> TokenStream {
    // (statement text, statement, group, indices), in first-use order.
    let mut loops: Vec<(String, TokenStream, usize, Vec<usize>)> = Vec::new();
    for ni in 0..cx.g.nodes.len() {
        let (gi, j) = cx.groups.of[ni];
        let f = Cx::group_field(gi);
        let view = quote!(self.__cg_exec.node(self.__cg.nodes.#f[__cg_j])?);
        for stmt in kinds::refresh(cx, ni, input, &view) {
            let key = stmt.to_string();
            match loops.iter_mut().find(|(k, ..)| *k == key) {
                Some((.., js)) => js.push(j),
                None => loops.push((key, stmt, gi, vec![j])),
            }
        }
    }
    let mut out = TokenStream::new();
    for (_, stmt, gi, js) in loops {
        let whole = js.len() == cx.groups.len[gi] && js.iter().enumerate().all(|(a, b)| a == *b);
        out.extend(match js.as_slice() {
            [j] => quote!({ let __cg_j: usize = #j; #stmt }),
            _ if whole => {
                let len = cx.groups.len[gi];
                quote!(for __cg_j in 0..#len { #stmt })
            }
            _ => quote!(for &__cg_j in &[#(#js),*] { #stmt }),
        });
    }
    out
}

/// A setter that stores `value` in the state, refreshes the nodes that use it, and on failure
/// puts the old value back and refreshes again.
fn setter(field: &TokenStream, refresh_fn: &proc_macro2::Ident) -> TokenStream {
    quote! {
        let __cg_old = ::core::mem::replace(&mut #field, value);
        match self.#refresh_fn() {
            ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
            ::core::result::Result::Err(e) => {
                #field = __cg_old;
                let _ = self.#refresh_fn();
                ::core::result::Result::Err(e)
            }
        }
    }
}

/// The accessors and setters of each input.
fn input_methods(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let mut methods = TokenStream::new();
    let hidden = |m: &str| g.hidden.contains(m);
    for (i, inp) in g.inputs.iter().enumerate() {
        let n = &inp.name;
        if hidden(&n.to_string()) || hidden(&format!("set_{n}")) || hidden(&format!("{n}_mut")) {
            continue;
        }
        // A temporary exists only during launches: no accessor, no setter. A work has none
        // either: its node's view re-captures it.
        if matches!(inp.kind.buffer(), Some(b) if b.temp.is_some())
            || matches!(inp.kind, InputKind::Work)
        {
            continue;
        }
        let set = format_ident!("set_{}", n);
        let refresh_fn = format_ident!("__cg_refresh_{}", i);
        let f = cx.input_field(i);
        let field = quote!(self.__cg.inputs.#f);
        let body = refresh(cx, i);
        match &inp.kind {
            InputKind::Param(ty) => {
                let doc_get = format!("The current value of param `{n}`.");
                let doc_set = format!(
                    "Sets param `{n}` and updates every node that uses it (one driver call each). On failure nothing changes."
                );
                let set_body = setter(&field, &refresh_fn);
                methods.extend(quote! {
                    #[doc = #doc_get]
                    pub fn #n(&self) -> #ty {
                        ::core::clone::Clone::clone(&#field)
                    }
                    #[doc = #doc_set]
                    pub fn #set(&mut self, value: #ty) -> ::core::result::Result<(), #rt::error::EditError> {
                        #set_body
                    }
                });
            }
            InputKind::Buffer(b) if !b.host => {
                let elem = &b.elem;
                let doc = format!("Buffer `{n}`, for cudarc calls between launches.");
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #n(&self) -> ::core::result::Result<&#rt::cudarc::driver::CudaSlice<#elem>, #rt::error::AccessError> {
                        self.__cg_exec.buffer(#field)
                    }
                });
                if b.mutable {
                    let m = format_ident!("{}_mut", n);
                    let doc = format!("Buffer `{n}`, writable (a view), e.g. to upload new input.");
                    methods.extend(quote! {
                        #[doc = #doc]
                        pub fn #m(&mut self) -> ::core::result::Result<#rt::cudarc::driver::CudaViewMut<'_, #elem>, #rt::error::AccessError> {
                            self.__cg_exec.buffer_mut(#field)
                        }
                    });
                }
                {
                    let (swap, ty) = if b.mutable {
                        (
                            quote!(swap_buffer_mut),
                            quote!(&'a mut #rt::cudarc::driver::CudaSlice<#elem>),
                        )
                    } else {
                        (
                            quote!(swap_buffer),
                            quote!(&'a #rt::cudarc::driver::CudaSlice<#elem>),
                        )
                    };
                    let doc = format!(
                        "Binds another buffer as `{n}` and re-points every node that uses it. On failure nothing changes."
                    );
                    methods.extend(quote! {
                        #[doc = #doc]
                        pub fn #set(&mut self, buffer: #ty) -> ::core::result::Result<(), #rt::error::EditError> {
                            let __cg_h = #field;
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
            InputKind::Buffer(b) if b.mutable => {
                let elem = &b.elem;
                let m = format_ident!("{}_mut", n);
                let doc = format!("Host buffer `{n}`; waits for running launches first.");
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #n(&mut self) -> ::core::result::Result<&[#elem], #rt::error::AccessError> {
                        self.__cg_exec.host(#field)
                    }
                    #[doc = #doc]
                    pub fn #m(&mut self) -> ::core::result::Result<&mut [#elem], #rt::error::AccessError> {
                        self.__cg_exec.host_mut(#field)
                    }
                });
            }
            InputKind::Buffer(_) => {}
            InputKind::Callback | InputKind::Event => {
                let ty = if matches!(inp.kind, InputKind::Callback) {
                    callback_ty()
                } else {
                    quote!(&'a #rt::cudarc::driver::CudaEvent)
                };
                let doc = format!(
                    "Replaces `{n}` in every node that uses it. On failure nothing changes."
                );
                let set_body = setter(&field, &refresh_fn);
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #set(&mut self, value: #ty) -> ::core::result::Result<(), #rt::error::EditError> {
                        #set_body
                    }
                });
            }
            InputKind::Work => {}
        }
        methods.extend(quote! {
            #[allow(unused_variables, unreachable_code, clippy::all)]
            fn #refresh_fn(&mut self) -> ::core::result::Result<(), #rt::error::EditError> {
                #body
                ::core::result::Result::Ok(())
            }
        });
    }
    methods
}

/// The views of nodes that are not kernel launches: the runtime's view of their kind.
fn other_views(cx: &Cx<'_>, exec: &proc_macro2::Ident) -> TokenStream {
    let bounds = &cx.bounds;
    let rt = rt();
    let mut out = TokenStream::new();
    for (ni, n) in cx.g.nodes.iter().enumerate() {
        // Allocation and free nodes are placed by the macro: no view.
        let placed = matches!(n.op, NodeOp::MemAlloc(_) | NodeOp::MemFree(_));
        if placed
            || matches!(n.op, NodeOp::Launch(_))
            || cx.g.hidden.contains(&format!("node:{}", n.name))
        {
            continue;
        }
        let name = &n.name;
        let doc = format!("The view of node `{name}`: its typed setters.");
        let handle = cx.handle(ni);
        let ty = &cx.groups.tys[cx.groups.of[ni].0];
        out.extend(quote! {
            impl<'a> #exec<'a> #bounds {
                #[doc = #doc]
                pub fn #name(&mut self) -> ::core::result::Result<<#ty as #rt::node::NodeHandle>::OnExec<'_, 'a>, #rt::error::EditError> {
                    self.__cg_exec.node(#handle)
                }
            }
        });
    }
    out
}

/// `edit_<node>` for each child node: typed edits of the graph it runs.
fn child_edits(cx: &Cx<'_>, exec: &proc_macro2::Ident) -> TokenStream {
    let bounds = &cx.bounds;
    let rt = rt();
    let mut out = TokenStream::new();
    for (ni, n) in cx.g.nodes.iter().enumerate() {
        let NodeOp::Child(c) = &n.op else { continue };
        let m = format_ident!("edit_{}", n.name);
        if cx.g.hidden.contains(&m.to_string()) {
            continue;
        }
        let (kid, handle) = (Cx::kid_field(&n.name), cx.handle(ni));
        let nodes = kinds::child_nodes_path(&c.ty);
        let doc = format!(
            "Edits the graph child node `{}` runs, through its typed node handles (`f` gets the child template and its handles, e.g. `|g, h| g.node(h.step())?.set_arg::<1>(7)`), then runs the edited graph in the node: one driver call for the whole child, no rebuild. The child must keep its nodes and edges. A later change of an input the child uses builds it again from the inputs, without these edits.",
            n.name
        );
        out.extend(quote! {
            impl<'a> #exec<'a> #bounds {
                #[doc = #doc]
                pub fn #m<R>(
                    &mut self,
                    f: impl ::core::ops::FnOnce(&mut #rt::node::ChildTemplate<'_, 'a>, &#nodes) -> ::core::result::Result<R, #rt::error::EditError>,
                ) -> ::core::result::Result<R, #rt::error::EditError> {
                    let __cg_nodes = self
                        .__cg
                        .inputs
                        .#kid
                        .as_ref()
                        .expect("a child node's handles are kept when it is built");
                    self.__cg_exec.node(#handle)?.edit(|g| f(g, __cg_nodes))
                }
            }
        });
    }
    out
}

pub(super) fn methods(cx: &Cx<'_>) -> TokenStream {
    let bounds = &cx.bounds;
    let rt = rt();
    let g = cx.g;
    let exec = format_ident!("{}Exec", g.name);
    let inputs = input_methods(cx);
    let kernel_views = kinds::kernel_views(cx, &exec);
    let other_views = other_views(cx, &exec);
    let child_edits = child_edits(cx, &exec);
    let buffers: Vec<usize> = (0..g.inputs.len())
        .filter(|&i| g.inputs[i].kind.buffer().is_some())
        .collect();
    let handle_fields = buffers.iter().map(|&i| {
        let (n, ty) = (&g.inputs[i].name, handle_ty(&g.inputs[i].kind));
        quote!(pub #n: #ty)
    });
    let handle_values = buffers.iter().map(|&i| {
        let (n, f) = (&g.inputs[i].name, cx.input_field(i));
        quote!(#n: self.__cg.inputs.#f)
    });
    quote! {
        impl<'a> #exec<'a> #bounds {
            /// Launches the graph on `stream`.
            pub fn launch(&mut self, stream: &::std::sync::Arc<#rt::cudarc::driver::CudaStream>) -> ::core::result::Result<(), #rt::error::LaunchError> {
                self.__cg_exec.launch(stream)
            }
            /// Waits for every launch, then reports a host-callback panic if one happened.
            pub fn synchronize(&mut self) -> ::core::result::Result<(), #rt::error::LaunchError> {
                self.__cg_exec.synchronize()
            }
            /// Applies template edits made through `inner_mut().graph_mut()`.
            pub fn update(&mut self) -> ::core::result::Result<#rt::exec::UpdatePath, #rt::error::UpdateError> {
                self.__cg_exec.update()
            }
            /// Bytes of graph-owned memory the temporaries hold, all together (sized from the
            /// params when the graph was built).
            pub fn temporary_bytes(&self) -> usize {
                self.__cg_exec.graph().temporary_bytes()
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
            #inputs
        }

        /// Handles of the bound buffers, for the node views' buffer setters.
        #[derive(Clone, Copy, Debug)]
        pub struct __CgHandles {
            #(#handle_fields,)*
        }

        impl<'a> #exec<'a> #bounds {
            /// Handles of the bound buffers, for the node views' buffer setters.
            pub fn handles(&self) -> __CgHandles {
                __CgHandles { #(#handle_values,)* }
            }
        }

        #kernel_views
        #other_views
        #child_edits
    }
}
