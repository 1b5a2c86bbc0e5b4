//! The bounds the types the user wrote must meet (params `Copy`, buffer elements `DeviceRepr`,
//! kernel scalars `KernelArg`, memset elements `MemsetValue`), as the one `where` clause every
//! generated `impl` carries.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;

use crate::gen::rt;
use crate::model::{Graph, InputKind, ParamTy};

/// The bounds the types the user wrote must meet, as one `where` clause that every generated
/// `impl` carries: params are `Copy`, buffer elements `DeviceRepr` (what the runtime can bind),
/// kernel scalars `KernelArg`, memset elements `MemsetValue`. Each type is bounded once, at its
/// first mention, with every token of the bound at that type's span: a type that misses a
/// bound gives one error there (the compiler reports the same unmet bound of several `impl`s
/// once), and the bodies under the clause report nothing more.
pub(super) fn of(g: &Graph) -> TokenStream {
    let rt = rt();
    let mut seen: Vec<(String, &'static str)> = Vec::new();
    let mut preds: Vec<TokenStream> = Vec::new();
    let mut bound_at =
        |ty: &syn::Type, span: proc_macro2::Span, what: &'static str, b: TokenStream| {
            let key = (ty.to_token_stream().to_string(), what);
            if seen.contains(&key) || known_to_meet(ty, what) {
                return;
            }
            seen.push(key);
            preds.push(respan(quote!(#ty: #b), span));
        };
    let mut bound = |ty: &syn::Type, what, b| bound_at(ty, ty.span(), what, b);
    let device = quote!(#rt::cudarc::driver::DeviceRepr + ::core::marker::Send + ::core::marker::Sync + 'static);
    for i in &g.inputs {
        match &i.kind {
            InputKind::Param(t) => bound(t, "copy", quote!(::core::marker::Copy)),
            InputKind::Buffer(b) => bound(&b.elem, "device", device.clone()),
            _ => {}
        }
    }
    for k in &g.kernels {
        for (_, t) in &k.params {
            match t {
                ParamTy::Scalar(t) => bound(t, "arg", quote!(#rt::kernel::KernelArg)),
                ParamTy::Slice { elem, .. } => bound(elem, "device", device.clone()),
            }
        }
    }
    // At the memset's value: the node is what needs the bound.
    for n in &g.nodes {
        if let crate::model::NodeOp::Memset(m) = &n.op {
            let elem = &g.buffer(m.dst).elem;
            bound_at(
                elem,
                m.value.expr.span(),
                "memset",
                quote!(#rt::node::MemsetValue),
            );
        }
    }
    if preds.is_empty() {
        TokenStream::new()
    } else {
        quote!(where #(#preds,)*)
    }
}

/// Whether a primitive type meets bound `what` (so the clause can leave it out).
fn known_to_meet(ty: &syn::Type, what: &str) -> bool {
    const FILLABLE: &[&str] = &[
        "u8", "i8", "u16", "i16", "u32", "i32", "f32", "u64", "i64", "f64",
    ];
    if crate::lower::is_void(ty) {
        return true;
    }
    match crate::lower::primitive(ty) {
        None => false,
        Some(p) if what == "memset" => FILLABLE.contains(&p.as_str()),
        Some(_) => true,
    }
}

/// `tokens`, every one of them (inside groups too) at `span`.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                inner.set_span(span);
                proc_macro2::TokenTree::Group(inner)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
