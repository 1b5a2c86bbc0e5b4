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

/// An event record or wait node (of event input `input`) as a [`Kind`](super::Kind).
pub(super) struct Event {
    pub input: usize,
    pub record: bool,
}

impl super::Kind for Event {
    fn key(&self, _: &crate::model::Graph) -> String {
        if self.record { "record" } else { "wait" }.into()
    }
    fn handle_ty(&self, _: &crate::model::Graph) -> TokenStream {
        handle_ty(self.record)
    }
    fn view_ty(&self, _: &crate::model::Graph) -> TokenStream {
        let rt = rt();
        let view = if self.record {
            quote!(EventRecordMut)
        } else {
            quote!(EventWaitMut)
        };
        quote!(#rt::node::#view<'_, 'a, #rt::node::OnExec>)
    }
    fn node_fn(&self, cx: &Cx<'_>, gi: usize) -> Option<(TokenStream, Vec<TokenStream>)> {
        Some((node_ret(), node_arms(cx, gi)))
    }
    fn add(
        &self,
        _: &Cx<'_>,
        _: usize,
        name: &TokenStream,
        made: TokenStream,
        deps: TokenStream,
    ) -> TokenStream {
        if self.record {
            quote!(__cg_g.add_event_record(#name, #deps, #made)?)
        } else {
            quote!(__cg_g.add_event_wait(#name, #deps, #made)?)
        }
    }
    fn uses(&self, _: &Cx<'_>, _: &crate::model::Node, input: usize) -> Option<super::Use> {
        (self.input == input).then_some(super::Use::ALL)
    }
}
