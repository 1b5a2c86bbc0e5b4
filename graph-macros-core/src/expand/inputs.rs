//! The inputs of a graph: the fields of `NameInputs` (what `build` borrows) and `NameChild`
//! (what a parent passes), the state's fields they become, and the names of the surrounding
//! scope the graph's expressions use.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::gen::{abs, callback_ty, handle_ty, rt, Cx};
use crate::kinds;
use crate::model::{Graph, Implicit, InputKind};

/// The constants and functions of the surrounding scope that the graph's expressions (launch
/// dimensions, arguments, memset values, child inputs, lengths) name, once each.
pub(super) fn outside_names(g: &Graph) -> Vec<syn::Ident> {
    let mut values: Vec<&crate::model::Value> = Vec::new();
    for n in &g.nodes {
        match &n.op {
            crate::model::NodeOp::Launch(l) => {
                values.extend(l.dims());
                values.extend(l.args.iter().filter_map(|a| match a {
                    crate::model::Arg::Value(v) => Some(v),
                    crate::model::Arg::Buffer {
                        index: Some(crate::model::StackIndex::Value(v)),
                        ..
                    } => Some(v),
                    _ => None,
                }));
            }
            crate::model::NodeOp::Repeat(r) => values.push(&r.count),
            crate::model::NodeOp::Memset(m) => values.push(&m.value),
            crate::model::NodeOp::Collective(c) => {
                values.push(&c.count);
                values.extend(&c.peer);
            }
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
            .filter_map(|i| i.kind.buffer())
            .flat_map(|b| b.temp.iter().chain(&b.len)),
    );
    values.extend(
        g.inputs
            .iter()
            .filter_map(|i| i.kind.buffer()?.stack.as_ref().map(|(v, _)| v)),
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
pub(super) struct InputParts {
    pub inputs_fields: Vec<TokenStream>,
    pub child_fields: Vec<TokenStream>,
    pub state_fields: Vec<TokenStream>,
    /// The fields of `NameChild` made from `NameInputs` (buffers bound) in `build`.
    pub from_inputs: Vec<TokenStream>,
    pub from_child: Vec<TokenStream>,
    /// Whether `NameInputs` borrows (needs `<'a>`).
    pub inputs_borrow: bool,
}

pub(super) fn input_parts(cx: &Cx<'_>) -> InputParts {
    let (rt, abs) = (rt(), abs());
    let mut p = InputParts {
        inputs_fields: Vec::new(),
        child_fields: Vec::new(),
        state_fields: Vec::new(),
        from_inputs: Vec::new(),
        from_child: Vec::new(),
        inputs_borrow: false,
    };
    for (i, inp) in cx.g.inputs.iter().enumerate() {
        let n = &inp.name;
        let f = cx.input_field(i);
        let (ty, child_ty, state_ty, bind) = match &inp.kind {
            // A temporary is no input: `build` allocates it.
            InputKind::Buffer(b) if b.temp.is_some() => {
                let h = handle_ty(&inp.kind, &rt);
                p.state_fields.push(quote!(#f: #h));
                p.from_child.push(quote!(#f: #rt::buffer::BufMut::unset()));
                continue;
            }
            // A stack: one handle per buffer.
            InputKind::Buffer(b) if b.stack.is_some() => {
                let elem = &b.elem;
                let (ty, method) = if b.mutable {
                    (
                        quote!(#abs::buffer::StackMut<'a, #elem>),
                        quote!(bind_stack_mut(inputs.#n)?),
                    )
                } else {
                    (
                        quote!(#abs::buffer::Stack<'a, #elem>),
                        quote!(bind_stack(inputs.#n)?),
                    )
                };
                p.inputs_borrow = true;
                let (ha, hr) = (handle_ty(&inp.kind, &abs), handle_ty(&inp.kind, &rt));
                (
                    ty,
                    quote!(::std::vec::Vec<#ha>),
                    quote!(::std::vec::Vec<#hr>),
                    quote!(__cg_g.#method),
                )
            }
            InputKind::Buffer(b) => {
                let elem = &b.elem;
                let (ty, method) = match (b.host, b.mutable) {
                    (false, false) if b.peer => (
                        quote!(&'a #abs::cudarc::driver::CudaSlice<#elem>),
                        quote!(bind_peer(inputs.#n)?),
                    ),
                    (false, true) if b.peer => (
                        quote!(&'a mut #abs::cudarc::driver::CudaSlice<#elem>),
                        quote!(bind_peer_mut(inputs.#n)?),
                    ),
                    (false, false) => (
                        quote!(&'a #abs::cudarc::driver::CudaSlice<#elem>),
                        quote!(bind(inputs.#n)?),
                    ),
                    (false, true) => (
                        quote!(&'a mut #abs::cudarc::driver::CudaSlice<#elem>),
                        quote!(bind_mut(inputs.#n)?),
                    ),
                    (true, false) => (quote!(&'a [#elem]), quote!(bind_host(inputs.#n))),
                    (true, true) => (quote!(&'a mut [#elem]), quote!(bind_host_mut(inputs.#n))),
                };
                p.inputs_borrow = true;
                (
                    ty,
                    handle_ty(&inp.kind, &abs),
                    handle_ty(&inp.kind, &rt),
                    quote!(__cg_g.#method),
                )
            }
            // `rank` and `world`: read from their communicator, no field of the inputs.
            InputKind::Param(ty) if inp.implicit.is_some() => {
                let (c, method) = match inp.implicit.expect("checked") {
                    Implicit::Rank(c) => (c, quote!(rank)),
                    Implicit::World(c) => (c, quote!(world)),
                };
                let comm = &cx.g.inputs[c].name;
                // There whether an expression reads it or not.
                p.state_fields.push(quote!(#[allow(dead_code)] #f: #ty));
                p.from_child.push(if cx.g.broken {
                    quote!(#f: 0)
                } else {
                    quote!(#f: #rt::comm::Communicator::#method(__cg_args.#comm))
                });
                continue;
            }
            InputKind::Param(ty) => {
                let ty = ty.to_token_stream();
                (ty.clone(), ty.clone(), ty, quote!(inputs.#n))
            }
            InputKind::Comm => {
                p.inputs_borrow = true;
                let ty = |rt: &TokenStream| {
                    if cx.g.broken {
                        quote!(&'a dyn ::core::any::Any)
                    } else {
                        quote!(&'a #rt::comm::Communicator)
                    }
                };
                (ty(&abs), ty(&abs), ty(&rt), quote!(inputs.#n))
            }
            // Taken out of the state by the node that captures it.
            InputKind::Work => {
                let (ty, inner) = (kinds::work_ty(cx.g, i, &abs), kinds::work_ty(cx.g, i, &rt));
                p.inputs_borrow = true;
                p.inputs_fields
                    .push(quote!(#[doc = "A work, for a captured node."] pub #n: #ty));
                p.child_fields
                    .push(quote!(#[doc = "A work, for a captured node."] pub #n: #ty));
                p.state_fields
                    .push(quote!(#f: ::core::option::Option<#inner>));
                p.from_inputs.push(quote!(#n: inputs.#n));
                p.from_child
                    .push(quote!(#f: ::core::option::Option::Some(__cg_args.#n)));
                continue;
            }
            InputKind::Callback | InputKind::Event => {
                let ty = |rt: &TokenStream| {
                    if matches!(inp.kind, InputKind::Callback) {
                        callback_ty()
                    } else {
                        quote!(&'a #rt::cudarc::driver::CudaEvent)
                    }
                };
                p.inputs_borrow = true;
                (ty(&abs), ty(&abs), ty(&rt), quote!(inputs.#n))
            }
        };
        let doc = format!("{} `{n}`.", inp.kind.describe());
        p.inputs_fields.push(quote!(#[doc = #doc] pub #n: #ty));
        p.child_fields.push(quote!(#[doc = #doc] pub #n: #child_ty));
        p.state_fields.push(quote!(#f: #state_ty));
        p.from_inputs.push(quote!(#n: #bind));
        p.from_child.push(quote!(#f: __cg_args.#n));
    }
    p
}
