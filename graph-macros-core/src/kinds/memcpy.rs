//! Memcpy nodes: `back = memcpy(out, total)` (destination, source).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::Ident;

use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::{Graph, Memcpy, Uses};

/// A writable destination and a source, device or host, of the same element type.
pub(super) fn lower(cx: &mut Lower<'_>, dst: Ident, src: Ident, uses: &mut Uses) -> Option<Memcpy> {
    let d = cx.buffer(&dst, true, true, "memcpy");
    let s = cx.buffer(&src, false, true, "memcpy");
    let (d, s) = (d?, s?);
    let elem = |i: usize| {
        &cx.inputs[i]
            .kind
            .buffer()
            .expect("checked by `buffer`")
            .elem
    };
    if elem(d) != elem(s) {
        let (de, se) = (elem(d).to_token_stream(), elem(s).to_token_stream());
        cx.errors.at(
            src.span(),
            format!(
                "memcpy copies `{se}` elements from `{src}` into `{dst}`, which holds `{de}`; both buffers must hold the same element type"
            ),
        );
        return None;
    }
    uses.reads.insert(s);
    uses.writes.insert(d);
    Some(Memcpy { dst: d, src: s })
}

pub(super) fn handle_ty(g: &Graph, m: &Memcpy) -> TokenStream {
    let rt = rt();
    let e = &g.buffer(m.dst).elem;
    let loc = |i: usize| {
        if g.buffer(i).host {
            quote!(#rt::memcpy::Host)
        } else {
            quote!(#rt::memcpy::Device)
        }
    };
    let (d, s) = (loc(m.dst), loc(m.src));
    quote!(#rt::node::MemcpyNode<#e, #d, #s>)
}

pub(super) fn add(cx: &Cx<'_>, m: &Memcpy, name: &str, deps: TokenStream) -> TokenStream {
    let (d, s) = (cx.input_field(m.dst), cx.input_field(m.src));
    quote!(__cg_g.add_memcpy(#name, #deps, __cg_s.#d, __cg_s.#s)?)
}

pub(super) fn refresh(
    cx: &Cx<'_>,
    m: &Memcpy,
    input: usize,
    view: &TokenStream,
) -> Vec<TokenStream> {
    let h = cx.input_field(input);
    let mut out = Vec::new();
    if m.src == input {
        out.push(quote!(#view.set_src(self.__cg.inputs.#h)?;));
    }
    if m.dst == input {
        out.push(quote!(#view.set_dst(self.__cg.inputs.#h)?;));
    }
    out
}
