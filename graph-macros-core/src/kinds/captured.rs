//! Captured nodes: `g = capture(work, reads: [x, w], writes: [y])`: work a closure issues on a
//! stream (a cuBLAS GEMM, ...), captured when the graph is built. The buffers it declares are
//! all it can reach, and what the race check sees; its view re-captures it (`recapture`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Ident;

use crate::gen::{rt, Cx};
use crate::lower::{hint, Lower};
use crate::model::{CapturedWork, Graph, InputKind, Uses};

pub(super) fn lower(
    cx: &mut Lower<'_>,
    work: Ident,
    reads: Vec<Ident>,
    writes: Vec<Ident>,
    uses: &mut Uses,
) -> Option<CapturedWork> {
    let w = match cx.find(&work) {
        Some(i) if matches!(cx.inputs[i].kind, InputKind::Work) => i,
        Some(i) => {
            let d = cx.inputs[i].kind.describe();
            cx.errors.at(
                work.span(),
                format!("`capture` runs a work (declared `work {work};`), but `{work}` is {d}"),
            );
            return None;
        }
        None => {
            let names = cx
                .inputs
                .iter()
                .filter(|i| matches!(i.kind, InputKind::Work))
                .map(|i| i.name.to_string())
                .collect();
            let fallback = format!("; declare it with `work {work};`");
            cx.errors.at(
                work.span(),
                format!(
                    "no work named `{work}` is declared{}",
                    hint(&work.to_string(), names, &fallback)
                ),
            );
            return None;
        }
    };
    if cx.inputs[w].used {
        cx.errors.at(
            work.span(),
            format!("work `{work}` is already captured by another node; declare one `work` per captured node"),
        );
        return None;
    }
    cx.inputs[w].used = true;
    let what = format!("captured work `{work}`");
    let mut ok = true;
    let mut list = |names: Vec<Ident>, writable: bool, cx: &mut Lower<'_>, uses: &mut Uses| {
        let mut out = Vec::new();
        for id in names {
            match cx.buffer(&id, writable, false, &what) {
                Some(i) => {
                    if writable {
                        uses.writes.insert(i);
                    } else {
                        uses.reads.insert(i);
                    }
                    out.push(i);
                }
                None => ok = false,
            }
        }
        out
    };
    let reads = list(reads, false, cx, uses);
    let writes = list(writes, true, cx, uses);
    ok.then_some(CapturedWork {
        work: w,
        reads,
        writes,
    })
}

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::node::CapturedNode)
}

/// The `Work` type of work input `w`: the regions of the node that captures it.
pub(crate) fn work_ty(g: &Graph, w: usize, rt: &TokenStream) -> TokenStream {
    let node = g.nodes.iter().find_map(|n| match &n.op {
        crate::model::NodeOp::Captured(c) if c.work == w => Some(c),
        _ => None,
    });
    let (r, wr) = match node {
        Some(c) => {
            let r = c.reads.iter().map(|&i| {
                let e = &g.buffer(i).elem;
                quote!(#rt::capture::Region<#e>)
            });
            let wr = c.writes.iter().map(|&i| {
                let e = &g.buffer(i).elem;
                quote!(#rt::capture::RegionMut<#e>)
            });
            (quote!((#(#r,)*)), quote!((#(#wr,)*)))
        }
        None => (quote!(()), quote!(())),
    };
    quote!(#rt::capture::Work<'a, #r, #wr>)
}

/// Takes the work out of the state and adds the node; its closure gets the regions of the
/// declared buffers.
pub(super) fn add(
    cx: &Cx<'_>,
    c: &CapturedWork,
    name: &TokenStream,
    deps: TokenStream,
) -> TokenStream {
    let f = cx.input_field(c.work);
    let span = cx.g.inputs[c.work].name.span();
    let handles = |list: &[usize]| -> Vec<TokenStream> {
        list.iter()
            .map(|&i| {
                let field = cx.input_field(i);
                quote!(__cg_s.#field)
            })
            .collect()
    };
    let (r, w) = (handles(&c.reads), handles(&c.writes));
    let rv: Vec<Ident> = (0..r.len())
        .map(|i| quote::format_ident!("__cg_r{}", i))
        .collect();
    let wv: Vec<Ident> = (0..w.len())
        .map(|i| quote::format_ident!("__cg_w{}", i))
        .collect();
    quote_spanned! {span=> {
        let __cg_work = __cg_s.#f.take().expect("a work is captured by one node");
        #(let #rv = #r;)*
        #(let #wv = #w;)*
        __cg_g.add_work(
            #name,
            #deps,
            __cg_work,
            &[#(::core::convert::From::from(#rv)),*],
            &[#(::core::convert::From::from(#wv)),*],
            move |__cg_cx| ::core::result::Result::Ok((
                (#(__cg_cx.read(#rv)?,)*),
                (#(__cg_cx.write(#wv)?,)*),
            )),
        )?
    }}
}

/// A captured node as a [`Kind`](super::Kind): its work runs once, when `build` captures it.
pub(super) struct Work<'m>(pub &'m CapturedWork);

impl super::Kind for Work<'_> {
    fn key(&self, _: &Graph) -> String {
        "captured".into()
    }
    fn handle_ty(&self, _: &Graph) -> TokenStream {
        handle_ty()
    }
    fn view_ty(&self, _: &Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::CapturedMut<'_, 'a, #rt::node::OnExec>)
    }
    fn add(
        &self,
        cx: &Cx<'_>,
        _: usize,
        name: &TokenStream,
        _: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        add(cx, self.0, name, deps)
    }
}
