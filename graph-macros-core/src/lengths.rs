//! Declared buffer lengths (`buffer x: [T; len];`): what a length may be written as (checked
//! while lowering), and the code that computes it without overflow, over the facade's `Len`,
//! and checks the bound buffers against it in `build`, in the setters of the params it uses and
//! in the buffer's rebinding setter.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit};

use crate::gen::{rt, Cx};
use crate::model::{Graph, InputKind};

/// The part of length `e` that cannot count elements, and what to write instead.
pub fn unsupported(e: &Expr) -> Option<(Span, String)> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(_) => None,
            other => Some((
                other.span(),
                "a buffer's length counts elements: write an integer expression of params and constants (`n * 4`, `1024`)".into(),
            )),
        },
        Expr::Binary(b) if !arithmetic(&b.op) => Some((
            b.op.span(),
            "a buffer's length is an integer: write it with `+ - * / % << >> & | ^` and `div_ceil`, `min`, `max`, ... (`n.div_ceil(256) * 256`)".into(),
        )),
        Expr::Binary(b) => unsupported(&b.left).or_else(|| unsupported(&b.right)),
        Expr::Paren(p) => unsupported(&p.expr),
        Expr::Group(g) => unsupported(&g.expr),
        Expr::MethodCall(m) => {
            unsupported(&m.receiver).or_else(|| m.args.iter().find_map(unsupported))
        }
        Expr::Cast(c) => unsupported(&c.expr),
        _ => None,
    }
}

/// `+ - * / % << >> & | ^`: what `Len` computes exactly.
fn arithmetic(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Add(_)
            | BinOp::Sub(_)
            | BinOp::Mul(_)
            | BinOp::Div(_)
            | BinOp::Rem(_)
            | BinOp::Shl(_)
            | BinOp::Shr(_)
            | BinOp::BitAnd(_)
            | BinOp::BitOr(_)
            | BinOp::BitXor(_)
    )
}

/// `Len`'s methods, with their argument counts.
const METHODS: &[(&str, usize)] = &[
    ("div_ceil", 1),
    ("next_multiple_of", 1),
    ("min", 1),
    ("max", 1),
    ("pow", 1),
    ("next_power_of_two", 0),
];

