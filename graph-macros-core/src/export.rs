//! Blocks across macro calls. A proc macro keeps no state between calls (incremental builds
//! would break it), so a block travels as tokens through the compiler:
//!
//! - `pub block name { ... }` makes a `macro_rules!` that writes the block, its CUDA paths made
//!   absolute where it is declared, in front of the tokens it is given, inside a new
//!   `cuda_graph!` call; `pub use` names it `name` in the declaring module (and
//!   `#[macro_export]` lets other crates reach it).
//! - `use path::name;` at the top of a `cuda_graph!` call becomes a call of that macro with the
//!   rest of the call: the block arrives declared in it, and is placed as a local one. Each
//!   `use` is one round.

use std::hash::{Hash, Hasher};
use std::path::Path;

use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::ast::{BlockDef, Item};
use crate::model::Errors;
use crate::validate::Dirs;

/// The call written as a call of the first block it imports (`use path::name;`), or `None`
/// when it imports none.
pub fn import(input: &TokenStream) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = input.clone().into_iter().collect();
    let start = tokens
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(i) if i == "use"))?;
    let end = start
        + tokens[start..]
            .iter()
            .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))?;
    let path: TokenStream = tokens[start + 1..end].iter().cloned().collect();
    let rest: TokenStream = tokens[..start]
        .iter()
        .chain(&tokens[end + 1..])
        .cloned()
        .collect();
    Some(quote!(#path! { #rest }))
}

/// The `macro_rules!` and `pub use` of every exported block of a call.
pub fn exports(blocks: &[BlockDef], dirs: &Dirs, errors: &mut Errors) -> TokenStream {
    let mut out = TokenStream::new();
    for b in blocks.iter().filter(|b| b.export) {
        let mut body = TokenStream::new();
        for (item, tokens) in &b.items {
            body.extend(absolute(item, tokens, dirs, errors));
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        body.to_string().hash(&mut h);
        let mangled = format_ident!("__cuda_graph_block_{}_{:016x}", b.name, h.finish());
        let (name, vars) = (&b.name, &b.vars);
        out.extend(quote! {
            #[doc(hidden)]
            #[macro_export]
            macro_rules! #mangled {
                ($($rest:tt)*) => {
                    ::cuda_graph::cuda_graph! { @imported block #name(#(#vars),*) { #body } $($rest)* }
                };
            }
            #[doc(hidden)]
            pub use #mangled as #name;
        });
    }
    out
}

/// An item's tokens with its CUDA path (a `source`, or a kernel's `in "file"`) made absolute
/// as the declaring crate finds it, so the block reads the same file wherever it is placed.
fn absolute(item: &Item, tokens: &TokenStream, dirs: &Dirs, errors: &mut Errors) -> TokenStream {
    let lit = match item {
        Item::Source(lit) => Some(lit),
        Item::Kernel(k) => k.source.as_ref(),
        _ => None,
    };
    let Some(lit) = lit else {
        return tokens.clone();
    };
    let rel = lit.value();
    let found = [&dirs.manifest, &dirs.call]
        .into_iter()
        .flatten()
        .map(|d| d.join(&rel))
        .chain(
            Path::new(&rel)
                .is_absolute()
                .then(|| Path::new(&rel).to_owned()),
        )
        .find(|p| p.is_file());
    let Some(path) = found else {
        errors.at(
            lit.span(),
            format!("cannot find the CUDA source `{rel}` of this exported block; looked in the crate's manifest directory and beside the file the macro is called in"),
        );
        return tokens.clone();
    };
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    tokens
        .clone()
        .into_iter()
        .map(|t| match t {
            TokenTree::Literal(l) if l.to_string() == format!("{:?}", rel) => {
                let mut new = Literal::string(&path.to_string_lossy());
                new.set_span(l.span());
                TokenTree::Literal(new)
            }
            t => t,
        })
        .collect()
}

/// `input` without the marks exported blocks arrive with (`@imported` before each), and, where
/// there were any, with every token resolving names where the macro is called, each keeping
/// its place in the source. A call that an exported block's `macro_rules!` wrote mixes the
/// block's tokens (written in that macro) with the caller's, which would otherwise resolve the
/// names the generated code binds (`let n = ...`) in two places and find neither.
pub fn unmarked(input: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let mark = |i: usize| {
        matches!(&tokens[i], TokenTree::Punct(p) if p.as_char() == '@')
            && matches!(tokens.get(i + 1), Some(TokenTree::Ident(id)) if id == "imported")
    };
    let marked = (0..tokens.len()).any(mark);
    if !marked {
        return tokens.into_iter().collect();
    }
    let mut kept = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if mark(i) {
            i += 2;
            continue;
        }
        kept.push(tokens[i].clone());
        i += 1;
    }
    respan(kept.into_iter().collect(), Span::call_site())
}

fn respan(input: TokenStream, here: Span) -> TokenStream {
    input
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut new = Group::new(g.delimiter(), respan(g.stream(), here));
                new.set_span(g.span().resolved_at(here));
                return TokenTree::Group(new);
            }
            t.set_span(t.span().resolved_at(here));
            t
        })
        .collect()
}
