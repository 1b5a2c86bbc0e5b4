//! The methods of `NameExec` (which derefs to the runtime's `GraphExec` for `launch`,
//! `synchronize`, `update`, ...):
//!
//! - `inner`, `inner_mut`, `into_inner`, `handles`;
//! - one view per node, named after it (`exec.step()`); a kernel node's view has a typed setter
//!   per kernel parameter (`set_a`) and reaches the launch setters through `Deref`;
//! - per param `a`: `a()` and `set_a(v)`, which sends again exactly the nodes that use `a`
//!   (kernel arguments and launch dimensions written with it, memset values): one driver call
//!   per node, and on failure every node is put back (the library's `commit`);
//! - per buffer `y`: `y()` (and `y_mut()` if writable) for cudarc calls, and `set_y(&buf)`,
//!   which binds another buffer and re-points the nodes that use it;
//! - per callback or event: `set_name(..)`;
//! - `Resend`: how one node of each handle group is sent again.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::gen::{abs, callback_ty, handle_ty, rt, Cx};
use crate::kinds;
use crate::model::{InputKind, NodeOp};

/// The nodes that use input `input`, as the library's `Users` table: per group, ranges of
/// node indices, whether their launch configuration uses the input, and which of their parts
/// do (a setter sends only those).
fn users(cx: &Cx<'_>, input: usize) -> TokenStream {
    let lit = proc_macro2::Literal::usize_unsuffixed;
    let mut rows: Vec<(usize, usize, usize, kinds::Use)> = Vec::new();
    for gi in 0..cx.groups.members.len() {
        for (j, &ni) in cx.groups.members[gi].iter().enumerate() {
            let Some(u) = kinds::uses(cx, ni, input) else {
                continue;
            };
            // A repeat block's node: every iteration (the whole group).
            if cx.groups.repeated(cx.g, gi) {
                rows.push((gi, 0, usize::MAX, u));
                continue;
            }
            match rows.last_mut() {
                Some((g, _, end, w)) if *g == gi && *end == j && *w == u => *end += 1,
                _ => rows.push((gi, j, j + 1, u)),
            }
        }
    }
    let rows = rows.iter().map(|&(g, a, b, u)| {
        let b = if b == usize::MAX {
            quote!(usize::MAX)
        } else {
            let b = lit(b);
            quote!(#b)
        };
        let (g, a) = (lit(g), lit(a));
        let parts = match (u.cfg, u.parts) {
            (_, u64::MAX) => quote!(u64::MAX),
            (true, p) => {
                let p = proc_macro2::Literal::u64_unsuffixed(p);
                quote!(__cg::__private::CONFIG | #p)
            }
            (false, p) => {
                let p = proc_macro2::Literal::u64_unsuffixed(p);
                quote!(#p)
            }
        };
        quote!((#g, #a..#b, #parts))
    });
    quote!(&[#(#rows),*])
}

/// The accessors and setters of each input.
fn input_methods(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let mut methods = TokenStream::new();
    let hidden = |m: &str| g.hidden.contains(m);
    let edit = quote!(#rt::error::EditResult);
    let lengths = crate::lengths::params(g);
    for (i, inp) in g.inputs.iter().enumerate() {
        let n = &inp.name;
        if hidden(&n.to_string()) || hidden(&format!("set_{n}")) || hidden(&format!("{n}_mut")) {
            continue;
        }
        // A temporary exists only during launches: no accessor, no setter. A work has none
        // either: its node's view re-captures it. A stack has none yet.
        // A communicator has none either (its collectives are captured once), nor `rank` and
        // `world`, read from it.
        if matches!(inp.kind.buffer(), Some(b) if b.temp.is_some() || b.stack.is_some())
            || matches!(inp.kind, InputKind::Work | InputKind::Comm)
            || inp.implicit.is_some()
        {
            continue;
        }
        let set = format_ident!("set_{}", n);
        let f = cx.input_field(i);
        let input = proc_macro2::Literal::usize_unsuffixed(i);
        // Stores `value`, sends the users again; on failure puts the old value back.
        let store = quote! {
            #rt::__private::set_input(self, #input, |e| &mut e.__cg.inputs.#f, value)
        };
        match &inp.kind {
            InputKind::Param(ty) => {
                let doc_get = format!("The current value of param `{n}`.");
                let doc_set = format!("Sets param `{n}` and updates every node that uses it (one driver call each). On failure nothing changes.");
                methods.extend(quote! {
                    #[doc = #doc_get]
                    pub fn #n(&self) -> #ty { self.__cg.inputs.#f }
                });
                // A param that sizes the graph (a repeat count, a stack's count or index) has
                // no setter: a new value needs another graph.
                // A param that a buffer's declared length uses checks the bound buffers first.
                let store = if lengths.contains(&i) {
                    crate::lengths::checked_setter(&quote!(#input), &quote!(#f))
                } else {
                    store
                };
                if !g.structural.contains(&i) {
                    methods.extend(quote! {
                        #[doc = #doc_set]
                        pub fn #set(&mut self, value: #ty) -> #edit { #store }
                    });
                }
            }
            // A buffer of another device: the caller owns it and reaches it on that device;
            // the graph keeps no accessor or rebinding setter for it.
            InputKind::Buffer(b) if b.peer => {}
            InputKind::Buffer(b) if !b.host => {
                let elem = &b.elem;
                let doc = format!("Buffer `{n}`, for cudarc calls between launches.");
                let slice = quote!(#rt::buffer::CudaSlice<#elem>);
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #n(&self) -> #rt::error::AccessResult<&#slice> {
                        self.__cg_exec.buffer(self.__cg.inputs.#f)
                    }
                });
                if b.mutable {
                    let m = format_ident!("{}_mut", n);
                    let doc = format!("Buffer `{n}`, writable (a view), e.g. to upload new input.");
                    methods.extend(quote! {
                        #[doc = #doc]
                        pub fn #m(&mut self) -> #rt::error::AccessResult<#rt::buffer::CudaViewMut<'_, #elem>> {
                            self.__cg_exec.buffer_mut(self.__cg.inputs.#f)
                        }
                    });
                }
                let ty = if b.mutable {
                    quote!(&'a mut #slice)
                } else {
                    quote!(&'a #slice)
                };
                let doc = format!("Binds another buffer as `{n}` and re-points every node that uses it. On failure nothing changes.");
                let check =
                    crate::lengths::has_length(g, i).then(|| crate::lengths::rebind_check(i));
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #set(&mut self, buffer: #ty) -> #edit {
                        #check
                        #rt::__private::rebind(self, #input, |e| e.__cg.inputs.#f, buffer)
                    }
                });
            }
            InputKind::Buffer(b) if b.mutable => {
                let elem = &b.elem;
                let m = format_ident!("{}_mut", n);
                let doc = format!("Host buffer `{n}`; waits for running launches first.");
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #n(&mut self) -> #rt::error::AccessResult<&[#elem]> {
                        self.__cg_exec.host(self.__cg.inputs.#f)
                    }
                    #[doc = #doc]
                    pub fn #m(&mut self) -> #rt::error::AccessResult<&mut [#elem]> {
                        self.__cg_exec.host_mut(self.__cg.inputs.#f)
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
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #set(&mut self, value: #ty) -> #edit { #store }
                });
            }
            InputKind::Work | InputKind::Comm => {}
        }
    }
    methods
}

/// The views of nodes that are not kernel launches: the runtime's view of their kind.
fn other_views(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let mut out = TokenStream::new();
    for (ni, n) in cx.g.nodes.iter().enumerate() {
        // Allocation and free nodes are placed by the macro: no view. A repeat block has no
        // node of its own.
        let placed = matches!(
            n.op,
            NodeOp::MemAlloc(_) | NodeOp::MemFree(_) | NodeOp::Repeat(_)
        );
        if placed
            || matches!(n.op, NodeOp::Launch(_))
            || cx.g.hidden.contains(&format!("node:{}", n.name))
        {
            continue;
        }
        let name = &n.name;
        let ty = kinds::kind(&n.op).view_ty(cx.g);
        if cx.g.block_of(ni).is_some() {
            let doc = format!("The view of node `{name}` in iteration `l` of its repeat block: its typed setters.");
            let f = Cx::group_field(cx.groups.of[ni].0);
            let n = name.to_string();
            out.extend(quote! {
                #[doc = #doc]
                pub fn #name(&mut self, l: usize) -> #rt::error::EditResult<#ty> {
                    let h = #rt::__private::iteration(&self.__cg.nodes.#f, #n, l)?;
                    self.__cg_exec.node(h)
                }
            });
            continue;
        }
        let doc = format!("The view of node `{name}`: its typed setters.");
        let handle = cx.handle(ni);
        out.extend(quote! {
            #[doc = #doc]
            #[inline]
            pub fn #name(&mut self) -> #rt::error::EditResult<#ty> {
                self.__cg_exec.node(#handle)
            }
        });
    }
    out
}

/// `edit_<node>` for each child node: typed edits of the graph it runs.
fn child_edits(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let mut out = TokenStream::new();
    for (ni, n) in cx.g.nodes.iter().enumerate() {
        let NodeOp::Child(c) = &n.op else { continue };
        let m = format_ident!("edit_{}", n.name);
        if cx.g.hidden.contains(&m.to_string()) {
            continue;
        }
        let (gi, j) = cx.groups.of[ni];
        let (kid, handle) = (Cx::kid_field(gi), cx.handle(ni));
        let nodes = kinds::child_nodes_path(&c.ty);
        let doc = format!(
            "Edits the graph child node `{}` runs, through its typed node handles (`f` gets the child template and its handles, e.g. `|g, h| g.node(h.step())?.set_arg::<1>(7)`), then runs the edited graph in the node: one driver call for the whole child, no rebuild. The child must keep its nodes and edges. A later change of an input the child uses builds it again from the inputs, without these edits.",
            n.name
        );
        out.extend(quote! {
            #[doc = #doc]
            pub fn #m<R>(
                &mut self,
                f: impl ::core::ops::FnOnce(&mut #rt::node::ChildTemplate<'_, 'a>, &#nodes) -> #rt::error::EditResult<R>,
            ) -> #rt::error::EditResult<R> {
                let __cg_nodes = &self.__cg.inputs.#kid[#j];
                self.__cg_exec.node(#handle)?.edit(|g| f(g, __cg_nodes))
            }
        });
    }
    out
}

/// The buffers' handles, as a type the caller can name (`NameHandles`), if the graph binds
/// buffers.
pub(super) fn handles_struct(cx: &Cx<'_>) -> TokenStream {
    let abs = abs();
    let g = cx.g;
    let fields = g
        .inputs
        .iter()
        .filter(|i| i.kind.buffer().is_some_and(|b| b.stack.is_none()))
        .map(|i| {
            let (n, ty) = (&i.name, handle_ty(&i.kind, &abs));
            let doc = format!("The handle of {} `{n}`.", i.kind.noun());
            quote!(#[doc = #doc] pub #n: #ty)
        });
    let (name, vis) = (format_ident!("{}Handles", g.name), &g.vis);
    let doc = format!("The handles of the buffers bound to a [`{}Exec`], for node views' buffer setters (`exec.step()?.set_x(exec.handles().y)`).", g.name);
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name { #(#fields,)* }
    }
}

pub(super) fn methods(cx: &Cx<'_>) -> TokenStream {
    let bounds = &cx.bounds;
    let rt = rt();
    let g = cx.g;
    let exec = format_ident!("{}Exec", g.name);
    let handles = format_ident!("{}Handles", g.name);
    let inputs = input_methods(cx);
    let kernel_views = kinds::kernel_views(cx, &exec);
    let other_views = other_views(cx);
    let child_edits = child_edits(cx);
    let limits = kinds::limit_methods(cx);
    let handle_values = g
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, i)| i.kind.buffer().is_some_and(|b| b.stack.is_none()))
        .map(|(i, inp)| {
            let (n, f) = (&inp.name, cx.input_field(i));
            quote!(#n: self.__cg.inputs.#f)
        });
    let arms = (0..cx.groups.members.len()).filter_map(|gi| {
        let g = proc_macro2::Literal::usize_unsuffixed(gi);
        kinds::resend(cx, gi).map(|arm| quote!(#g => #arm))
    });
    let lens = (0..cx.groups.members.len())
        .filter(|&gi| cx.groups.repeated(g, gi))
        .map(|gi| {
            let (f, gl) = (
                Cx::group_field(gi),
                proc_macro2::Literal::usize_unsuffixed(gi),
            );
            quote!(#gl => self.__cg.nodes.#f.len())
        })
        .collect::<Vec<_>>();
    let len_fn = (!lens.is_empty()).then(|| {
        quote! {
            fn len(&self, g: usize) -> usize {
                match g { #(#lens,)* _ => 0 }
            }
        }
    });
    let users = (0..g.inputs.len()).filter_map(|i| {
        let table = users(cx, i);
        let i = proc_macro2::Literal::usize_unsuffixed(i);
        (table.to_string() != "& []").then(|| quote!(#i => #table))
    });
    quote! {
        #rt::__private::deref!(impl<'a> #exec<'a> => #rt::GraphExec<'a>, __cg_exec #bounds);

        #[doc(hidden)]
        impl<'a> #rt::__private::Resend for #exec<'a> #bounds {
            #[allow(unused_variables, unreachable_code, clippy::all)]
            #[inline]
            fn resend(&mut self, g: usize, j: usize, which: u64) -> #rt::error::EditResult {
                let (e, st) = (&mut self.__cg_exec, &mut self.__cg);
                match g { #(#arms,)* _ => ::core::unreachable!() }
            }
            fn users(input: usize) -> &'static #rt::__private::Users {
                match input { #(#users,)* _ => &[] }
            }
            #len_fn
        }

        impl<'a> #exec<'a> #bounds {
            /// The runtime executable graph, taken out (`&*exec` and `&mut *exec` lend it).
            pub fn into_inner(self) -> #rt::GraphExec<'a> { self.__cg_exec }
            /// The handles of the bound buffers, for the node views' buffer setters.
            pub fn handles(&self) -> #handles { #handles { #(#handle_values,)* } }
            #inputs
            #other_views
            #child_edits
            #limits
        }

        #kernel_views
    }
}
