//! Empty nodes: `join = empty`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::gen::rt;

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::node::EmptyNode)
}

pub(super) fn add(name: &str, deps: TokenStream) -> TokenStream {
    quote!(__cg_g.add_empty(#name, #deps)?)
}
