//! Conditional nodes: `name = if c { ... } else { ... }`, `name = while c { ... }`,
//! `name = switch c { 0 => { ... } 1 => { ... } }`, on a `cond` that kernels set.
//!
//! The bodies' nodes and edges are checked like any other (in `validate`); here, the node
//! itself: its condition exists and decides no other node, and a switch's cases are numbered
//! 0, 1, 2, ... in order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::Use;
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
    let limit = match &c.limit {
        Some((max, e)) => {
            let v = lower_limit(cx, c, *max, e);
            ok &= v.is_some();
            v
        }
        None => None,
    };
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
        limit,
    })
}

/// `while c, max n`: only on a WHILE, not in a repeat block, at least 1 when a literal; an
/// expression of params and constants (a `u32`, checked where the expansion compiles).
fn lower_limit(
    cx: &mut Lower<'_>,
    c: &ast::Conditional,
    max: proc_macro2::Span,
    e: &syn::Expr,
) -> Option<crate::model::Value> {
    if c.op != CondOp::While {
        let what = match c.op {
            CondOp::Switch => "a SWITCH runs one case",
            _ => "an IF runs its body once at most",
        };
        cx.errors.range(
            max,
            syn::spanned::Spanned::span(e),
            format!("only a WHILE takes an iteration limit ({what}); remove `, max ..`"),
        );
        return None;
    }
    if let Some(it) = &cx.iter {
        cx.errors.at(
            max,
            format!(
                "a WHILE with an iteration limit cannot be in repeat block `{}` yet (its counter is one per WHILE node); put the loop outside the block, or end it with a kernel of its body",
                it.name
            ),
        );
        return None;
    }
    match crate::model::literal(e) {
        Some(n) if n < 1 => {
            cx.errors.at(
                syn::spanned::Spanned::span(e),
                "a WHILE's limit is at least 1: its first iteration runs before the limit is checked; write `max 1` or more, or leave the loop out",
            );
            return None;
        }
        Some(n) if n > u32::MAX as i128 => {
            cx.errors.at(
                syn::spanned::Spanned::span(e),
                format!("a WHILE's limit is a `u32`: at most {}", u32::MAX),
            );
            return None;
        }
        _ => {}
    }
    cx.value(
        &mut crate::model::Uses::default(),
        e.clone(),
        "a WHILE's limit",
    )
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
    /// A WHILE's limit is sent again when a param it uses changes.
    fn uses(&self, _: &Cx<'_>, _: &crate::model::Node, input: usize) -> Option<Use> {
        let limit = self.0.limit.as_ref()?;
        limit.params.contains(&input).then_some(Use::ALL)
    }
    /// Node `j` of the group: its limit, from the current params (the runtime checks it is at
    /// least 1, and leaves the limit as it was otherwise).
    fn resend(&self, cx: &Cx<'_>, gi: usize) -> Option<TokenStream> {
        let arms: Vec<TokenStream> = cx.groups.members[gi]
            .iter()
            .enumerate()
            .filter_map(|(j, &ni)| {
                let crate::model::NodeOp::Conditional(c) = &cx.g.nodes[ni].op else {
                    return None;
                };
                let limit = c.limit.as_ref()?;
                let (f, e) = (cx.limit_field(c.cond), &limit.expr);
                let lets = cx.bind_params([&limit.params]);
                let j = proc_macro2::Literal::usize_unsuffixed(j);
                Some(quote! {
                    #j => {
                        let __cg_s = &st.inputs;
                        #lets
                        // `build` checked the type where the user wrote it: one error.
                        let __cg_max: u32 = { #e } as u32;
                        match __cg_s.#f {
                            ::core::option::Option::Some(l) => e.set_while_limit(l, __cg_max),
                            ::core::option::Option::None => ::core::result::Result::Ok(()),
                        }
                    }
                })
            })
            .collect();
        (!arms.is_empty())
            .then(|| quote!(match j { #(#arms)* _ => ::core::result::Result::Ok(()) }))
    }
}

/// What `build` does last for every WHILE node with a limit: the runtime adds the counter's
/// reset before it and the counting kernel after every node of its body
/// (`Graph::limit_while`); the limit is the expression's value, a `u32`.
pub(crate) fn add_limits(cx: &Cx<'_>) -> TokenStream {
    let mut out = TokenStream::new();
    for (ni, c) in cx.limited() {
        let limit = c.limit.as_ref().expect("limited");
        let (f, q) = (cx.limit_field(c.cond), cx.cond_field(c.cond));
        let (gi, j) = cx.groups.of[ni];
        let (var, j) = (Cx::group_var(gi), proc_macro2::Literal::usize_unsuffixed(j));
        let node = quote!(&#var[#j]);
        let lets = cx.bind_params([&limit.params]);
        let e = &limit.expr;
        let max = quote_spanned!(syn::spanned::Spanned::span(e)=> let __cg_max: u32 = #e;);
        out.extend(quote! {{
            #lets
            #max
            __cg_s.#f = ::core::option::Option::Some(__cg_g.limit_while(#node, __cg_s.#q, __cg_max)?);
        }});
    }
    out
}

/// Per WHILE node with a limit, `<node>_count()`: what its last launch did.
pub(crate) fn limit_methods(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let mut out = TokenStream::new();
    for (ni, c) in cx.limited() {
        let n = &cx.g.nodes[ni].name;
        let m = format_ident!("{}_count", n);
        if cx.g.hidden.contains(&m.to_string()) {
            continue;
        }
        let f = cx.limit_field(c.cond);
        let doc = format!("What the last launch of WHILE node `{n}` did: its iterations, and whether its limit ended it. Waits for every launch first.");
        out.extend(quote! {
            #[doc = #doc]
            pub fn #m(&mut self) -> #rt::error::AccessResult<#rt::exec::LoopCount> {
                let l = self.__cg.inputs.#f.expect("a built graph has its limits");
                self.__cg_exec.while_count(l)
            }
        });
    }
    out
}
