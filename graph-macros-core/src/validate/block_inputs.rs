//! What blocks declare: an input as a block or a graph declares it, whether a graph's input can
//! stand for a block's, and a graph's `inputs block;` items written out as the block's
//! declarations (before any place is checked against them).

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Ident;

use crate::ast::{BlockDef, Item};
use crate::hints;
use crate::model::Errors;

/// An input as a block or graph declares it: its kind, and what must agree between the two.
#[derive(Clone)]
pub(super) struct Decl {
    /// `buffer`, `host_buffer`, `param`, `temp`, `cond`, ...
    pub(super) kind: &'static str,
    /// The element type or type, as written (`f32`), empty where the kind has none.
    pub(super) ty: String,
    /// `buffer mut`.
    pub(super) mutable: bool,
    /// `buffer w[n]`: a stack.
    pub(super) stack: bool,
    /// `on peer`.
    pub(super) peer: bool,
    /// The declaration's name.
    pub(super) name: Ident,
}

impl Decl {
    /// Whether a graph's input declared so can stand for a block's declared as `block`: the
    /// same kind, type, stack and device; a block's read-only buffer may be a `mut` one.
    pub(super) fn fits(&self, block: &Decl) -> bool {
        self.kind == block.kind
            && self.ty == block.ty
            && self.stack == block.stack
            && self.peer == block.peer
            && (self.mutable || !block.mutable)
    }

    /// How it is written, for messages: `buffer mut x: f32`, `param n: u32`, `cond c`.
    pub(super) fn written(&self, name: &str) -> String {
        let m = if self.mutable { "mut " } else { "" };
        let stack = if self.stack { "[..]" } else { "" };
        let peer = if self.peer { " on peer" } else { "" };
        match self.ty.as_str() {
            "" => format!("{} {name}", self.kind),
            ty => format!("{} {m}{name}{stack}: {ty}{peer}", self.kind),
        }
    }
}

/// The inputs (and condition handles) that items declare, by name.
pub(super) fn declarations<'i>(items: impl Iterator<Item = &'i Item>) -> HashMap<String, Decl> {
    let text = |t: &dyn ToTokens| t.to_token_stream().to_string();
    let plain = |kind, name: &Ident| Decl {
        kind,
        ty: String::new(),
        mutable: false,
        stack: false,
        peer: false,
        name: name.clone(),
    };
    let mut out = HashMap::new();
    for item in items {
        let d = match item {
            Item::Buffer(b) => Decl {
                kind: if b.host { "host_buffer" } else { "buffer" },
                ty: text(&b.elem),
                mutable: b.mutable,
                stack: b.count.is_some(),
                peer: b.peer.is_some(),
                name: b.name.clone(),
            },
            Item::Param(p) => Decl {
                ty: text(&p.ty),
                ..plain("param", &p.name)
            },
            Item::Temp(t) => Decl {
                ty: text(&t.elem),
                ..plain("temp", &t.name)
            },
            Item::Cond(c) => plain("cond", &c.name),
            Item::Callback(n) => plain("callback", n),
            Item::Event(n) => plain("event", n),
            Item::Work(n) => plain("work", n),
            Item::Comm(n) => plain("comm", n),
            _ => continue,
        };
        out.entry(d.name.to_string()).or_insert(d);
    }
    out
}

/// A graph's items with each `inputs block;` replaced by the block's declarations that the
/// graph does not make itself (those it makes must fit the block's). Two blocks may declare
/// one input alike, or one read-only and one `mut` (the graph's is then `mut`).
pub(super) fn with_inputs(
    items: Vec<Item>,
    blocks: &[BlockDef],
    graph: &str,
    errors: &mut Errors,
) -> Vec<Item> {
    let own = declarations(items.iter());
    let mut added: Vec<(String, Decl, TokenStream, String)> = Vec::new();
    let mut out = Vec::new();
    for item in items {
        let Item::Inputs(name) = item else {
            out.push(item);
            continue;
        };
        let Some(block) = blocks.iter().find(|b| b.name == name) else {
            errors.dropped_use(graph, "*");
            let names = blocks.iter().map(|b| b.name.to_string()).collect();
            errors.at(
                name.span(),
                format!(
                    "no block named `{name}`{}",
                    hints::hint(
                        &name.to_string(),
                        names,
                        "; declare it beside the graphs: `block name { ... }`"
                    )
                ),
            );
            continue;
        };
        for (bitem, tokens) in &block.items {
            let Some(d) = declarations(std::iter::once(bitem)).into_values().next() else {
                continue;
            };
            let key = d.name.to_string();
            if let Some(have) = own.get(&key) {
                if !have.fits(&d) {
                    errors.once(
                        format!("block-input:{graph}:{key}"),
                        have.name.span(),
                        format!(
                            "graph `{graph}` declares `{}`, but block `{}`, whose inputs `inputs {}` declares, has `{}`; declare it as the block does, or remove this declaration",
                            have.written(&key),
                            block.name,
                            block.name,
                            d.written(&key)
                        ),
                    );
                }
                continue;
            }
            match added.iter_mut().find(|(k, ..)| *k == key) {
                Some((_, prev, _, _)) if prev.fits(&d) => {}
                Some((_, prev, toks, _)) if d.fits(prev) => {
                    *prev = d;
                    *toks = tokens.clone();
                }
                Some((_, prev, _, from)) => errors.at(
                    name.span(),
                    format!(
                        "blocks `{from}` and `{}` declare `{key}` differently (`{}`, `{}`): declare it in graph `{graph}` as both can take it, or bind one to another input at its place",
                        block.name,
                        prev.written(&key),
                        d.written(&key)
                    ),
                ),
                None => added.push((key, d, tokens.clone(), block.name.to_string())),
            }
        }
    }
    let mut declared = Vec::new();
    for (_, _, tokens, _) in added {
        match syn::parse2::<Item>(tokens) {
            Ok(item) => declared.push(item),
            Err(e) => errors.push(e),
        }
    }
    declared.extend(out);
    declared
}
