//! Phase 3: code generation, a pure function of the checked model, against
//! the library's public paths (`::cuda_graph::node::...`; `::cuda_graph::__private` for what only
//! generated code uses).
//!
//! For `graph Name { ... }` it emits four types in the caller's scope: `NameInputs<'a>` (what
//! `build` borrows), `Name<'a>` (the template), `NameExec<'a>` (the executable graph with node
//! views and graph-level setters) and `NameChild` (the inputs when `Name` is a child graph).
//! Everything else lives in an anonymous `const _` block: the state both `Name` and `NameExec`
//! carry (`__CgState`: the inputs bound to the graph, by name, and the node handles, one array
//! per handle type), the methods, and the per-kernel views. Generated code carries the user's
//! spans, so rustc's type errors land on the user's tokens.
//!
//! How each node kind is added and refreshed is in `crate::kinds`; the executable graph's
//! methods are in `exec`.

mod bounds;
mod exec;
mod groups;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::gen::{callback_ty, handle_ty, rt, Cx};
use crate::kinds;
use crate::model::{Graph, InputKind, ParamTy};

/// The constants and functions of the surrounding scope that the graph's expressions (launch
/// dimensions, arguments, memset values, child inputs, lengths) name, once each.
fn outside_names(g: &Graph) -> Vec<syn::Ident> {
    let mut values: Vec<&crate::model::Value> = Vec::new();
    for n in &g.nodes {
        match &n.op {
            crate::model::NodeOp::Launch(l) => {
                values.extend(l.dims());
                values.extend(l.args.iter().filter_map(|a| match a {
                    crate::model::Arg::Value(v) => Some(v),
                    _ => None,
                }));
            }
            crate::model::NodeOp::Memset(m) => values.push(&m.value),
            crate::model::NodeOp::Child(c) => {
                values.extend(c.fields.iter().filter_map(|(_, a)| match a {
                    crate::model::ChildArg::Value(v) => Some(v),
                    _ => None,
                }))
            }
            _ => {}
        }
    }
    values.extend(
        g.inputs
            .iter()
            .filter_map(|i| i.kind.buffer()?.temp.as_ref()),
    );
    let mut out: Vec<syn::Ident> = Vec::new();
    for v in values {
        for id in crate::lower::outside_idents(v.expr.to_token_stream()) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// The fields of `NameInputs` and `NameChild`, and how `build` and `__cg_child` make the
/// `__CgInputs` value from them.
struct InputParts {
    inputs_fields: Vec<TokenStream>,
    child_fields: Vec<TokenStream>,
    state_fields: Vec<TokenStream>,
    from_inputs: Vec<TokenStream>,
    from_child: Vec<TokenStream>,
    /// Whether `NameInputs` and `NameChild` borrow (need `<'a>`).
    inputs_borrow: bool,
    child_borrows: bool,
}

fn input_parts(cx: &Cx<'_>) -> InputParts {
    let rt = rt();
    let mut p = InputParts {
        inputs_fields: Vec::new(),
        child_fields: Vec::new(),
        state_fields: Vec::new(),
        from_inputs: Vec::new(),
        from_child: Vec::new(),
        inputs_borrow: false,
        child_borrows: false,
    };
    for (i, inp) in cx.g.inputs.iter().enumerate() {
        let n = &inp.name;
        let f = cx.input_field(i);
        let (ty, child_ty, state_ty, bind) = match &inp.kind {
            // A temporary is no input: `build` allocates it.
            InputKind::Buffer(b) if b.temp.is_some() => {
                let h = handle_ty(&inp.kind);
                p.state_fields.push(quote!(#f: #h));
                p.from_inputs.push(quote!(#f: #rt::buffer::BufMut::unset()));
                p.from_child.push(quote!(#f: #rt::buffer::BufMut::unset()));
                continue;
            }
            InputKind::Buffer(b) => {
                let elem = &b.elem;
                let (ty, method) = match (b.host, b.mutable) {
                    (false, false) => (
                        quote!(&'a #rt::cudarc::driver::CudaSlice<#elem>),
                        quote!(bind(inputs.#n)?),
                    ),
                    (false, true) => (
                        quote!(&'a mut #rt::cudarc::driver::CudaSlice<#elem>),
                        quote!(bind_mut(inputs.#n)?),
                    ),
                    (true, false) => (quote!(&'a [#elem]), quote!(bind_host(inputs.#n))),
                    (true, true) => (quote!(&'a mut [#elem]), quote!(bind_host_mut(inputs.#n))),
                };
                p.inputs_borrow = true;
                let h = handle_ty(&inp.kind);
                (ty, h.clone(), h, quote!(__cg_g.#method))
            }
            InputKind::Param(ty) => {
                let ty = ty.to_token_stream();
                (ty.clone(), ty.clone(), ty, quote!(inputs.#n))
            }
            // Taken out of the state by the node that captures it.
            InputKind::Work => {
                let ty = kinds::work_ty(cx.g, i);
                p.inputs_borrow = true;
                p.child_borrows = true;
                p.inputs_fields
                    .push(quote!(#[doc = "A work, for a captured node."] pub #n: #ty));
                p.child_fields
                    .push(quote!(#[doc = "A work, for a captured node."] pub #n: #ty));
                p.state_fields.push(quote!(#f: ::core::option::Option<#ty>));
                p.from_inputs
                    .push(quote!(#f: ::core::option::Option::Some(inputs.#n)));
                p.from_child
                    .push(quote!(#f: ::core::option::Option::Some(__cg_args.#n)));
                continue;
            }
            InputKind::Callback | InputKind::Event => {
                let ty = if matches!(inp.kind, InputKind::Callback) {
                    callback_ty()
                } else {
                    quote!(&'a #rt::cudarc::driver::CudaEvent)
                };
                p.inputs_borrow = true;
                p.child_borrows = true;
                (ty.clone(), ty.clone(), ty, quote!(inputs.#n))
            }
        };
        let doc = format!("{} `{n}`.", inp.kind.describe());
        p.inputs_fields.push(quote!(#[doc = #doc] pub #n: #ty));
        p.child_fields.push(quote!(#[doc = #doc] pub #n: #child_ty));
        p.state_fields.push(quote!(#f: #state_ty));
        p.from_inputs.push(quote!(#f: #bind));
        p.from_child.push(quote!(#f: __cg_args.#n));
    }
    p
}

/// What a graph whose kernels all come from one CUDA file gets: `SOURCE` and
/// `build_from_source`.
fn source_items(g: &Graph, inputs_name: &syn::Ident, inputs_lt: &TokenStream) -> TokenStream {
    let rt = rt();
    let paths: Vec<String> = g
        .sources
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut out = TokenStream::new();
    let one_file = g.sources.len() == 1 && g.kernels.iter().all(|k| k.source == Some(0));
    if one_file {
        let path = &paths[0];
        out.extend(quote! {
            /// The CUDA source the kernels are declared in, read at compile time.
            pub const SOURCE: &'static str = ::core::include_str!(#path);

            /// Builds the template from [`Self::SOURCE`], compiled with NVRTC for `ctx`'s
            /// device on first use and kept for the process's life (one module per context).
            pub fn build_from_source(
                ctx: &::std::sync::Arc<#rt::cudarc::driver::CudaContext>,
                inputs: #inputs_name #inputs_lt,
            ) -> #rt::Result<Self> {
                let module = #rt::compile_cached(ctx, Self::SOURCE)?;
                Self::build(&module, inputs)
            }
        });
    }
    out
}

/// The kernels' CUDA C prototypes, from their Rust declarations.
fn prototypes(g: &Graph) -> String {
    let mut out = String::new();
    for k in &g.kernels {
        let params: Vec<String> = k
            .params
            .iter()
            .map(|(n, t)| {
                let c = |ty: &syn::Type| {
                    let text = ty.to_token_stream().to_string();
                    // A type with no C spelling known (a struct): its Rust name.
                    crate::csrc::c_of(&text).map_or(text.clone(), str::to_owned)
                };
                match t {
                    ParamTy::Scalar(ty) => format!("{} {n}", c(ty)),
                    ParamTy::Slice {
                        mutable: false,
                        elem,
                        ..
                    } => format!("const {}* {n}", c(elem)),
                    ParamTy::Slice {
                        mutable: true,
                        elem,
                        ..
                    } => format!("{}* {n}", c(elem)),
                }
            })
            .collect();
        out.push_str(&format!(
            "extern \"C\" __global__ void {}({});\n",
            k.name,
            params.join(", ")
        ));
    }
    out
}

/// The body of `__cg_populate`: loads the kernels, then adds every node in dependency order.
fn populate(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let mut kernels = TokenStream::new();
    for (ki, k) in g.kernels.iter().enumerate().filter(|(_, k)| k.used) {
        let var = format_ident!("__cg_k{}", ki);
        let name = k.name.to_string();
        kernels.extend(quote!(let #var = __cg_module.function(#name)?;));
    }
    let mut pos = vec![0u32; g.nodes.len()];
    for (p, &ni) in g.order.iter().enumerate() {
        pos[ni] = p as u32;
    }
    // Where each condition handle is made: before the first node that needs it (a kernel that
    // sets it, or its conditional node), in the scope of its conditional node.
    let mut create_at: Vec<Vec<usize>> = vec![Vec::new(); g.nodes.len()];
    // (A condition whose conditional node was left out, for an error, is never made.)
    for (c, cond) in g
        .conds
        .iter()
        .enumerate()
        .filter(|(_, c)| c.conditional.is_some())
    {
        let first = cond
            .setters
            .iter()
            .chain(&cond.conditional)
            .min_by_key(|&&ni| pos[ni]);
        if let Some(&ni) = first {
            create_at[ni].push(c);
        }
    }
    let mut adds = TokenStream::new();
    let mut scope = 0u32;
    let mut k = 0;
    while k < g.order.len() {
        let ni = g.order[k];
        let (gi, _) = cx.groups.of[ni];
        for &c in &create_at[ni] {
            let cond = &g.conds[c];
            let home = g.topo.scope(cond.conditional.expect("checked") as u32);
            let (q, at) = (cx.cond_field(c), Cx::scope_expr(home));
            let default = match &cond.default {
                Some(e) => quote_spanned!(e.span()=> { let __cg_v: u32 = #e; __cg_v }),
                None => quote!(0u32),
            };
            if home != scope {
                adds.extend(quote!(__cg_g.enter_scope(#at);));
                scope = home;
            }
            adds.extend(quote!(__cg_s.#q = __cg_g.add_condition(#default)?;));
        }
        let here = g.nodes[ni].scope;
        if here != scope {
            let at = Cx::scope_expr(here);
            adds.extend(quote!(__cg_g.enter_scope(#at);));
            scope = here;
        }
        if matches!(g.nodes[ni].op, crate::model::NodeOp::Launch(_)) {
            let run: Vec<usize> = std::iter::once(ni)
                .chain(g.order[k + 1..].iter().copied().take_while(|&m| {
                    cx.groups.of[m].0 == gi && g.nodes[m].scope == here && create_at[m].is_empty()
                }))
                .collect();
            k += run.len();
            adds.extend(kinds::add_run(cx, gi, &run, &pos));
            continue;
        }
        k += 1;
        let deps = g.preds[ni].iter().map(|&a| {
            let (ga, ja) = cx.groups.of[a];
            let var = Cx::group_var(ga);
            let ja = proc_macro2::Literal::usize_unsuffixed(ja);
            quote!(&#var[#ja] as &dyn #rt::node::Dep)
        });
        let add = kinds::add(cx, ni, quote!(&[#(#deps),*]));
        let var = Cx::group_var(gi);
        adds.extend(quote!({
            let __cg_n = #add;
            #var.push(__cg_n);
        }));
    }
    if scope != 0 {
        adds.extend(quote!(__cg_g.enter_scope(0u32);));
    }
    let scopes = (1..=g.topo.body_count() as u32).map(|s| {
        let v = Cx::scope_expr(s);
        quote!(let mut #v: u32 = 0;)
    });
    let vecs = cx
        .groups
        .tys
        .iter()
        .zip(&cx.groups.len)
        .enumerate()
        .map(|(gi, (t, n))| {
            let var = Cx::group_var(gi);
            quote!(let mut #var: ::std::vec::Vec<#t> = ::std::vec::Vec::with_capacity(#n);)
        });
    let fields = (0..cx.groups.tys.len()).map(|gi| {
        let (f, var) = (Cx::group_field(gi), Cx::group_var(gi));
        quote! {
            #f: match ::core::convert::TryFrom::try_from(#var.into_boxed_slice()) {
                ::core::result::Result::Ok(a) => a,
                ::core::result::Result::Err(_) => ::core::unreachable!("every node of the group was added"),
            }
        }
    });
    let (nodes, edges) = (g.nodes.len(), g.topo.edges().len());
    let launches = g
        .nodes
        .iter()
        .filter(|n| matches!(n.op, crate::model::NodeOp::Launch(_)))
        .count();
    let concurrent = g
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.concurrent)
        .map(|(ni, _)| {
            let (gi, j) = cx.groups.of[ni];
            let var = Cx::group_var(gi);
            let j = proc_macro2::Literal::usize_unsuffixed(j);
            quote!(__cg_g.keep_concurrent(&#var[#j])?;)
        });
    quote! {
        #kernels
        #(#scopes)*
        __cg_g.reserve(#nodes, #launches, #edges);
        #(#vecs)*
        #adds
        #(#concurrent)*
        ::core::result::Result::Ok(__CgNodes { #(#fields,)* })
    }
}

/// Everything `cuda_graph!` emits for one checked graph.
pub fn graph(g: &Graph) -> TokenStream {
    let rt = rt();
    let cx = Cx {
        g,
        groups: groups::of(g),
        bounds: bounds::of(g),
    };
    let bounds = &cx.bounds;
    let outside = outside_names(g);
    let name = &g.name;
    let (vis, attrs) = (&g.vis, &g.attrs);
    let inputs_name = format_ident!("{}Inputs", name);
    let exec_name = format_ident!("{}Exec", name);
    let child_name = format_ident!("{}Child", name);
    let dot = g.topo.to_dot(&name.to_string());
    let name_str = name.to_string();
    let p = input_parts(&cx);
    let cond_fields: Vec<_> = (0..g.conds.len()).map(|c| cx.cond_field(c)).collect();
    let nodes_name = format_ident!("{}Nodes", name);
    let nodes_doc = format!("The node handles of a [`{name}`] graph built as a child of another (`child({name} {{ ... }})`): one accessor per node, for the parent's `edit_<node>`.");
    // Per child node: the handles of the graph it runs.
    let (kid_fields, kid_tys): (Vec<_>, Vec<_>) = g
        .nodes
        .iter()
        .filter_map(|n| match &n.op {
            crate::model::NodeOp::Child(c) => {
                Some((Cx::kid_field(&n.name), kinds::child_nodes_path(&c.ty)))
            }
            _ => None,
        })
        .unzip();
    let node_accessors = g
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| !g.hidden.contains(&format!("node:{}", n.name)))
        .map(|(ni, n)| {
            let (gi, j) = cx.groups.of[ni];
            let f = Cx::group_field(gi);
            let j = proc_macro2::Literal::usize_unsuffixed(j);
            let ty = &cx.groups.tys[gi];
            let nm = &n.name;
            let doc = format!("The handle of node `{nm}`.");
            quote! {
                #[doc = #doc]
                pub fn #nm(&self) -> #ty {
                    self.__cg.#f[#j]
                }
            }
        });
    let (inputs_fields, child_fields, state_fields) =
        (&p.inputs_fields, &p.child_fields, &p.state_fields);
    let (from_inputs, from_child) = (&p.from_inputs, &p.from_child);
    let lt = |borrows: bool| if borrows { quote!(<'a>) } else { quote!() };
    let (inputs_lt, child_lt) = (lt(p.inputs_borrow), lt(p.child_borrows));
    let group_fields = cx
        .groups
        .tys
        .iter()
        .zip(&cx.groups.len)
        .enumerate()
        .map(|(gi, (t, n))| {
            let f = Cx::group_field(gi);
            let n = proc_macro2::Literal::usize_unsuffixed(*n);
            quote!(#f: ::std::boxed::Box<[#t; #n]>)
        });
    let value_fns = (0..cx.groups.tys.len()).map(|gi| kinds::value_fns(&cx, gi));
    let populate = populate(&cx);
    let exec_methods = exec::methods(&cx);
    let inputs_doc = format!("The inputs of the [`{name}`] graph: the buffers it borrows, its params, callbacks and events.");
    let exec_doc = format!("The executable [`{name}`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).");
    let child_doc = format!("The inputs of [`{name}`] used as a child graph (`child({name} {{ ... }})`): buffer handles of the parent, constant params, callbacks and events.");
    let state = quote!(<#name<'a> as #rt::__private::Generated<'a>>::State);
    // Child graphs are built again when an input they use changes: the module is kept.
    let has_child = g
        .nodes
        .iter()
        .any(|n| matches!(n.op, crate::model::NodeOp::Child(_)));
    let (module_field, module_value) = if has_child {
        (
            quote!(module: #rt::Module,),
            quote!(module: ::core::clone::Clone::clone(__cg_module)),
        )
    } else {
        (quote!(), quote!())
    };
    let source = source_items(g, &inputs_name, &inputs_lt);
    // Each CUDA file read, read by the compiler too: editing it rebuilds the crate.
    let tracked = g.sources.iter().map(|p| {
        let p = p.to_string_lossy().into_owned();
        quote!(
            const _: &[u8] = ::core::include_bytes!(#p);
        )
    });
    let prototypes = prototypes(g);
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
    quote! {

        #[doc = #inputs_doc]
        #vis struct #inputs_name #inputs_lt {
            #(#inputs_fields,)*
        }

        #[doc = #child_doc]
        #vis struct #child_name #child_lt {
            #(#child_fields,)*
        }

        #[doc = #nodes_doc]
        #vis struct #nodes_name {
            __cg: <#name<'static> as #rt::__private::Generated<'static>>::Nodes,
        }

        #(#attrs)*
        #vis struct #name<'a> {
            __cg_graph: #rt::Graph<'a>,
            __cg: #state,
        }

        #[doc = #exec_doc]
        #vis struct #exec_name<'a> {
            __cg_exec: #rt::GraphExec<'a>,
            __cg: #state,
        }

        const _: () = {
            #(#tracked)*

            // The constants and functions of the surrounding scope that the graph's expressions
            // name count as used here, so a program that never builds the graph gets no
            // dead-code warning for them.
            #(let _ = &#outside;)*

            /// The inputs bound to the graph: params, buffer handles, callbacks, events.
            pub struct __CgInputs<'a> {
                #(#state_fields,)*
                #(#cond_fields: #rt::kernel::Cond,)*
                #(#kid_fields: ::core::option::Option<#kid_tys>,)*
                __cg_borrow: ::core::marker::PhantomData<&'a ()>,
            }

            /// The node handles, one array per handle type.
            pub struct __CgNodes {
                #(#group_fields,)*
            }

            pub struct __CgState<'a> {
                inputs: __CgInputs<'a>,
                nodes: __CgNodes,
                #module_field
            }

            impl<'a> #rt::__private::Generated<'a> for #name<'a> {
                type State = __CgState<'a>;
                type Nodes = __CgNodes;
            }

            impl #nodes_name #bounds {
                #(#node_accessors)*
            }

            impl<'a> #name<'a> #bounds {
                /// The graph as DOT text, computed at compile time from the names written here.
                pub const DOT: &'static str = #dot;

                /// The CUDA C prototypes of the kernels as declared here: a start for the `.cu`
                /// file.
                pub const PROTOTYPES: &'static str = #prototypes;

                /// The temporaries (graph-owned memory): name, element type and length, as
                /// written.
                pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] =
                    &[#(#temporaries),*];

                #source

                /// The graph as DOT text (no GPU needed).
                pub fn to_dot() -> &'static str {
                    Self::DOT
                }

                /// Builds the template: binds the inputs and adds every node, loading the
                /// kernels from `module` by name.
                pub fn build(
                    __cg_module: &#rt::Module,
                    inputs: #inputs_name #inputs_lt,
                ) -> #rt::Result<Self> {
                    let mut __cg_g = #rt::Graph::new(__cg_module.context())?.with_name(#name_str);
                    let mut __cg_s = __CgInputs {
                        #(#from_inputs,)*
                        #(#cond_fields: #rt::kernel::Cond::unset(),)*
                        #(#kid_fields: ::core::option::Option::None,)*
                        __cg_borrow: ::core::marker::PhantomData,
                    };
                    let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
                    ::core::result::Result::Ok(Self {
                        __cg_graph: __cg_g,
                        __cg: __CgState { inputs: __cg_s, nodes, #module_value },
                    })
                }

                /// Makes the executable graph.
                pub fn instantiate(self) -> ::core::result::Result<#exec_name<'a>, #rt::error::UpdateError> {
                    self.instantiate_with(#rt::exec::Instantiate::new())
                }

                /// Makes the executable graph with options.
                pub fn instantiate_with(
                    self,
                    opts: #rt::exec::Instantiate<'_>,
                ) -> ::core::result::Result<#exec_name<'a>, #rt::error::UpdateError> {
                    ::core::result::Result::Ok(#exec_name {
                        __cg_exec: self.__cg_graph.instantiate_with(opts)?,
                        __cg: self.__cg,
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
                    __cg_args: #child_name #child_lt,
                ) -> #rt::Result<(#rt::Graph<'a>, #nodes_name)> {
                    let mut __cg_g = parent.child_graph()?;
                    let mut __cg_s = __CgInputs {
                        #(#from_child,)*
                        #(#cond_fields: #rt::kernel::Cond::unset(),)*
                        #(#kid_fields: ::core::option::Option::None,)*
                        __cg_borrow: ::core::marker::PhantomData,
                    };
                    let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
                    ::core::result::Result::Ok((__cg_g, #nodes_name { __cg: nodes }))
                }

                #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
                fn __cg_populate(
                    __cg_g: &mut #rt::Graph<'a>,
                    __cg_module: &#rt::Module,
                    __cg_s: &mut __CgInputs<'a>,
                ) -> #rt::Result<__CgNodes> {
                    #populate
                }

                #(#value_fns)*
            }

            #exec_methods
        };
    }
}
