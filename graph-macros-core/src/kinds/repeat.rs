//! Repeat blocks: `layers = repeat l in 0..n { nodes, edges, carry edges }`. The block is a
//! node of the model standing for all its iterations (like a conditional node for its bodies);
//! its body's nodes are checked once, and each becomes one handle per iteration in the
//! executable graph (`exec.attn(l)`). How `build` adds the iterations is in `expand::repeat`;
//! the checks between iterations are in `validate::repeat`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast;
use crate::lower::Lower;
use crate::model::{Repeat, Uses};

/// The loop variable hides no declared name; the count is an expression of params and
/// constants, not negative when it is a literal.
pub(super) fn lower(cx: &mut Lower<'_>, r: ast::RepeatDef) -> Option<Repeat> {
    let var = &r.var;
    let clash = cx
        .find(var)
        .map(|i| cx.inputs[i].kind.describe().to_owned())
        .or_else(|| cx.find_cond(var).map(|_| "a condition".to_owned()));
    if let Some(what) = clash {
        cx.errors.at(
            var.span(),
            format!("the loop variable `{var}` would hide {what} `{var}`; name it otherwise"),
        );
        return None;
    }
    if crate::model::literal(&r.count).is_some_and(|n| n < 0) {
        cx.errors.at(
            syn::spanned::Spanned::span(&r.count),
            "a repeat count cannot be negative",
        );
        return None;
    }
    let count = cx.value(&mut Uses::default(), r.count, "a repeat count")?;
    Some(Repeat {
        keyword: r.keyword,
        var: r.var,
        count,
        scope: 0,
        carry: Vec::new(),
        requested: Vec::new(),
        programmatic: Vec::new(),
        entries: Vec::new(),
        exits: Vec::new(),
    })
}

/// A repeat block as a [`Kind`](super::Kind): it has no node of its own in the driver graph
/// (its iterations' nodes are added by `expand::repeat`), so no handle group holds it.
pub(super) struct Block;

impl super::Kind for Block {
    fn key(&self, _: &crate::model::Graph) -> String {
        "repeat".into()
    }
    fn handle_ty(&self, _: &crate::model::Graph) -> TokenStream {
        quote!(())
    }
    fn view_ty(&self, _: &crate::model::Graph) -> TokenStream {
        quote!(())
    }
    fn add(
        &self,
        _: &crate::gen::Cx<'_>,
        _: usize,
        _: &TokenStream,
        _: TokenStream,
        _: TokenStream,
    ) -> TokenStream {
        unreachable!("a repeat block is added by `expand::repeat`")
    }
}
