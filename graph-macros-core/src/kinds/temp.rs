//! The allocation and free nodes of temporaries (`temp t: [T; len];`), which validation places
//! around the nodes that use each one (`validate::temps`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::gen::{rt, Cx};
use crate::model::{Graph, NodeOp};

/// The element type of temporary `t`.
fn elem(g: &Graph, t: usize) -> &syn::Type {
    &g.buffer(t).elem
}

pub(super) fn handle_ty(g: &Graph, op: &NodeOp) -> TokenStream {
    let rt = rt();
    match op {
        NodeOp::MemAlloc(t) => {
            let e = elem(g, *t);
            quote!(#rt::node::MemAllocNode<#e>)
        }
        _ => quote!(#rt::node::MemFreeNode),
    }
}

/// `__cg_len_{gi}`: the length of group `gi`'s temporaries from the current params.
pub(super) fn value_fns(cx: &Cx<'_>, gi: usize) -> TokenStream {
    let g = cx.g;
    let arms = cx.groups.members[gi].iter().enumerate().map(|(j, &ni)| {
        let NodeOp::MemAlloc(t) = &g.nodes[ni].op else {
            unreachable!("a group holds nodes of one kind")
        };
        let len = g.buffer(*t).temp.as_ref().expect("a temporary");
        let lets = cx.bind_params([&len.params]);
        let e = &len.expr;
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        quote_spanned!(e.span()=> #j => { #lets (#e) as usize })
    });
    let f = cx.value_fn(gi);
    let allow = Cx::value_fn_attrs();
    quote! {
        #allow
        fn #f(__cg_j: usize, __cg_s: &__CgInputs<'a>) -> usize {
            match __cg_j { #(#arms,)* _ => ::core::unreachable!("no such node in this group") }
        }
    }
}

/// Adds the allocation node (and stores the handle of its memory in the state), or the free.
pub(super) fn add(
    cx: &Cx<'_>,
    ni: usize,
    op: &NodeOp,
    name: &str,
    deps: TokenStream,
) -> TokenStream {
    let g = cx.g;
    match op {
        NodeOp::MemAlloc(t) => {
            let (gi, j) = cx.groups.of[ni];
            let (f, field, e) = (cx.value_fn(gi), cx.input_field(*t), elem(g, *t));
            let j = proc_macro2::Literal::usize_unsuffixed(j);
            quote! {{
                let (__cg_n, __cg_t) = __cg_g.add_mem_alloc::<#e>(#name, #deps, Self::#f(#j, __cg_s))?;
                __cg_s.#field = __cg_t;
                __cg_n
            }}
        }
        NodeOp::MemFree(t) => {
            let field = cx.input_field(*t);
            quote!(__cg_g.add_mem_free(#name, #deps, __cg_s.#field)?)
        }
        _ => unreachable!("an allocation or free node"),
    }
}

/// A param in a temporary's length may change only to a length that still fits.
pub(super) fn refresh(
    cx: &Cx<'_>,
    ni: usize,
    input: usize,
    view: &TokenStream,
) -> Vec<TokenStream> {
    let g = cx.g;
    let NodeOp::MemAlloc(t) = &g.nodes[ni].op else {
        return Vec::new();
    };
    let len = g.buffer(*t).temp.as_ref().expect("a temporary");
    if !len.params.contains(&input) {
        return Vec::new();
    }
    let (gi, _) = cx.groups.of[ni];
    let (name, f) = (&g.name, cx.value_fn(gi));
    vec![quote!(#view.ensure_fits(#name::#f(__cg_j, &self.__cg.inputs))?;)]
}
