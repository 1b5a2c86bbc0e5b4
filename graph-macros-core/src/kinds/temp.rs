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

/// Per allocation node of group `gi`: its temporary's length from the current params.
fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
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

/// The allocation node of temporary (input) `.0` as a [`Kind`](super::Kind): it makes the
/// temporary's memory, whose handle `build` stores in the state; its length follows params.
pub(super) struct Alloc(pub usize);

impl super::Kind for Alloc {
    fn key(&self, g: &Graph) -> String {
        let e = elem(g, self.0);
        format!("alloc {}", quote!(#e))
    }
    fn handle_ty(&self, g: &Graph) -> TokenStream {
        let (rt, e) = (rt(), elem(g, self.0));
        quote!(#rt::node::MemAllocNode<#e>)
    }
    fn view_ty(&self, g: &Graph) -> TokenStream {
        let (rt, e) = (rt(), elem(g, self.0));
        quote!(#rt::node::MemAllocMut<'_, 'a, #e, #rt::node::OnExec>)
    }
    fn node_fn(&self, cx: &Cx<'_>, gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        Some((quote!(usize), node_arms(cx, gi)))
    }
    fn add(
        &self,
        cx: &Cx<'_>,
        _: usize,
        name: &TokenStream,
        made: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        let (field, e) = (cx.input_field(self.0), elem(cx.g, self.0));
        quote! {{
            let (__cg_n, __cg_t) = __cg_g.add_mem_alloc::<#e>(#name, #deps, #made)?;
            __cg_s.#field = __cg_t;
            __cg_n
        }}
    }
    fn uses(&self, cx: &Cx<'_>, _: &crate::model::Node, input: usize) -> Option<super::Use> {
        let len = cx.g.buffer(self.0).temp.as_ref().expect("a temporary");
        len.params.contains(&input).then_some(super::Use::ALL)
    }
}

/// The free node of temporary `.0` as a [`Kind`](super::Kind).
pub(super) struct Free(pub usize);

impl super::Kind for Free {
    fn key(&self, _: &Graph) -> String {
        "free".into()
    }
    fn handle_ty(&self, _: &Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::MemFreeNode)
    }
    fn view_ty(&self, _: &Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::MemFreeMut<'_, 'a, #rt::node::OnExec>)
    }
    fn add(
        &self,
        cx: &Cx<'_>,
        _: usize,
        name: &TokenStream,
        _: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        let field = cx.input_field(self.0);
        quote!(__cg_g.add_mem_free(#name, #deps, __cg_s.#field)?)
    }
}
