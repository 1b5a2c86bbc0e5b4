//! Collective nodes: `ar = all_reduce(part -> y, n * 4096, sum) on tp;` (and `all_gather`,
//! `reduce_scatter`, `broadcast`, `send`, `recv`): an NCCL operation on a communicator input
//! (`comm tp;`), which the runtime captures into the graph when it is built. Its source is
//! read and its destination written, so the race check sees it like any node; that every rank
//! issues the collectives of one communicator in one order is `validate::collectives`' proof.
//!
//! The count, root and peer are evaluated once, at `build`: the params they use get no setter.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Ident;

use crate::ast;
use crate::gen::{rt, Cx};
use crate::lower::{free_idents, hint, primitive, Lower};
use crate::model::{Collective, CollectiveOp, Graph, Implicit, InputKind, RedOp, Uses};

/// The element types NCCL carries (the runtime's `NcclElem`), as `primitive` names them.
const NCCL_TYPES: &[&str] = &[
    "f32", "f64", "f16", "bf16", "i8", "u8", "i32", "u32", "i64", "u64",
];

/// Checks the communicator, the buffers (a device buffer read, a writable device buffer
/// written, of one element type NCCL carries) and the expressions (a count that cannot differ
/// between ranks), and records the reads and writes for the race check.
pub(super) fn lower(cx: &mut Lower<'_>, c: ast::Collective, uses: &mut Uses) -> Option<Collective> {
    let name = c.op.as_str();
    let what = format!("`{name}`");
    let comm = find_comm(cx, &c.comm, name);
    let src = c.src.as_ref().map(|id| cx.buffer(id, false, false, &what));
    let dst = c.dst.as_ref().map(|id| cx.buffer(id, true, false, &what));
    let mut ok = comm.is_some() && !matches!(src, Some(None)) && !matches!(dst, Some(None));
    let (src, dst) = (src.flatten(), dst.flatten());
    if ok {
        ok = check_elems(cx, &c, src, dst);
    }
    let count = cx.value(uses, c.count, &format!("the count of {what}"));
    if let Some(v) = &count {
        ok &= same_on_every_rank(cx, &v.expr, &v.params, name);
    }
    let peer = match c.peer {
        Some(e) => {
            let which = if c.op == CollectiveOp::Broadcast {
                "root"
            } else {
                "peer"
            };
            let v = cx.value(uses, e, &format!("the {which} of {what}"));
            ok &= v.is_some();
            v
        }
        None => None,
    };
    if let Some(i) = src {
        uses.reads.insert(i);
    }
    if let Some(i) = dst {
        uses.writes.insert(i);
    }
    Some(Collective {
        op: c.op,
        comm: comm?,
        src,
        dst,
        count: count?,
        reduce: c.reduce,
        peer,
    })
    .filter(|_| ok)
}

/// The communicator named after `on`.
fn find_comm(cx: &mut Lower<'_>, id: &Ident, op: &str) -> Option<usize> {
    match cx.find(id) {
        Some(i) if matches!(cx.inputs[i].kind, InputKind::Comm) => {
            cx.inputs[i].used = true;
            Some(i)
        }
        Some(i) => {
            let d = cx.inputs[i].kind.describe();
            cx.errors.at(
                id.span(),
                format!("`{op}` runs on a communicator (declared `comm {id};`), but `{id}` is {d}"),
            );
            None
        }
        None => {
            let names = cx
                .inputs
                .iter()
                .filter(|i| matches!(i.kind, InputKind::Comm))
                .map(|i| i.name.to_string())
                .collect();
            let fallback = format!("; declare it with `comm {id};`");
            cx.errors.once(
                format!("no-comm:{id}"),
                id.span(),
                format!(
                    "no communicator named `{id}` is declared{}",
                    hint(&id.to_string(), names, &fallback)
                ),
            );
            None
        }
    }
}

