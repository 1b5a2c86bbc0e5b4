//! Phase 3: code generation, a pure function of the checked model, against the library's
//! public paths (`::cuda_graph::node::...`; `::cuda_graph::__private` for what only generated
//! code uses).
//!
//! For `graph Name { ... }` it emits, in the caller's scope, the types a user names:
//! `NameInputs<'a>` (what `build` borrows), `Name<'a>` (the template), `NameExec<'a>` (the
//! executable graph, which derefs to the runtime's `GraphExec`), `NameChild` (the inputs when
//! `Name` is a child graph), `NameNodes` (its node handles then), `NameHandles` (its bound
//! buffers' handles) and one view per kernel launched (`NameKernelView<'v, 'a>`). Everything
//! else lives in an anonymous `const _` block, which names the library `__cg`: the state both
//! `Name` and `NameExec` carry (`__CgState`: the inputs bound to the graph and the node handles,
//! one vector per handle type), one function per handle type saying what its nodes are made of
//! from the inputs, and the methods. Setters store the new input and call the library's
//! `commit` with the nodes that use it; the generated `Resend` sends one node again. Generated
//! code carries the user's spans, so rustc's type errors land on the user's tokens.
//!
//! How each node kind is added and sent again is in `crate::kinds`; `inputs` has the inputs'
//! fields, `build` the body of `build`, `exec` the executable graph's methods, `bounds` the
//! `where` clause of the user's types, `groups` the handle groups.

mod bounds;
mod build;
mod exec;
mod groups;
mod inputs;
mod repeat;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::gen::{abs, rt, Cx};
use crate::kinds;
use crate::model::{Graph, NodeOp};

