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

/// `__cg_value_{gi}`: the value each memset node of group `gi` writes.
pub(super) fn value_fns(cx: &Cx<'_>, gi: usize) -> TokenStream {
    let g = cx.g;
    let mut arms = Vec::new();
    let mut elem = None;
    for (j, &ni) in cx.groups.members[gi].iter().enumerate() {
        let NodeOp::Memset(m) = &g.nodes[ni].op else {
            unreachable!("a group holds nodes of one kind")
        };
        let e = &g.buffer(m.dst).elem;
        elem = Some(e);
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        let lets = cx.bind_params([&m.value.params]);
        let v = &m.value.expr;
        let v = quote_spanned!(v.span()=> { let __cg_v: #e = #v; __cg_v });
        arms.push(quote!(#j => { #lets #v }));
    }
    let f = cx.value_fn(gi);
    let allow = Cx::value_fn_attrs();
    quote! {
        #allow
        fn #f(__cg_j: usize, __cg_s: &__CgInputs<'a>) -> #elem {
            match __cg_j { #(#arms,)* _ => ::core::unreachable!("no such node in this group") }
        }
    }
}

pub(super) fn add(
    cx: &Cx<'_>,
    ni: usize,
    m: &Memset,
    name: &str,
    deps: TokenStream,
) -> TokenStream {
    let (gi, j) = cx.groups.of[ni];
    let f = cx.value_fn(gi);
    let d = cx.input_field(m.dst);
    let j = proc_macro2::Literal::usize_unsuffixed(j);
    quote!(__cg_g.add_memset(#name, #deps, __cg_s.#d, Self::#f(#j, __cg_s))?)
}

pub(super) fn refresh(
    cx: &Cx<'_>,
    ni: usize,
    m: &Memset,
    input: usize,
    view: &TokenStream,
) -> Vec<TokenStream> {
    let name = &cx.g.name;
    let mut out = Vec::new();
    if m.value.params.contains(&input) {
        let f = cx.value_fn(cx.groups.of[ni].0);
        out.push(quote!(#view.set_value(#name::#f(__cg_j, &self.__cg.inputs))?;));
    }
    if m.dst == input {
        let d = cx.input_field(input);
        out.push(quote!(#view.set_dst(self.__cg.inputs.#d)?;));
    }
    out
}
