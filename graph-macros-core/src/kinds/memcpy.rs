//! Memcpy nodes: `back = memcpy(out, total)` (destination, source).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::Ident;

use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::{Graph, Memcpy, NodeOp, Uses};

/// A writable destination and a source, device or host, of the same element type.
pub(super) fn lower(cx: &mut Lower<'_>, dst: Ident, src: Ident, uses: &mut Uses) -> Option<Memcpy> {
    let d = cx.memcpy_end(&dst, true);
    let s = cx.memcpy_end(&src, false);
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

/// Where each end of `m` lives: `(dst, src)` as `Host` or `Device`.
fn ends(g: &Graph, m: &Memcpy) -> (TokenStream, TokenStream) {
    let rt = rt();
    let loc = |i: usize| {
        if g.buffer(i).host {
            quote!(#rt::memcpy::Host)
        } else {
            quote!(#rt::memcpy::Device)
        }
    };
    (loc(m.dst), loc(m.src))
}

pub(super) fn handle_ty(g: &Graph, m: &Memcpy) -> TokenStream {
    let rt = rt();
    let e = &g.buffer(m.dst).elem;
    let (d, s) = ends(g, m);
    quote!(#rt::node::MemcpyNode<#e, #d, #s>)
}

pub(super) fn view_ty(g: &Graph, m: &Memcpy) -> TokenStream {
    let rt = rt();
    let e = &g.buffer(m.dst).elem;
    let (d, s) = ends(g, m);
    quote!(#rt::node::MemcpyMut<'_, 'a, #e, #d, #s, #rt::node::OnExec>)
}

/// What a memcpy group's node function returns: the destination handle (writable) and the
/// source handle (read-only), each of the device or the host.
pub(super) fn node_ret(cx: &Cx<'_>, m: &Memcpy) -> TokenStream {
    let rt = rt();
    let e = &cx.g.buffer(m.dst).elem;
    let (db, sb) = (cx.g.buffer(m.dst), cx.g.buffer(m.src));
    let d = match (db.host, db.peer) {
        (true, _) => quote!(#rt::buffer::HostBufMut<#e>),
        (false, true) => quote!(#rt::buffer::PeerBufMut<#e>),
        (false, false) => quote!(#rt::buffer::BufMut<#e>),
    };
    let s = match (sb.host, sb.peer) {
        (true, _) => quote!(#rt::buffer::HostBuf<#e>),
        (false, true) => quote!(#rt::buffer::PeerBuf<#e>),
        (false, false) => quote!(#rt::buffer::Buf<#e>),
    };
    quote!((#d, #s))
}

/// Per memcpy node of group `gi`: its destination and source.
pub(super) fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    cx.groups.members[gi]
        .iter()
        .map(|&ni| {
            let NodeOp::Memcpy(m) = &cx.g.nodes[ni].op else {
                unreachable!("a group holds nodes of one kind")
            };
            let (d, s) = (cx.input_field(m.dst), cx.input_field(m.src));
            if cx.g.buffer(m.src).mutable {
                quote!((__cg_s.#d, __cg_s.#s.read()))
            } else {
                quote!((__cg_s.#d, __cg_s.#s))
            }
        })
        .collect()
}

/// A memcpy as a [`Kind`](super::Kind).
pub(super) struct Transfer<'m>(pub &'m Memcpy);

impl super::Kind for Transfer<'_> {
    fn key(&self, g: &Graph) -> String {
        let (d, s) = (g.buffer(self.0.dst), g.buffer(self.0.src));
        let e = d.elem.to_token_stream();
        format!("memcpy {e} {} {} {} {}", d.host, s.host, d.peer, s.peer)
    }
    fn handle_ty(&self, g: &Graph) -> TokenStream {
        handle_ty(g, self.0)
    }
    fn view_ty(&self, g: &Graph) -> TokenStream {
        view_ty(g, self.0)
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
        quote!(__cg_g.add_copy(#name, #deps, #made)?)
    }
    fn uses(&self, _: &Cx<'_>, _: &crate::model::Node, input: usize) -> Option<super::Use> {
        let parts = (self.0.dst == input) as u64 | ((self.0.src == input) as u64) << 1;
        (parts != 0).then_some(super::Use { cfg: false, parts })
    }
}