/// Everything `cuda_graph!` emits for one checked graph.
pub fn graph(g: &Graph) -> TokenStream {
    let (rt, abs) = (rt(), abs());
    let cx = Cx {
        g,
        groups: groups::of(g),
        bounds: bounds::of(g),
    };
    let bounds = &cx.bounds;
    let outside = inputs::outside_names(g);
    let name = &g.name;
    let (vis, attrs) = (&g.vis, &g.attrs);
    let inputs_name = format_ident!("{}Inputs", name);
    let exec_name = format_ident!("{}Exec", name);
    let child_name = format_ident!("{}Child", name);
    let nodes_name = format_ident!("{}Nodes", name);
    let dot = g.topo.to_dot(&name.to_string());
    let name_str = name.to_string();
    let p = inputs::input_parts(&cx);
    let cond_fields: Vec<_> = (0..g.conds.len()).map(|c| cx.cond_field(c)).collect();
    let limit_fields: Vec<_> = cx.limited().map(|(_, c)| cx.limit_field(c.cond)).collect();
    let nodes_doc = format!("The node handles of a [`{name}`] graph built as a child of another (`child({name} {{ ... }})`): one accessor per node, for the parent's `edit_<node>`.");
    // Per group of child nodes: the handles of the graphs they run.
    let (kid_fields, kid_tys): (Vec<_>, Vec<_>) = (0..cx.groups.members.len())
        .filter_map(|gi| match &g.nodes[cx.groups.members[gi][0]].op {
            NodeOp::Child(c) => Some((Cx::kid_field(gi), kinds::child_nodes_path(&c.ty))),
            _ => None,
        })
        .unzip();
    let node_accessors = g
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| !g.hidden.contains(&format!("node:{}", n.name)))
        .filter(|(_, n)| !matches!(n.op, NodeOp::Repeat(_)))
        .map(|(ni, n)| {
            let (gi, j) = cx.groups.of[ni];
            let (f, j) = (
                Cx::group_field(gi),
                proc_macro2::Literal::usize_unsuffixed(j),
            );
            let ty = kinds::handle_ty(g, &n.op);
            let nm = &n.name;
            if g.block_of(ni).is_some() {
                let doc =
                    format!("The handles of node `{nm}`, one per iteration of its repeat block.");
                return quote!(#[doc = #doc] pub fn #nm(&self) -> &[#ty] { &self.__cg.#f[..] });
            }
            let doc = format!("The handle of node `{nm}`.");
            quote!(#[doc = #doc] pub fn #nm(&self) -> #ty { self.__cg.#f[#j] })
        });
    let (inputs_fields, child_fields, state_fields) =
        (&p.inputs_fields, &p.child_fields, &p.state_fields);
    let (from_inputs, from_child) = (&p.from_inputs, &p.from_child);
    let lt = |borrows: bool| if borrows { quote!(<'a>) } else { quote!() };
    // `NameChild` always takes `'a` (a parent names it with one, not knowing what it borrows).
    let (inputs_lt, child_lt) = (lt(p.inputs_borrow), quote!(<'a>));
    let group_fields = cx.groups.tys.iter().enumerate().map(|(gi, t)| {
        let f = Cx::group_field(gi);
        match cx.kernel_group(gi) {
            Some(k) => {
                let a = kinds::args_alias(g, k);
                quote!(#f: #rt::__private::Kernels<#a>)
            }
            None => quote!(#f: ::std::vec::Vec<#t>),
        }
    });
    let node_fns = (0..cx.groups.tys.len()).map(|gi| kinds::node_fn(&cx, gi));
    let populate = build::populate(&cx);
    let exec_methods = exec::methods(&cx);
    let kernel_types = kinds::kernel_types(g);
    let handles_struct = exec::handles_struct(&cx);
    let inputs_doc = format!("The inputs of the [`{name}`] graph: the buffers it borrows, its params, callbacks and events.");
    let exec_doc = format!("The executable [`{name}`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`). It derefs to the runtime's [`GraphExec`](cuda_graph::GraphExec) (`launch`, `synchronize`, `update`, ...).");
    let child_doc = format!("The inputs of [`{name}`] used as a child graph (`child({name} {{ ... }})`): buffer handles of the parent, constant params, callbacks and events.");
    let state = quote!(<#name<'a> as #abs::__private::Generated<'a>>::State);
    // Child graphs are built again when an input they use changes: the module is kept.
    let has_child = g.nodes.iter().any(|n| matches!(n.op, NodeOp::Child(_)));
    let (module_field, module_value) = if has_child {
        (
            quote!(module: #rt::Module,),
            quote!(module: ::core::clone::Clone::clone(__cg_module)),
        )
    } else {
        (quote!(), quote!())
    };
    let source = build::source_items(g, &inputs_name, &inputs_lt);
    // Each CUDA file read, read by the compiler too: editing it rebuilds the crate.
    let tracked = g
        .sources
        .iter()
        .chain(g.headers.iter().map(|(_, p)| p))
        .map(|p| {
            let p = p.to_string_lossy().into_owned();
            quote!(
                const _: &[u8] = ::core::include_bytes!(#p);
            )
        });
    // Warnings: a deprecated item used at the offending token is the way a stable proc macro
    // warns (`programmatic_edge_without_trigger: <why>`).
    let warnings = g.warnings.iter().enumerate().map(|(k, (span, msg))| {
        let item = syn::Ident::new(&format!("programmatic_edge_without_trigger_{k}"), *span);
        quote::quote_spanned!(*span=>
            #[deprecated(note = #msg)]
            #[allow(non_camel_case_types)]
            struct #item;
            let _ = #item;
        )
    });
    // Rust types standing for C structs and vector types have the C type's size.
    let sizes = g.kernels.iter().flat_map(|k| &k.sizes).map(|l| {
        let (t, n, msg) = (&l.ty, l.size, &l.msg);
        let span = syn::spanned::Spanned::span(t);
        let align = l.align.map(|a| quote!(&& ::core::mem::align_of::<#t>() == #a));
        quote::quote_spanned!(span=> const _: () = ::core::assert!(::core::mem::size_of::<#t>() == #n #align, #msg);)
    });
    let prototypes = build::prototypes(g);
    let length_methods = crate::lengths::methods(&cx);
    let length_check = crate::lengths::build_check(g);
    let temporaries = g.inputs.iter().filter_map(|i| {
        let b = i.kind.buffer()?;
        let len = b.temp.as_ref()?;
        let (n, e, l) = (
            i.name.to_string(),
            b.elem.to_token_stream().to_string(),
            len.expr.to_token_stream().to_string(),
        );
        Some(quote!((#n, #e, #l)))
    });
    let new_state = |from: &[TokenStream]| {
        quote! {
            __CgInputs {
                #(#from,)*
                #(#cond_fields: #rt::kernel::Cond::unset(),)*
                #(#limit_fields: ::core::option::Option::None,)*
                #(#kid_fields: ::std::vec::Vec::new(),)*
                __cg_borrow: ::core::marker::PhantomData,
            }
        }
    };
    let state_from_child = new_state(from_child);
    // A graph with a communicator is no child graph: its collectives could not be proved to
    // run in one order with the parent's (a known graph made a child is an error at the node).
    let comm = g
        .inputs
        .iter()
        .any(|i| matches!(i.kind, crate::model::InputKind::Comm));
    let as_child = (!comm).then(|| {
        quote! {
            /// Builds this graph as a child of `parent` (used by `child(...)` nodes).
            #[doc(hidden)]
            pub fn __cg_child(parent: &#rt::Graph<'a>, module: &#rt::Module, args: #child_name #child_lt) -> #rt::Result<(#rt::Graph<'a>, #nodes_name)> {
                let mut g = parent.child_graph()?;
                let st = Self::__cg_new(&mut g, module, args)?;
                ::core::result::Result::Ok((g, #nodes_name { __cg: st.nodes }))
            }
        }
    });
    quote! {
        #[doc = #inputs_doc]
        #vis struct #inputs_name #inputs_lt { #(#inputs_fields,)* }

        #[doc = #child_doc]
        #vis struct #child_name #child_lt {
            #(#child_fields,)*
            #[doc(hidden)]
            pub __cg_borrow: ::core::marker::PhantomData<&'a ()>,
        }

        #[doc = #nodes_doc]
        #vis struct #nodes_name { __cg: <#name<'static> as #abs::__private::Generated<'static>>::Nodes }

        #(#attrs)*
        #vis struct #name<'a> { __cg_graph: #abs::Graph<'a>, __cg: #state }

        #[doc = #exec_doc]
        #vis struct #exec_name<'a> { __cg_exec: #abs::GraphExec<'a>, __cg: #state }

        #handles_struct
        #kernel_types

        const _: () = {
            use ::cuda_graph as __cg;
            use ::cuda_graph::__private::{AddMade as _, ModuleKernels as _, SendAgain as _};
            #(#tracked)*
            #(#sizes)*
            #(#warnings)*
            // The constants and functions of the surrounding scope that the graph's expressions
            // name count as used here, so a program that never builds the graph gets no
            // dead-code warning for them.
            #(let _ = &#outside;)*

            pub struct __CgInputs<'a> {
                #(#state_fields,)*
                #(#cond_fields: #rt::kernel::Cond,)*
                #(#limit_fields: ::core::option::Option<#rt::exec::WhileLimit>,)*
                #(#kid_fields: ::std::vec::Vec<#kid_tys>,)*
                __cg_borrow: ::core::marker::PhantomData<&'a ()>,
            }
            pub struct __CgNodes { #(#group_fields,)* }
            pub struct __CgState<'a> { inputs: __CgInputs<'a>, nodes: __CgNodes, #module_field }
            #[doc(hidden)]
            impl<'a> #rt::__private::Generated<'a> for #name<'a> {
                type State = __CgState<'a>;
                type Nodes = __CgNodes;
            }

            impl #nodes_name #bounds { #(#node_accessors)* }

            impl<'a> #name<'a> #bounds {
                /// The graph as DOT text, computed at compile time.
                pub const DOT: &'static str = #dot;
                /// The kernels' CUDA C prototypes, as declared here.
                pub const PROTOTYPES: &'static str = #prototypes;
                /// The temporaries: name, element type and length, as written.
                pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] =
                    &[#(#temporaries),*];
                #source

                /// Builds the template: binds the inputs and adds every node, loading the
                /// kernels from `module` by name.
                pub fn build(module: &#rt::Module, inputs: #inputs_name #inputs_lt) -> #rt::Result<Self> {
                    // The graph is filled where `new_static` made it, through a reference, and
                    // moved once, into the value returned: a template is about a kilobyte, and
                    // every move of it is a copy (`?` on the graph made two).
                    let mut __cg_made = #rt::Graph::new_static(module.context(), #name_str);
                    let __cg_g = match &mut __cg_made {
                        ::core::result::Result::Ok(g) => g,
                        ::core::result::Result::Err(_) => {
                            return __cg_made.map(|_| ::core::unreachable!()).map_err(::core::convert::Into::into)
                        }
                    };
                    let __cg_args = #child_name { #(#from_inputs,)* __cg_borrow: ::core::marker::PhantomData };
                    let __cg = Self::__cg_new(__cg_g, module, __cg_args)?;
                    ::core::result::Result::Ok(Self { __cg_graph: __cg_made?, __cg })
                }

                /// Makes the executable graph.
                pub fn instantiate(self) -> #rt::Result<#exec_name<'a>, #rt::error::InstantiateError> {
                    self.instantiate_with(#rt::exec::Instantiate::new())
                }

                /// Makes the executable graph with options.
                pub fn instantiate_with(self, opts: #rt::exec::Instantiate<'_>) -> #rt::Result<#exec_name<'a>, #rt::error::InstantiateError> {
                    let __cg_exec = self.__cg_graph.instantiate_with(opts)?;
                    ::core::result::Result::Ok(#exec_name { __cg_exec, __cg: self.__cg })
                }

                /// The runtime template graph.
                pub fn graph(&self) -> &#rt::Graph<'a> { &self.__cg_graph }

                #as_child

                /// Adds every node to `__cg_g`, from the inputs the graph was given.
                #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
                fn __cg_new(__cg_g: &mut #rt::Graph<'a>, __cg_module: &#rt::Module, __cg_args: #child_name #child_lt) -> #rt::Result<__CgState<'a>> {
                    let mut __cg_s = #state_from_child;
                    #length_check
                    #populate
                    ::core::result::Result::Ok(__CgState { inputs: __cg_s, nodes, #module_value })
                }

            }

            #[allow(unused_variables, unreachable_patterns, clippy::all)]
            impl<'a> __CgInputs<'a> #bounds {
                #(#node_fns)*
                #length_methods
            }

            #exec_methods
        };
    }
}
