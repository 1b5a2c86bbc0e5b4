//! Conditional nodes: `name = if c { ... } else { ... }`, `name = while c { ... }`,
//! `name = switch c { 0 => { ... } 1 => { ... } }`, on a `cond` that kernels set.
//!
//! The bodies' nodes and edges are checked like any other (in `validate`); here, the node
//! itself: its condition exists and decides no other node, and a switch's cases are numbered
//! 0, 1, 2, ... in order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::{self, CondOp};
use crate::gen::{rt, Cx};
use crate::lower::{hint, Lower};
use crate::model::Conditional;

pub(super) fn lower(cx: &mut Lower<'_>, c: &ast::Conditional, node: usize) -> Option<Conditional> {
    let mut ok = true;
    for (i, body) in c.bodies.iter().enumerate() {
        let Some(case) = &body.case else { continue };
        if case.base10_parse::<usize>().ok() != Some(i) {
            cx.errors.at(
                case.span(),
                format!("switch cases are numbered 0, 1, 2, ... in order; this one must be `{i}`"),
            );
            ok = false;
        }
    }
    let Some(k) = cx.find_cond(&c.cond) else {
        let msg = cx
            .cond_misuse(&c.cond, "a conditional node")
            .unwrap_or_else(|| {
                let names = cx.conds.iter().map(|c| c.name.to_string()).collect();
                let fallback = format!("; declare it with `cond {} = 1;`", c.cond);
                format!(
                    "no condition named `{}` is declared{}",
                    c.cond,
                    hint(&c.cond.to_string(), names, &fallback)
                )
            });
        cx.errors.at(c.cond.span(), msg);
        return None;
    };
    if cx.conds[k].conditional.is_some() {
        cx.errors.at(
            c.cond.span(),
            format!(
                "condition `{}` already decides another conditional node; each `if`, `while` and `switch` needs a `cond` of its own",
                c.cond
            ),
        );
        return None;
    }
    if !ok {
        return None;
    }
    cx.conds[k].conditional = Some(node);
    Some(Conditional {
        op: c.op,
        keyword: c.keyword,
        cond: k,
        size: c.bodies.len() as u32,
        first: 0,
    })
}

pub(super) fn handle_ty() -> TokenStream {
    let rt = rt();
    quote!(#rt::node::CondNode)
}

/// Adds the node, and records the runtime's scope of each of its bodies in `__cg_b<scope>`.
pub(super) fn add(
    cx: &Cx<'_>,
    c: &Conditional,
    name: &TokenStream,
    deps: TokenStream,
) -> TokenStream {
    let q = cx.cond_field(c.cond);
    let bodies: Vec<_> = (0..c.size)
        .map(|i| format_ident!("__cg_b{}", c.first + i))
        .collect();
    let (b0, b1) = (&bodies[0], bodies.get(1));
    match c.op {
        CondOp::If => quote! {{
            let (__cg_n, __cg_body) = __cg_g.add_if(#name, #deps, __cg_s.#q)?;
            #b0 = __cg_body.scope();
            __cg_n
        }},
        CondOp::While => quote! {{
            let (__cg_n, __cg_body) = __cg_g.add_while(#name, #deps, __cg_s.#q)?;
            #b0 = __cg_body.scope();
            __cg_n
        }},
        CondOp::IfElse => quote! {{
            let (__cg_n, [__cg_then, __cg_else]) = __cg_g.add_if_else(#name, #deps, __cg_s.#q)?;
            #b0 = __cg_then.scope();
            #b1 = __cg_else.scope();
            __cg_n
        }},
        CondOp::Switch => {
            let size = c.size;
            let idx = 0..c.size as usize;
            quote! {{
                let (__cg_n, __cg_cases) = __cg_g.add_switch(#name, #deps, __cg_s.#q, #size)?;
                #(#bodies = __cg_cases[#idx].scope();)*
                __cg_n
            }}
        }
    }
}

/// A conditional node as a [`Kind`](super::Kind): its handle and view; what changes in it is
/// its bodies' nodes, which are nodes of their own.
pub(super) struct Branch<'m>(pub &'m Conditional);

impl super::Kind for Branch<'_> {
    fn key(&self, _: &crate::model::Graph) -> String {
        "conditional".into()
    }
    fn handle_ty(&self, _: &crate::model::Graph) -> TokenStream {
        handle_ty()
    }
    fn view_ty(&self, _: &crate::model::Graph) -> TokenStream {
        let rt = rt();
        quote!(#rt::node::CondMut<'_, 'a, #rt::node::OnExec>)
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
