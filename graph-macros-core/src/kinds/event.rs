//! Event nodes: `rec = record(ev)` and `w = wait(ev)`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::InputKind;

/// The declared event recorded or waited for.
pub(super) fn lower(cx: &mut Lower<'_>, ev: &Ident) -> Option<usize> {
    match cx.find(ev) {
        Some(i) if matches!(cx.inputs[i].kind, InputKind::Event) => {
            cx.inputs[i].used = true;
            Some(i)
        }
        _ => {
            cx.errors.at(
                ev.span(),
                format!("no event named `{ev}` is declared; declare it with `event {ev};`"),
            );
            None
        }
    }
}

pub(super) fn handle_ty(record: bool) -> TokenStream {
    let rt = rt();
    if record {
        quote!(#rt::node::EventRecordNode)
    } else {
        quote!(#rt::node::EventWaitNode)
    }
}

/// What an event group's node function returns: the event.
pub(super) fn node_ret() -> TokenStream {
    let rt = rt();
    quote!(&'a #rt::cudarc::driver::CudaEvent)
}

/// Per event node of group `gi`: its event.
pub(super) fn node_arms(cx: &Cx<'_>, gi: usize) -> Vec<TokenStream> {
    cx.groups.members[gi]
        .iter()
        .map(|&ni| match &cx.g.nodes[ni].op {
            crate::model::NodeOp::Record(e) | crate::model::NodeOp::Wait(e) => {
                let f = cx.input_field(*e);
                quote!(__cg_s.#f)
            }
            _ => unreachable!("a group holds nodes of one kind"),
        })
        .collect()
}
