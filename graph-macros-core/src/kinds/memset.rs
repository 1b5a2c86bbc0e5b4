//! Memset nodes: `clear = memset(total, 0.0)`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use crate::gen::{rt, Cx};
use crate::lower::{primitive, Lower};
use crate::model::{Graph, Memset, NodeOp, Uses};

/// The destination is a writable device buffer; the value uses params and constants only (its
/// type is checked by rustc, at the value).
pub(super) fn lower(
    cx: &mut Lower<'_>,
    dst: Ident,
    value: Expr,
    uses: &mut Uses,
) -> Option<Memset> {
    let d = cx.buffer(&dst, true, false, "memset")?;
    let elem = primitive(&cx.inputs[d].kind.buffer().expect("a buffer").elem);
    if let Some(why) = elem.and_then(|e| unequal_halves(&e, &value)) {
        cx.errors.at(value.span(), why);
        return None;
    }
    let value = cx.value(uses, value, "a memset value")?;
    uses.writes.insert(d);
    Some(Memset { dst: d, value })
}

/// Why a literal 8-byte value cannot be a memset's: the driver repeats at most 4 bytes, so
/// only values whose two halves are equal (`0.0`, `-1`) can be written (the runtime checks
/// values it only learns at run time the same way).
fn unequal_halves(elem: &str, value: &Expr) -> Option<String> {
    let (neg, lit) = match value {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => (true, &*u.expr),
        v => (false, v),
    };
    let Expr::Lit(syn::ExprLit { lit, .. }) = lit else {
        return None;
    };
    let bits: u64 = match (elem, lit) {
        ("f64", syn::Lit::Float(f)) => {
            let v: f64 = f.base10_parse().ok()?;
            (if neg { -v } else { v }).to_bits()
        }
        ("f64", syn::Lit::Int(i)) => {
            let v: f64 = i.base10_parse::<u64>().ok()? as f64;
            (if neg { -v } else { v }).to_bits()
        }
        ("i64" | "u64", syn::Lit::Int(i)) => {
            let v: u64 = i.base10_parse().ok()?;
            if neg {
                v.wrapping_neg()
            } else {
                v
            }
        }
        _ => return None,
    };
    let (lo, hi) = (bits as u32, (bits >> 32) as u32);
    (lo != hi).then(|| {
        format!(
            "a memset fills with a pattern of at most 4 bytes, and this `{elem}` value has two different 4-byte halves ({hi:#010x} and {lo:#010x}); memset only values whose halves are equal (`0.0`, `-1`, ...), or write the buffer with a kernel"
        )
    })
}

pub(super) fn handle_ty(g: &Graph, m: &Memset) -> TokenStream {
    let rt = rt();
    let e = &g.buffer(m.dst).elem;
    quote!(#rt::node::MemsetNode<#e>)
}

/// What a memset group's node function returns: the buffer and the value.
pub(super) fn node_ret(cx: &Cx<'_>, m: &Memset) -> TokenStream {
    let rt = rt();
    let e = &cx.g.buffer(m.dst).elem;
    quote!((#rt::buffer::BufMut<#e>, #e))
}

/// Per memset node of group `gi`: its buffer and its value (checked by rustc at the value:
/// the return type is the buffer's element type).
pub(super) fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    cx.groups.members[gi]
        .iter()
        .map(|&ni| {
            let NodeOp::Memset(m) = &cx.g.nodes[ni].op else {
                unreachable!("a group holds nodes of one kind")
            };
            let (d, lets, v) = (
                cx.input_field(m.dst),
                cx.bind_params([&m.value.params]),
                &m.value.expr,
            );
            let v = quote_spanned!(v.span()=> #v);
            quote!(#lets (__cg_s.#d, #v))
        })
        .collect()
}

/// A memset as a [`Kind`](super::Kind).
pub(super) struct Fill<'m>(pub &'m Memset);

impl super::Kind for Fill<'_> {
    fn key(&self, g: &Graph) -> String {
        let e = &g.buffer(self.0.dst).elem;
        format!("memset {}", quote!(#e))
    }
    fn handle_ty(&self, g: &Graph) -> TokenStream {
        handle_ty(g, self.0)
    }
    fn view_ty(&self, g: &Graph) -> TokenStream {
        let (rt, e) = (rt(), &g.buffer(self.0.dst).elem);
        quote!(#rt::node::MemsetMut<'_, 'a, #e, #rt::node::OnExec>)
    }
    fn node_fn(&self, cx: &Cx<'_>, gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        Some((node_ret(cx, self.0), node_arms(cx, gi)))
    }
    fn add(
        &self,
        _: &Cx<'_>,
        _: usize,
        name: &TokenStream,
        made: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        quote!(__cg_g.add_fill(#name, #deps, #made)?)
    }
    fn uses(&self, _: &Cx<'_>, _: &crate::model::Node, input: usize) -> Option<super::Use> {
        let m = self.0;
        let parts = (m.dst == input) as u64 | ((m.value.params.contains(&input) as u64) << 1);
        (parts != 0).then_some(super::Use { cfg: false, parts })
    }
}