/// `e` computed over `Len`: every operator and known method exact (an overflow, a negative
/// value or a division by zero gives `None`), every other part (a call, a narrowing cast) as
/// written, then made a `Len`.
fn checked(e: &Expr, len: &TokenStream) -> TokenStream {
    match e {
        Expr::Paren(p) => {
            let inner = checked(&p.expr, len);
            quote!((#inner))
        }
        Expr::Group(g) => checked(&g.expr, len),
        Expr::Binary(b) if arithmetic(&b.op) => {
            let (l, r, op) = (checked(&b.left, len), checked(&b.right, len), &b.op);
            quote!((#l #op #r))
        }
        Expr::MethodCall(m)
            if METHODS
                .iter()
                .any(|(n, k)| m.method == n && m.args.len() == *k) =>
        {
            let recv = checked(&m.receiver, len);
            let args = m.args.iter().map(|a| checked(a, len));
            let method = &m.method;
            quote!(#recv.#method(#(#args),*))
        }
        // A cast to a type that holds every value of its operand changes nothing exact.
        Expr::Cast(c) if wide(&c.ty) => checked(&c.expr, len),
        // An unsuffixed literal as the widest integer: `Len::of(5_000_000_000)` would be an
        // `i32` out of range.
        Expr::Lit(l) if matches!(&l.lit, Lit::Int(i) if i.suffix().is_empty()) => {
            let Lit::Int(i) = &l.lit else { unreachable!() };
            let v = proc_macro2::Literal::u128_suffixed(i.base10_parse().unwrap_or(u128::MAX));
            quote_spanned!(e.span()=> #len::of(#v))
        }
        _ => quote_spanned!(e.span()=> #len::of(#e)),
    }
}

/// `usize`, `u64`, `u128`: casts to them lose nothing of a param's value.
fn wide(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && ["usize", "u64", "u128"].iter().any(|t| p.path.is_ident(t)))
}

/// A number type of the standard library: a param of it is shown in a length's message.
fn number(ty: &syn::Type) -> bool {
    const NUMBERS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ];
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && NUMBERS.iter().any(|t| p.path.is_ident(t)))
}

/// The buffers with a declared length: input index, and whether it is a stack.
fn declared(g: &Graph) -> impl Iterator<Item = (usize, &crate::model::Value, bool)> + '_ {
    g.inputs.iter().enumerate().filter_map(|(i, inp)| {
        let b = inp.kind.buffer()?;
        Some((i, b.len.as_ref()?, b.stack.is_some()))
    })
}

/// The params some declared length uses: their setters check the buffers.
pub(crate) fn params(g: &Graph) -> std::collections::BTreeSet<usize> {
    declared(g)
        .flat_map(|(_, v, _)| v.params.iter().copied())
        .collect()
}

/// Whether buffer `input` has a declared length (its rebinding setter checks the new buffer).
pub(crate) fn has_length(g: &Graph, input: usize) -> bool {
    matches!(g.inputs[input].kind.buffer(), Some(b) if b.len.is_some())
}

fn fits_fn(input: usize) -> syn::Ident {
    format_ident!("__cg_fits_{}", input)
}

/// The state's methods: `__cg_fits_<i>` per buffer with a length (one bound length against
/// the declared one, from the state's params), and `__cg_lengths` (every bound buffer, their
/// lengths read through `len`). Nothing for a graph without declared lengths.
pub(crate) fn methods(cx: &Cx<'_>) -> TokenStream {
    let (g, rt) = (cx.g, rt());
    let len_ty = quote!(#rt::__private::Len);
    let short = quote!(::std::boxed::Box<#rt::error::ShortBuffer>);
    let mut fits = Vec::new();
    let mut checks = Vec::new();
    for (i, v, stack) in declared(g) {
        let name = g.inputs[i].name.to_string();
        let lets = cx.bind_params([&v.params]);
        let value = checked(&v.expr, &len_ty);
        let written = v.expr.to_token_stream().to_string();
        let shown: Vec<_> = v
            .params
            .iter()
            .filter(|&&p| matches!(&g.inputs[p].kind, InputKind::Param(t) if number(t)))
            .map(|&p| &g.inputs[p].name)
            .collect();
        let fmt = shown
            .iter()
            .map(|n| format!("{n} = {{}}"))
            .collect::<Vec<_>>()
            .join(", ");
        let f = fits_fn(i);
        fits.push(quote! {
            fn #f(&self, len: usize, position: ::core::option::Option<usize>) -> ::core::result::Result<(), #short> {
                let __cg_s = self;
                #lets
                #rt::__private::fits(#name, position, len, #value, #written, || ::std::format!(#fmt, #(#shown),*))
            }
        });
        let field = cx.input_field(i);
        checks.push(if stack {
            quote! {
                for (k, h) in self.#field.iter().enumerate() {
                    self.#f(len(::core::convert::Into::into(*h))?, ::core::option::Option::Some(k))?;
                }
            }
        } else {
            quote! {
                self.#f(len(::core::convert::Into::into(self.#field))?, ::core::option::Option::None)?;
            }
        });
    }
    if fits.is_empty() {
        return TokenStream::new();
    }
    quote! {
        #(#fits)*
        /// Every bound buffer with a declared length against it (`len` reads a bound length).
        fn __cg_lengths<E: ::core::convert::From<#short> + ::core::convert::From<#rt::error::HandleError>>(
            &self,
            len: impl ::core::ops::Fn(#rt::buffer::BufferId) -> ::core::result::Result<usize, #rt::error::HandleError>,
        ) -> ::core::result::Result<(), E> {
            #(#checks)*
            ::core::result::Result::Ok(())
        }
    }
}

/// What `build` (and a child's build) does once the state holds the bound buffers: checks
/// them against their declared lengths.
pub(crate) fn build_check(g: &Graph) -> TokenStream {
    if declared(g).next().is_none() {
        return TokenStream::new();
    }
    let rt = rt();
    quote!(__cg_s.__cg_lengths::<#rt::error::BuildError>(|h| __cg_g.buffer_len(h))?;)
}

/// The setter of param `field` (input `input`), which some declared length uses: the new value
/// is kept only if every bound buffer still holds its length.
pub(crate) fn checked_setter(input: &TokenStream, field: &TokenStream) -> TokenStream {
    let rt = rt();
    quote! {
        #rt::__private::set_checked(self, #input, |e| &mut e.__cg.inputs.#field, value, |e| {
            e.__cg.inputs.__cg_lengths(|h| e.__cg_exec.buffer_len(h))
        })
    }
}

/// What buffer `input`'s rebinding setter checks first: the new buffer holds the length.
pub(crate) fn rebind_check(input: usize) -> TokenStream {
    let f = fits_fn(input);
    quote!(self.__cg.inputs.#f(buffer.len(), ::core::option::Option::None)?;)
}
