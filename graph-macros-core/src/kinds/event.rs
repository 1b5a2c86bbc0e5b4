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

pub(super) fn add(
    cx: &Cx<'_>,
    e: usize,
    record: bool,
    name: &str,
    deps: TokenStream,
) -> TokenStream {
    let f = cx.input_field(e);
    if record {
        quote!(__cg_g.add_event_record(#name, #deps, __cg_s.#f)?)
    } else {
        quote!(__cg_g.add_event_wait(#name, #deps, __cg_s.#f)?)
    }
}

pub(super) fn refresh(cx: &Cx<'_>, e: usize, input: usize, view: &TokenStream) -> Vec<TokenStream> {
    if e != input {
        return Vec::new();
    }
    let f = cx.input_field(input);
    vec![quote!(#view.set_event(self.__cg.inputs.#f)?;)]
}
