//! The grammar of declarations: kernels (`kernel name = c::name<T, 4>(params);`, their C
//! names, template arguments and parameters) and buffers.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, parenthesized, Ident, Token, Type};

use super::{kw, BufferDecl, KernelDecl, KernelParam, ParamTy, TemplateArg};

impl Parse for KernelDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.parse::<kw::kernel>()?;
        // `kernel name`, `kernel ns::name` (the graph calls it `name`), `kernel name = c_name`,
        // `kernel name = ns::c_name`.
        let (mut namespace, name) = c_path(input, false)?;
        let c_name = if namespace.is_empty() && input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            let (ns, c) = c_path(input, true)?;
            namespace = ns;
            Some(c)
        } else {
            None
        };
        let targs = if input.peek(Token![<]) {
            let open = input.parse::<Token![<]>()?;
            let mut args = Vec::new();
            while !input.peek(Token![>]) {
                args.push(input.parse::<TemplateArg>()?);
                if !input.peek(Token![>]) {
                    input.parse::<Token![,]>()?;
                }
            }
            let close = input.parse::<Token![>]>()?;
            Some(((open.span, close.span), args))
        } else {
            None
        };
        let params = if input.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            let params = Punctuated::<KernelParam, Token![,]>::parse_terminated(&content)?;
            Some(params.into_iter().collect())
        } else {
            None
        };
        let source = if input.peek(Token![in]) {
            input.parse::<Token![in]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(KernelDecl {
            name,
            c_name,
            namespace,
            targs,
            params,
            source,
        })
    }
}

/// A C name, qualified or not (`rmsnorm`, `nn::rmsnorm`, `::nn::rmsnorm`): its namespaces and
/// its last part.
/// A namespace may be a Rust keyword (`ref`, `type`); the graph's own name for the kernel may
/// not, unless `c` (a C name after `=`, never used as a Rust name).
fn c_path(input: ParseStream, c: bool) -> syn::Result<(Vec<Ident>, Ident)> {
    use syn::ext::IdentExt;
    input.parse::<Option<Token![::]>>()?;
    let mut parts: Vec<Ident> = Vec::new();
    loop {
        let namespace = input.peek2(Token![::]);
        parts.push(if namespace || c {
            Ident::parse_any(input)?
        } else {
            input.parse()?
        });
        if !namespace {
            break;
        }
        input.parse::<Token![::]>()?;
    }
    let last = parts.pop().expect("one part at least");
    Ok((parts, last))
}

impl Parse for TemplateArg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![-]) || input.peek(syn::Lit) {
            let neg = input.parse::<Option<Token![-]>>()?;
            let lit: syn::Lit = input.parse()?;
            let text = match &lit {
                syn::Lit::Bool(b) => b.value.to_string(),
                syn::Lit::Int(i) => format!("{}{}", i.base10_digits(), c_int_suffix(i.suffix())),
                other => quote::ToTokens::to_token_stream(other).to_string(),
            };
            let sign = if neg.is_some() { "-" } else { "" };
            return Ok(TemplateArg::Value {
                text: format!("{sign}{text}"),
                span: lit.span(),
            });
        }
        Ok(TemplateArg::Type(input.parse()?))
    }
}

/// The C suffix of a Rust integer literal's suffix (`256u32` is `256u`).
fn c_int_suffix(rust: &str) -> &'static str {
    match rust {
        "u32" | "usize" | "u16" | "u8" => "u",
        "i64" | "isize" => "ll",
        "u64" => "ull",
        _ => "",
    }
}

impl Parse for KernelParam {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![:]>()?;
        let ty = if input.peek(Token![&]) {
            let amp = input.parse::<Token![&]>()?;
            let mutability = input.parse::<Option<Token![mut]>>()?;
            let content;
            bracketed!(content in input);
            let elem = content.parse()?;
            ParamTy::Slice {
                mutable: mutability.is_some(),
                elem,
                access: (amp.span, mutability.map_or(amp.span, |m| m.span)),
            }
        } else {
            ParamTy::Scalar(input.parse()?)
        };
        Ok(KernelParam { name, ty })
    }
}

impl Parse for BufferDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let host = if input.peek(kw::host_buffer) {
            input.parse::<kw::host_buffer>()?;
            true
        } else {
            input.parse::<kw::buffer>()?;
            false
        };
        let mutable = input.parse::<Option<Token![mut]>>()?.is_some();
        let name = input.parse()?;
        let count = if input.peek(syn::token::Bracket) {
            let content;
            let brackets = bracketed!(content in input);
            if content.is_empty() {
                return Err(syn::Error::new(
                    brackets.span.join(),
                    "a stack of buffers needs its count: `buffer w[n]: T;` (a param or a literal)",
                ));
            }
            Some((content.parse()?, brackets.span.join()))
        } else {
            None
        };
        input.parse::<Token![:]>()?;
        // `[T; len]`: a buffer that must hold `len` elements, written as a temporary's length.
        let (elem, len) = match input.parse()? {
            Type::Array(a) => (*a.elem, Some(a.len)),
            Type::Slice(s) => {
                let e = &s.elem;
                return Err(syn::Error::new(
                    syn::spanned::Spanned::span(&s),
                    format!(
                        "a buffer is declared with its element type (`{0}`), or with the length it must hold (`[{0}; n]`); `[{0}]` has no length",
                        quote::ToTokens::to_token_stream(e)
                    ),
                ));
            }
            t => (t, None),
        };
        let peer = if input.peek(kw::on) {
            input.parse::<kw::on>()?;
            let p = input.parse::<kw::peer>().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected `peer`: `buffer name: T on peer;` declares a buffer of another device than the graph's",
                )
            })?;
            Some(p.span)
        } else {
            None
        };
        Ok(BufferDecl {
            disjoint: false,
            host,
            mutable,
            name,
            count,
            elem,
            len,
            peer,
        })
    }
}
