//! Host nodes: `tell = host(done)` (a declared callback) or `host(|| ...)` (a closure).

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::Expr;

use crate::gen::{rt, Cx};
use crate::lower::Lower;
use crate::model::{Host, InputKind};

pub(super) fn lower(cx: &mut Lower<'_>, f: Expr) -> Option<Host> {
    if let Expr::Path(p) = &f {
        if let Some(id) = p.path.get_ident() {
            return match cx.find(id) {
                Some(i) if matches!(cx.inputs[i].kind, InputKind::Callback) => {
                    cx.inputs[i].used = true;
                    Some(Host::Callback(i))
                }
                _ => {
                    cx.errors.at(
                        id.span(),
                        format!(
                            "no callback named `{id}` is declared; declare it with `callback {id};` or write a closure `host(|| ...)`"
                        ),
                    );
                    None
                }
            };
        }
    }
    if !matches!(f, Expr::Closure(_)) {
        cx.errors.at(
            f.span(),
            "`host(...)` takes a declared callback or a closure `|| ...`",
        );
        return None;
    }
    Some(Host::Closure(f))
}

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::HostNode)
}

pub(super) fn add(cx: &Cx<'_>, h: &Host, name: &str, deps: TokenStream) -> TokenStream {
    match h {
        Host::Callback(c) => {
            let f = cx.input_field(*c);
            quote!(__cg_g.add_host(#name, #deps, __cg_s.#f)?)
        }
        Host::Closure(f) => quote!(__cg_g.add_host(#name, #deps, #f)?),
    }
}

pub(super) fn refresh(cx: &Cx<'_>, h: &Host, input: usize, view: &TokenStream) -> Vec<TokenStream> {
    match h {
        Host::Callback(c) if *c == input => {
            let f = cx.input_field(input);
            vec![quote!(#view.set_callback(self.__cg.inputs.#f)?;)]
        }
        _ => Vec::new(),
    }
}
