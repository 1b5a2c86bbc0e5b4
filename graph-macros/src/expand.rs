//! Phase 3: code generation against `::cuda_graph::__private` (the runtime).
//!
//! For `graph Name { ... }` it emits `NameInputs<'a>` (what `build` borrows), `Name<'a>` (the
//! template), `NameExec<'a>` (the executable graph with node views and graph-level setters) and
//! `NameChild` (the inputs when `Name` is used as a child graph). Helper types (per-node views,
//! the handle struct) live in an anonymous `const _` block, so nothing but those four names
//! reaches the caller's scope. Generated code carries the user's spans, so rustc's type errors
//! land on the user's tokens. How `build` adds the nodes is in `expand_build`, the executable
//! graph's methods in `expand_exec`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Type;

use crate::ast::ParamTy;
use crate::validate::{Graph, InputKind, NodeOp};

/// The runtime, as generated code names it.
pub(crate) fn rt() -> TokenStream {
    quote!(::cuda_graph::__private)
}

/// Positions of each input within its kind's tuple (params, buffers, callbacks, events).
pub(crate) struct Slots {
    /// `(tuple, index)`: tuple 0 params, 1 buffers, 2 callbacks, 3 events.
    pub of: Vec<(usize, usize)>,
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

pub(crate) fn index(i: usize) -> syn::Index {
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

pub(crate) fn elem_of(kind: &InputKind) -> &Type {
    match kind {
        InputKind::Buffer { elem, .. } => elem,
        _ => unreachable!("only buffers have elements"),
    }
}

fn callback_ty() -> TokenStream {
    quote!(&'a (dyn ::core::ops::Fn() + ::core::marker::Send + ::core::marker::Sync + 'a))
}

/// The tuple types of the generated state (params, buffer handles, callbacks, events), and each
/// node's handle and argument types.
pub(crate) struct Types {
    pub params: TokenStream,
    pub bufs: TokenStream,
    cbs: TokenStream,
    evs: TokenStream,
    /// Per node: its handle type.
    pub node_tys: Vec<TokenStream>,
    /// Per kernel node: its argument tuple type.
    pub args: Vec<Option<TokenStream>>,
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

pub fn expand(g: &Graph) -> TokenStream {
    let rt = rt();
    let s = slots(g);
    let t = types(g);
    let gr = crate::expand_build::groups(g, &t.node_tys);
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
    let value_fns = crate::expand_build::value_fns(g, &s, &t, &gr);
    let populate = crate::expand_build::populate(g, &s, &gr);
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
            pub fn instantiate(self) -> ::core::result::Result<#exec_name<'a>, #rt::UpdateError> {
                self.instantiate_with(#rt::Instantiate::new())
            }

            /// Makes the executable graph with options.
            pub fn instantiate_with(self, opts: #rt::Instantiate<'_>) -> ::core::result::Result<#exec_name<'a>, #rt::UpdateError> {
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
