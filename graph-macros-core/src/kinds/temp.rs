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

/// Per allocation node of group `gi`: its temporary's length from the current params.
pub(super) fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    let g = cx.g;
    cx.groups.members[gi]
        .iter()
        .map(|&ni| {
            let NodeOp::MemAlloc(t) = &g.nodes[ni].op else {
                unreachable!("a group holds nodes of one kind")
            };
            let len = g.buffer(*t).temp.as_ref().expect("a temporary");
            let lets = cx.bind_params([&len.params]);
            let e = &len.expr;
            quote_spanned!(e.span()=> #lets (#e) as usize)
        })
        .collect()
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
            let (f, field, e) = (Cx::node_fn(gi), cx.input_field(*t), elem(g, *t));
            let j = proc_macro2::Literal::usize_unsuffixed(j);
            quote! {{
                let (__cg_n, __cg_t) = __cg_g.add_mem_alloc::<#e>(#name, #deps, __cg_s.#f(#j))?;
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
