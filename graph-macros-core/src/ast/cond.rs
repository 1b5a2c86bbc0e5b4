//! The grammar of conditional nodes: `if c { ... } else { ... }`, `while c { ... }`,
//! `switch c { 0 => { ... } 1 => { ... } }`.

use syn::parse::{Parse, ParseStream};
use syn::{braced, Ident, Token};

use super::{kw, BodyDef, CondOp, Conditional};

impl Parse for Conditional {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (op, keyword) = if input.peek(Token![if]) {
            (CondOp::If, input.parse::<Token![if]>()?.span)
        } else if input.peek(Token![while]) {
            (CondOp::While, input.parse::<Token![while]>()?.span)
        } else {
            (CondOp::Switch, input.parse::<kw::switch>()?.span)
        };
        let cond: Ident = input.parse()?;
        let mut bodies = Vec::new();
        if op == CondOp::Switch {
            let cases;
            braced!(cases in input);
            while !cases.is_empty() {
                let case: syn::LitInt = cases.parse()?;
                cases.parse::<Token![=>]>()?;
                let mut body = parse_body(&cases)?;
                body.case = Some(case);
                bodies.push(body);
                cases.parse::<Option<Token![,]>>()?;
            }
            if bodies.is_empty() {
                return Err(syn::Error::new(
                    cond.span(),
                    "a switch needs at least one case: `switch c { 0 => { ... } 1 => { ... } }`",
                ));
            }
            return Ok(Conditional {
                op,
                keyword,
                cond,
                bodies,
            });
        }
        bodies.push(parse_body(input)?);
        let op = if op == CondOp::If && input.peek(Token![else]) {
            input.parse::<Token![else]>()?;
            bodies.push(parse_body(input)?);
            CondOp::IfElse
        } else {
            op
        };
        Ok(Conditional {
            op,
            keyword,
            cond,
            bodies,
        })
    }
}

/// `{ items }`: a conditional body.
fn parse_body(input: ParseStream) -> syn::Result<BodyDef> {
    let content;
    let brace = braced!(content in input);
    let mut items = Vec::new();
    while !content.is_empty() {
        items.push(content.parse()?);
    }
    Ok(BodyDef {
        items,
        brace: brace.span.join(),
        case: None,
    })
}
