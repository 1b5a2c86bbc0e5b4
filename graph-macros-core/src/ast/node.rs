//! The grammar of a node's operation: a kernel launch, memset, memcpy, host callback, child
//! graph, event, captured work or collective (`name = op;`).

use proc_macro2::{TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, bracketed, parenthesized, Expr, Ident, Path, Token};

use super::{kw, Collective, CollectiveOp, Launch, NodeDecl, Op, RedOp};

impl Parse for NodeDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        if input.peek(Token![for]) {
            return Err(super::cond::for_loop(input, Some(&name)));
        }
        Ok(NodeDecl {
            concurrent: false,
            name,
            op: input.parse()?,
        })
    }
}

impl Parse for Op {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Ident) && input.peek2(Token![<]) {
            return Ok(Op::Launch(input.parse()?));
        }
        let la = input.lookahead1();
        if la.peek(kw::memset) {
            input.parse::<kw::memset>()?;
            let content;
            parenthesized!(content in input);
            let dst = content.parse()?;
            content.parse::<Token![,]>()?;
            let value = content.parse()?;
            Ok(Op::Memset { dst, value })
        } else if la.peek(kw::memcpy) {
            input.parse::<kw::memcpy>()?;
            let content;
            parenthesized!(content in input);
            let dst = content.parse()?;
            content.parse::<Token![,]>()?;
            let src = content.parse()?;
            Ok(Op::Memcpy { dst, src })
        } else if la.peek(kw::host) {
            input.parse::<kw::host>()?;
            let content;
            parenthesized!(content in input);
            Ok(Op::Host(content.parse()?))
        } else if la.peek(kw::empty) {
            input.parse::<kw::empty>()?;
            if input.peek(syn::token::Paren) {
                let content;
                parenthesized!(content in input);
                if !content.is_empty() {
                    return Err(content.error("`empty` takes no arguments"));
                }
            }
            Ok(Op::Empty)
        } else if la.peek(kw::child) {
            input.parse::<kw::child>()?;
            let content;
            parenthesized!(content in input);
            let ty = content.call(Path::parse_mod_style)?;
            let mut fields = Vec::new();
            if content.peek(syn::token::Brace) {
                let body;
                braced!(body in content);
                while !body.is_empty() {
                    let name: Ident = body.parse()?;
                    body.parse::<Token![:]>()?;
                    let value: Expr = body.parse()?;
                    fields.push((name, value));
                    if body.is_empty() {
                        break;
                    }
                    body.parse::<Token![,]>()?;
                }
            }
            Ok(Op::Child { ty, fields })
        } else if la.peek(kw::record) {
            input.parse::<kw::record>()?;
            let content;
            parenthesized!(content in input);
            Ok(Op::Record(content.parse()?))
        } else if la.peek(kw::wait) {
            input.parse::<kw::wait>()?;
            let content;
            parenthesized!(content in input);
            Ok(Op::Wait(content.parse()?))
        } else if la.peek(kw::capture) {
            input.parse::<kw::capture>()?;
            let content;
            parenthesized!(content in input);
            let work = content.parse()?;
            let (mut reads, mut writes) = (Vec::new(), Vec::new());
            while content.peek(Token![,]) {
                content.parse::<Token![,]>()?;
                if content.is_empty() {
                    break;
                }
                let list = if content.peek(kw::reads) {
                    content.parse::<kw::reads>()?;
                    &mut reads
                } else {
                    content.parse::<kw::writes>().map_err(|e| {
                        syn::Error::new(e.span(), "expected `reads: [..]` or `writes: [..]`")
                    })?;
                    &mut writes
                };
                content.parse::<Token![:]>()?;
                let names;
                bracketed!(names in content);
                list.extend(Punctuated::<Ident, Token![,]>::parse_terminated(&names)?);
            }
            if !content.is_empty() {
                return Err(content.error("expected `, reads: [..]` or `, writes: [..]`"));
            }
            Ok(Op::Capture {
                work,
                reads,
                writes,
            })
        } else if la.peek(kw::all_reduce)
            || la.peek(kw::all_gather)
            || la.peek(kw::reduce_scatter)
            || la.peek(kw::broadcast)
            || la.peek(kw::send)
            || la.peek(kw::recv)
        {
            Ok(Op::Collective(input.parse()?))
        } else if la.peek(Token![if]) || la.peek(Token![while]) || la.peek(kw::switch) {
            Ok(Op::Conditional(input.parse()?))
        } else if la.peek(kw::repeat) {
            Ok(Op::Repeat(input.parse()?))
        } else if la.peek(Token![use]) {
            Ok(Op::Use(input.parse()?))
        } else if la.peek(Ident) {
            Err(input.error(
                "expected a kernel launch `kernel<<<grid, block>>>(args)`, or one of `memset`, `memcpy`, `host`, `empty`, `child`, `record`, `wait`, `capture`, `all_reduce`, `all_gather`, `reduce_scatter`, `broadcast`, `send`, `recv`, `if`, `while`, `switch`, `repeat`, `use`",
            ))
        } else {
            Err(la.error())
        }
    }
}

