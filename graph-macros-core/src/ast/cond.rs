//! The grammar of conditional nodes: `if c { ... } else { ... }`, `while c { ... }` (with an
//! iteration limit: `while c, max n { ... }`),
//! `switch c { 0 => { ... } 1 => { ... } }`.

use syn::parse::{Parse, ParseStream};
use syn::{braced, Ident, Token};

use super::{kw, BodyDef, CondOp, Conditional, RepeatDef};

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
        // `, max n`: parsed after any condition, so a limit on an IF or a SWITCH gets the
        // lowering's message, with the rest of the graph checked.
        let limit = if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            let max = input.parse::<kw::max>()?.span;
            Some((max, syn::Expr::parse_without_eager_brace(input)?))
        } else {
            None
        };
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
                limit,
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
            limit,
            bodies,
        })
    }
}

impl Parse for RepeatDef {
    /// `repeat l in 0..count { ... }`: the count is an expression of params and constants;
    /// `repeat _ in 0..count`: the body does not use the iteration's index.
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let keyword = input.parse::<kw::repeat>()?.span;
        let var: Ident = if input.peek(Token![_]) {
            Ident::new("_", input.parse::<Token![_]>()?.span)
        } else {
            input.parse()?
        };
        input.parse::<Token![in]>()?;
        let range = syn::Expr::parse_without_eager_brace(input)?;
        let syn::Expr::Range(r) = range else {
            return Err(syn::Error::new_spanned(
                range,
                "a repeat block runs over a range from 0: `repeat l in 0..n { ... }`",
            ));
        };
        if let syn::RangeLimits::Closed(dots) = r.limits {
            return Err(syn::Error::new_spanned(
                dots,
                "write the count as a half-open range, `0..n` (iterations 0 to n - 1)",
            ));
        }
        let zero = matches!(r.start.as_deref(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) if i.base10_digits() == "0");
        if !zero {
            let msg = "a repeat block counts from 0: write `0..n`, and offset with the loop variable in expressions (`l + 1`)";
            return Err(match &r.start {
                Some(s) => syn::Error::new_spanned(s, msg),
                None => syn::Error::new(keyword, msg),
            });
        }
        let Some(count) = r.end else {
            return Err(syn::Error::new(
                keyword,
                "a repeat block needs its count: `repeat l in 0..n { ... }`",
            ));
        };
        Ok(RepeatDef {
            keyword,
            var,
            count: *count,
            body: parse_body(input)?,
        })
    }
}

/// `{ items }`: a conditional body, or a repeat block's.
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

/// `for l in 0..n { ... }`, written where a node or an item goes: the graph's loop is a repeat
/// block, and the message says how to write one with what the user wrote.
pub(super) fn for_loop(input: ParseStream, named: Option<&Ident>) -> syn::Error {
    let span = input.span();
    let fork = input.fork();
    let var = fork
        .parse::<Token![for]>()
        .ok()
        .and_then(|_| {
            if fork.peek(Token![_]) {
                Some("_".to_owned())
            } else {
                fork.parse::<Ident>().ok().map(|v| v.to_string())
            }
        })
        .unwrap_or_else(|| "l".to_owned());
    let name = named.map_or_else(|| "layers".to_owned(), |n| n.to_string());
    syn::Error::new(
        span,
        format!(
            "a graph's loop is a repeat block, a node with a name: write `{name} = repeat {var} in 0..n {{ ... }}`"
        ),
    )
}