/// The source and destination hold one element type, and NCCL carries it: an error at the
/// first buffer that holds another.
fn check_elems(
    cx: &mut Lower<'_>,
    c: &ast::Collective,
    src: Option<usize>,
    dst: Option<usize>,
) -> bool {
    let op = c.op.as_str();
    let ends = [(c.src.as_ref(), src), (c.dst.as_ref(), dst)];
    let mut seen: Option<(&Ident, String)> = None;
    for (id, i) in ends {
        let (Some(id), Some(i)) = (id, i) else {
            continue;
        };
        let elem = &cx.inputs[i].kind.buffer().expect("checked: a buffer").elem;
        let text = elem.to_token_stream().to_string();
        let carried = primitive(elem).filter(|p| NCCL_TYPES.contains(&p.as_str()));
        let Some(p) = carried else {
            cx.errors.at(
                id.span(),
                format!(
                    "`{op}` moves the elements of `{id}`, which holds `{text}`, and NCCL carries only {}; declare `{id}` with one of those",
                    NCCL_TYPES
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return false;
        };
        if let Some((first, fp)) = &seen {
            if *fp != p {
                cx.errors.at(
                    id.span(),
                    format!(
                        "`{op}` reads `{first}`, which holds `{fp}`, into `{id}`, which holds `{p}`; a collective's source and destination hold one element type"
                    ),
                );
                return false;
            }
        }
        seen = Some((id, p));
    }
    true
}

/// A count that uses `rank` differs between ranks, and NCCL waits for the same count on each:
/// an error at `rank`.
fn same_on_every_rank(
    cx: &mut Lower<'_>,
    expr: &syn::Expr,
    params: &std::collections::BTreeSet<usize>,
    op: &str,
) -> bool {
    let rank = params
        .iter()
        .find(|&&i| matches!(cx.inputs[i].implicit, Some(Implicit::Rank(_))));
    let Some(&i) = rank else { return true };
    let name = cx.inputs[i].name.to_string();
    let at = free_idents(expr.to_token_stream())
        .into_iter()
        .find(|id| *id == name)
        .map_or_else(|| expr.span(), |id| id.span());
    cx.errors.at(
        at,
        format!(
            "the count of `{op}` must be the same on every rank, or the collective hangs; `rank` makes it differ: write it with params, constants and `world`"
        ),
    );
    false
}

/// The runtime's reduction.
fn reduce_op(r: RedOp) -> TokenStream {
    let rt = rt();
    let v = match r {
        RedOp::Sum => quote!(Sum),
        RedOp::Prod => quote!(Prod),
        RedOp::Max => quote!(Max),
        RedOp::Min => quote!(Min),
        RedOp::Avg => quote!(Avg),
    };
    quote!(#rt::comm::ReduceOp::#v)
}

/// Per node of group `gi`: its count and its root or peer (0 when it has none), as `usize`,
/// from the current params.
fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    cx.groups.members[gi]
        .iter()
        .map(|&ni| {
            let crate::model::NodeOp::Collective(c) = &cx.g.nodes[ni].op else {
                unreachable!("a group holds nodes of one kind")
            };
            let lets = cx.bind_params(
                std::iter::once(&c.count.params).chain(c.peer.as_ref().map(|p| &p.params)),
            );
            let e = &c.count.expr;
            let count = quote_spanned!(e.span()=> (#e) as usize);
            let peer = match &c.peer {
                Some(p) => {
                    let e = &p.expr;
                    quote_spanned!(e.span()=> (#e) as usize)
                }
                None => quote!(0usize),
            };
            quote!(#lets (#count, #peer))
        })
        .collect()
}

/// Adds the node: the runtime captures the collective on the communicator's stream.
fn add(
    cx: &Cx<'_>,
    c: &Collective,
    name: &TokenStream,
    made: TokenStream,
    deps: TokenStream,
) -> TokenStream {
    let rt = rt();
    // A graph with errors is never built, and names nothing of the `nccl` feature.
    if cx.g.broken {
        return quote!(::core::option::Option::<#rt::node::CapturedNode>::None
            .expect("a graph with errors is never built"));
    }
    let buf = |i: Option<usize>| {
        i.map(|i| {
            let f = cx.input_field(i);
            quote!(__cg_s.#f)
        })
    };
    let (src, dst) = (buf(c.src), buf(c.dst));
    let (n, p) = (quote!(__cg_n), quote!(__cg_p));
    let made_op = match c.op {
        CollectiveOp::AllReduce => {
            let r = reduce_op(c.reduce.expect("parsed with a reduction"));
            quote!(all_reduce(#src, #dst, #n, #r))
        }
        CollectiveOp::AllGather => quote!(all_gather(#src, #dst, #n)),
        CollectiveOp::ReduceScatter => {
            let r = reduce_op(c.reduce.expect("parsed with a reduction"));
            quote!(reduce_scatter(#src, #dst, #n, #r))
        }
        CollectiveOp::Broadcast => quote!(broadcast(#src, #dst, #n, #p)),
        CollectiveOp::Send => quote!(send(#src, #n, #p)),
        CollectiveOp::Recv => quote!(recv(#dst, #n, #p)),
    };
    let comm = cx.input_field(c.comm);
    let span = cx.g.inputs[c.comm].name.span();
    quote_spanned! {span=> {
        let (#n, #p): (usize, usize) = #made;
        __cg_g.add_collective(#name, #deps, __cg_s.#comm, #rt::comm::Collective::#made_op)?
    }}
}

/// A collective node as a [`Kind`](super::Kind): a captured node, made once, at `build`.
pub(super) struct Run<'m>(pub &'m Collective);

impl super::Kind for Run<'_> {
    fn key(&self, _: &Graph) -> String {
        "collective".into()
    }
    fn handle_ty(&self, _: &Graph) -> TokenStream {
        super::captured::handle_ty()
    }
    fn view_ty(&self, _: &Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::CapturedMut<'_, 'a, #rt::node::OnExec>)
    }
    fn node_fn(&self, cx: &Cx<'_>, gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        Some((quote!((usize, usize)), node_arms(cx, gi)))
    }
    fn add(
        &self,
        cx: &Cx<'_>,
        _: usize,
        name: &TokenStream,
        made: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        add(cx, self.0, name, made, deps)
    }
    // Never sent again: the params it uses have no setter.
    fn resend(&self, _: &Cx<'_>, _: usize) -> Option<TokenStream> {
        None
    }
}