impl Parse for Collective {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let keyword = input.cursor().ident().expect("peeked").0;
        let op = match keyword.to_string().as_str() {
            "all_reduce" => CollectiveOp::AllReduce,
            "all_gather" => CollectiveOp::AllGather,
            "reduce_scatter" => CollectiveOp::ReduceScatter,
            "broadcast" => CollectiveOp::Broadcast,
            "send" => CollectiveOp::Send,
            _ => CollectiveOp::Recv,
        };
        input.parse::<Ident>()?;
        let content;
        parenthesized!(content in input);
        let name = op.as_str();
        // `src -> dst` for the collectives, one buffer for `send` and `recv`.
        let (src, dst) = match op {
            CollectiveOp::Send => (Some(content.parse()?), None),
            CollectiveOp::Recv => (None, Some(content.parse()?)),
            _ => {
                let src = content.parse()?;
                content.parse::<Token![->]>().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        format!("expected `->`: `{name}(src -> dst, count, ..)` reads `src` and writes `dst` (the same buffer for in place)"),
                    )
                })?;
                (Some(src), Some(content.parse()?))
            }
        };
        content.parse::<Token![,]>()?;
        let count = content.parse()?;
        let (mut reduce, mut peer) = (None, None);
        match op {
            CollectiveOp::AllReduce | CollectiveOp::ReduceScatter => {
                content.parse::<Token![,]>()?;
                let id: Ident = content.parse()?;
                reduce = Some(match id.to_string().as_str() {
                    "sum" => RedOp::Sum,
                    "prod" => RedOp::Prod,
                    "max" => RedOp::Max,
                    "min" => RedOp::Min,
                    "avg" => RedOp::Avg,
                    _ => {
                        return Err(syn::Error::new(
                            id.span(),
                            format!("`{id}` is no reduction; `{name}` takes one of `sum`, `prod`, `max`, `min`, `avg`"),
                        ))
                    }
                });
            }
            CollectiveOp::Broadcast | CollectiveOp::Send | CollectiveOp::Recv => {
                content.parse::<Token![,]>()?;
                let (want, ok) = match op {
                    CollectiveOp::Broadcast => ("root", content.peek(kw::root)),
                    CollectiveOp::Send => ("to", content.peek(kw::to)),
                    _ => ("from", content.peek(kw::from)),
                };
                if !ok {
                    return Err(content.error(format!(
                        "expected `{want} = rank`: `{name}` names its {} rank",
                        if want == "root" { "root" } else { "peer" }
                    )));
                }
                content.parse::<Ident>()?;
                content.parse::<Token![=]>()?;
                peer = Some(content.parse()?);
            }
            CollectiveOp::AllGather => {}
        }
        content.parse::<Option<Token![,]>>()?;
        if !content.is_empty() {
            return Err(content.error(format!("unexpected tokens: `{name}` ends here")));
        }
        input.parse::<kw::on>().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected `on`: a collective names its communicator, `{name}(..) on comm`"),
            )
        })?;
        let comm = input.parse()?;
        Ok(Collective {
            op,
            keyword: keyword.span(),
            src,
            dst,
            count,
            reduce,
            peer,
            comm,
        })
    }
}

impl Parse for Launch {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let kernel: Ident = input.parse()?;
        input.parse::<Token![<<]>()?;
        input.parse::<Token![<]>()?;
        let dims = input.step(|cursor| {
            let mut tokens = Vec::new();
            let mut rest = *cursor;
            loop {
                if let Some((a, r1)) = rest.punct() {
                    if a.as_char() == '>' {
                        if let Some((b, r2)) = r1.punct() {
                            if let Some((c, r3)) = r2.punct() {
                                if b.as_char() == '>' && c.as_char() == '>' {
                                    return Ok((tokens, r3));
                                }
                            }
                        }
                    }
                }
                match rest.token_tree() {
                    Some((tt, next)) => {
                        tokens.push(tt);
                        rest = next;
                    }
                    None => {
                        return Err(cursor.error("expected `>>>` to close the launch dimensions"))
                    }
                }
            }
        })?;
        let parts = split_commas(dims);
        if parts.len() < 2 || parts.len() > 3 || parts.iter().any(TokenStream::is_empty) {
            return Err(syn::Error::new(
                kernel.span(),
                "launch dimensions are `<<<grid, block>>>` or `<<<grid, block, shared_mem_bytes>>>`",
            ));
        }
        let mut exprs = parts
            .into_iter()
            .map(syn::parse2::<Expr>)
            .collect::<syn::Result<Vec<_>>>()?
            .into_iter();
        let grid = exprs.next().expect("two or three parts");
        let block = exprs.next().expect("two or three parts");
        let smem = exprs.next();
        let content;
        let paren = parenthesized!(content in input);
        let args = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
        Ok(Launch {
            kernel,
            grid,
            block,
            smem,
            args: args.into_iter().collect(),
            args_span: paren.span.join(),
        })
    }
}

/// Splits tokens at top-level commas.
fn split_commas(tokens: Vec<TokenTree>) -> Vec<TokenStream> {
    let mut parts = vec![TokenStream::new()];
    for tt in tokens {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(TokenStream::new()),
            _ => parts.last_mut().expect("never empty").extend([tt]),
        }
    }
    parts
}
