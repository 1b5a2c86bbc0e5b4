//! The grammar of blocks: `block name(l) { items }` beside the graphs, and a block placed as a
//! node, `p = use name(l = i, x = y);`.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, parenthesized, Attribute, Ident, Token, Visibility};

use super::{kw, BlockDef, Item, UseDef};

/// Whether a block declaration comes next (after its attributes and visibility).
pub(super) fn ahead(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.call(Attribute::parse_outer).is_ok()
        && fork.parse::<Visibility>().is_ok()
        && fork.peek(kw::block)
}

impl Parse for BlockDef {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // Doc comments are allowed; a block has no type of its own, so no visibility.
        for attr in input.call(Attribute::parse_outer)? {
            if !attr.path().is_ident("doc") {
                return Err(syn::Error::new_spanned(
                    attr,
                    "a block takes doc comments only; write `#[programmatic]` on the graphs or edges that place it",
                ));
            }
        }
        let vis: Visibility = input.parse()?;
        let export = match vis {
            Visibility::Inherited => false,
            Visibility::Public(_) => true,
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "a block is `block name { ... }` (this macro call only) or `pub block name { ... }` (placed by any `cuda_graph!` call that writes `use path::name;`)",
                ))
            }
        };
        input.parse::<kw::block>()?;
        let name = input.parse()?;
        let vars = if input.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            Punctuated::<Ident, Token![,]>::parse_terminated(&content)?
                .into_iter()
                .collect()
        } else {
            Vec::new()
        };
        let body;
        let brace = braced!(body in input).span.join();
        let mut items = Vec::new();
        while !body.is_empty() {
            let start = body.cursor();
            let item: Item = body.parse()?;
            let end = body.cursor();
            let mut tokens = TokenStream::new();
            let mut at = start;
            while at != end {
                let Some((tt, next)) = at.token_tree() else {
                    break;
                };
                tokens.extend([tt]);
                at = next;
            }
            items.push((item, tokens));
        }
        Ok(BlockDef {
            export,
            name,
            vars,
            items,
            brace,
        })
    }
}

impl Parse for UseDef {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.parse::<Token![use]>()?;
        let block = input.parse()?;
        let mut binds = Vec::new();
        if input.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            while !content.is_empty() {
                let name: Ident = content.parse()?;
                let to = if content.peek(Token![=]) {
                    content.parse::<Token![=]>()?;
                    content.parse()?
                } else {
                    name.clone()
                };
                binds.push((name, to));
                if !content.is_empty() {
                    content.parse::<Token![,]>()?;
                }
            }
        }
        Ok(UseDef { block, binds })
    }
}
