//! Empty nodes: `join = empty`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::gen::rt;

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::node::EmptyNode)
}

pub(super) fn add(name: &TokenStream, deps: TokenStream) -> TokenStream {
    quote!(__cg_g.add_empty(#name, #deps)?)
}

/// An empty node as a [`Kind`](super::Kind).
pub(super) struct Empty;

impl super::Kind for Empty {
    fn key(&self, _: &crate::model::Graph) -> String {
        "empty".into()
    }
    fn handle_ty(&self, _: &crate::model::Graph) -> TokenStream {
        handle_ty()
    }
    fn view_ty(&self, _: &crate::model::Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::EmptyMut<'_, 'a, #rt::node::OnExec>)
    }
    fn add(
        &self,
        _: &crate::gen::Cx<'_>,
        _: usize,
        name: &TokenStream,
        _: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        add(name, deps)
    }
}
