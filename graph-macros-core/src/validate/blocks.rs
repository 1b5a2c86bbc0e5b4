//! Blocks placed into a graph, syntax to syntax, before any other check: each
//! `p = use block(binds);` becomes the block's nodes and edges written out at that place, each
//! node named `p_node`, the block's inputs and loop variables renamed as the place binds them;
//! the block's kernels (and defines) are declared once in the graph; an edge to `p` goes to the
//! block's first nodes (those no edge of the block leads to), an edge from `p` leaves from its
//! last. Every check after this one sees the graph as if the block were written out in it, so
//! every proof holds on each graph exactly as it would there.
//!
//! What a place binds is checked here: the block exists, each binding names an input or loop
//! variable of the block, each loop variable is given (the variable of a repeat block around
//! the place), and each input the block declares is declared by the graph (under its own
//! name or the one bound) with the same kind and type (a block's read-only buffer may be the
//! graph's `mut` one, not the reverse).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Group, TokenStream, TokenTree};
use syn::Ident;

use super::block_inputs::{declarations, with_inputs, Decl};
use crate::ast::{BlockDef, EdgeChain, GraphDef, Item, NodeDecl, Op, UseDef};
use crate::hints;
use crate::model::Errors;

/// `g` with every block it places written out (see the module's doc); a place with an error
/// is left out, so what it would have added reports nothing more.
pub(super) fn place(mut g: GraphDef, blocks: &[BlockDef], errors: &mut Errors) -> GraphDef {
    // An `inputs` of an unknown block (reported) leaves what the graph declares unknown: no
    // place then reports an input missing.
    let unsure = g
        .items
        .iter()
        .any(|i| matches!(i, Item::Inputs(name) if !blocks.iter().any(|b| b.name == *name)));
    if g.items.iter().any(|i| matches!(i, Item::Inputs(_))) {
        let items = std::mem::take(&mut g.items);
        g.items = with_inputs(items, blocks, &g.name.to_string(), errors);
    }
    if !uses_blocks(&g.items) {
        return g;
    }
    let declared = declarations(g.items.iter());
    let mut cx = Cx {
        graph: g.name.to_string(),
        blocks,
        declared,
        unsure,
        hoisted: Vec::new(),
        hoisted_text: HashSet::new(),
        errors,
    };
    let items = std::mem::take(&mut g.items);
    let mut vars = Vec::new();
    g.items = cx.body(items, &mut vars);
    g.items.extend(cx.hoisted);
    g
}

/// Whether a body (or one inside it) places a block.
fn uses_blocks(items: &[Item]) -> bool {
    items.iter().any(|item| match item {
        Item::Node(n) => match &n.op {
            Op::Use(_) => true,
            Op::Repeat(r) => uses_blocks(&r.body.items),
            Op::Conditional(c) => c.bodies.iter().any(|b| uses_blocks(&b.items)),
            _ => false,
        },
        _ => false,
    })
}

/// The names of a block's nodes, those of its conditional and repeat bodies among them.
fn node_names<'i>(items: impl IntoIterator<Item = &'i Item>, out: &mut Vec<Ident>) {
    for item in items {
        if let Item::Node(n) = item {
            out.push(n.name.clone());
            match &n.op {
                Op::Repeat(r) => node_names(&r.body.items, out),
                Op::Conditional(c) => c.bodies.iter().for_each(|b| node_names(&b.items, out)),
                _ => {}
            }
        }
    }
}

/// A block's first and last nodes at its top level: those no edge of the block leads to, and
/// those no edge leaves (carry edges aside).
fn ends(items: &[&Item]) -> Ends {
    let nodes: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            Item::Node(n) => Some(n.name.to_string()),
            _ => None,
        })
        .collect();
    let (mut led, mut left) = (HashSet::new(), HashSet::new());
    for &item in items {
        if let Item::Edges(e) = item {
            if e.carry.is_some() {
                continue;
            }
            for pair in e.groups.windows(2) {
                left.extend(pair[0].iter().map(Ident::to_string));
                led.extend(pair[1].iter().map(Ident::to_string));
            }
        }
    }
    let first = nodes
        .iter()
        .filter(|n| !led.contains(*n))
        .cloned()
        .collect();
    let last = nodes
        .iter()
        .filter(|n| !left.contains(*n))
        .cloned()
        .collect();
    (first, last)
}

/// `tokens` with every identifier `map` names renamed, keeping its span; an identifier after
/// `.` or `::` (a method, a field, a path's segment) or before a single `:` (a field given by
/// name) is the user's Rust and stays.
fn rename(tokens: TokenStream, map: &HashMap<String, String>) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut out = TokenStream::new();
    for (i, tt) in tokens.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| tokens.get(j));
        let next = tokens.get(i + 1);
        let renamed = match tt {
            TokenTree::Group(g) => {
                let mut new = Group::new(g.delimiter(), rename(g.stream(), map));
                new.set_span(g.span());
                TokenTree::Group(new)
            }
            TokenTree::Ident(id) => {
                let member = punct(prev, '.') || punct(prev, ':');
                let field = punct(next, ':')
                    && matches!(next, Some(TokenTree::Punct(p)) if p.spacing() == proc_macro2::Spacing::Alone);
                match map.get(&id.to_string()) {
                    Some(to) if !member && !field => TokenTree::Ident(Ident::new(to, id.span())),
                    _ => tt.clone(),
                }
            }
            _ => tt.clone(),
        };
        out.extend([renamed]);
    }
    out
}

/// A place's first and last nodes, by name.
type Ends = (Vec<String>, Vec<String>);

struct Cx<'b, 'e> {
    graph: String,
    blocks: &'b [BlockDef],
    declared: HashMap<String, Decl>,
    /// Whether what the graph declares is unknown (an `inputs` of an unknown block).
    unsure: bool,
    /// The kernels and defines of placed blocks, declared once at the graph's top level.
    hoisted: Vec<Item>,
    hoisted_text: HashSet<String>,
    errors: &'e mut Errors,
}

impl Cx<'_, '_> {
    /// One body's items with its places written out, and its edges to and from them made edges
    /// to the blocks' first nodes and from their last. `vars`: the loop variables around it.
    fn body(&mut self, items: Vec<Item>, vars: &mut Vec<Ident>) -> Vec<Item> {
        let mut out = Vec::new();
        let mut placed: HashMap<String, Ends> = HashMap::new();
        let names: HashSet<String> = items
            .iter()
            .filter_map(|i| match i {
                Item::Node(n) if !matches!(n.op, Op::Use(_)) => Some(n.name.to_string()),
                _ => None,
            })
            .collect();
        for item in items {
            match item {
                Item::Node(NodeDecl {
                    name,
                    op: Op::Use(u),
                    ..
                }) => {
                    if names.contains(&name.to_string()) || placed.contains_key(&name.to_string()) {
                        self.errors.at(
                            name.span(),
                            format!("a node named `{name}` is already declared; name this place of block `{}` otherwise", u.block),
                        );
                        continue;
                    }
                    if let Some((items, ends)) = self.expand(&name, &u, vars) {
                        out.extend(items);
                        placed.insert(name.to_string(), ends);
                    }
                }
                Item::Node(mut n) => {
                    match &mut n.op {
                        Op::Repeat(r) => {
                            vars.push(r.var.clone());
                            r.body.items = self.body(std::mem::take(&mut r.body.items), vars);
                            vars.pop();
                        }
                        Op::Conditional(c) => {
                            for b in &mut c.bodies {
                                b.items = self.body(std::mem::take(&mut b.items), vars);
                            }
                        }
                        _ => {}
                    }
                    out.push(Item::Node(n));
                }
                other => out.push(other),
            }
        }
        if placed.is_empty() {
            return out;
        }
        out.into_iter()
            .flat_map(|item| match item {
                Item::Edges(e)
                    if e.groups
                        .iter()
                        .flatten()
                        .any(|n| placed.contains_key(&n.to_string())) =>
                {
                    through(e, &placed)
                }
                item => vec![item],
            })
            .collect()
    }

    /// Block `u.block` written out as `place`: its items, and its first and last nodes'
    /// names. `None` (with errors reported) where the place binds it wrongly.
    fn expand(&mut self, place: &Ident, u: &UseDef, vars: &[Ident]) -> Option<(Vec<Item>, Ends)> {
        let Some(block) = self.blocks.iter().find(|b| b.name == u.block) else {
            self.errors.dropped_use(&self.graph, "*");
            let names = self.blocks.iter().map(|b| b.name.to_string()).collect();
            self.errors.at(
                u.block.span(),
                format!(
                    "no block named `{}`{}",
                    u.block,
                    hints::hint(
                        &u.block.to_string(),
                        names,
                        "; declare it beside the graphs: `block name { ... }`"
                    )
                ),
            );
            return None;
        };
        let items: Vec<&Item> = block.items.iter().map(|(i, _)| i).collect();
        let inputs = declarations(items.iter().copied());
        let mut ok = true;
        let mut map: HashMap<String, String> = HashMap::new();
        let mut given: HashMap<String, &Ident> = HashMap::new();
        for (name, to) in &u.binds {
            let key = name.to_string();
            let var = block.vars.iter().any(|v| *v == key);
            if !var && !inputs.contains_key(&key) {
                let mut known: Vec<String> = block.vars.iter().map(Ident::to_string).collect();
                known.extend(inputs.keys().cloned());
                known.sort();
                self.errors.at(
                    name.span(),
                    format!(
                        "block `{}` has no input or loop variable `{name}`{}",
                        block.name,
                        hints::hint(&key, known, "")
                    ),
                );
                ok = false;
            } else if given.insert(key, to).is_some() {
                self.errors.at(
                    name.span(),
                    format!(
                        "`{name}` is bound twice in this place of block `{}`",
                        block.name
                    ),
                );
                ok = false;
            }
        }
        for v in &block.vars {
            match given.get(&v.to_string()) {
                None => {
                    let fix = match vars {
                        [.., last] => format!("`{}`", call(u, &v.to_string(), &last.to_string())),
                        [] => format!(
                            "`{}` inside `repeat i in 0..n {{ ... }}`",
                            call(u, &v.to_string(), "i")
                        ),
                    };
                    self.errors.at(
                        u.block.span(),
                        format!("block `{}` takes the loop variable `{v}`, which this place does not give; write {fix}", block.name),
                    );
                    ok = false;
                }
                Some(to) if !vars.iter().any(|x| x == *to && x != "_") => {
                    let around: Vec<String> = vars
                        .iter()
                        .map(Ident::to_string)
                        .filter(|v| v != "_")
                        .collect();
                    let why = if around.is_empty() {
                        "no repeat block is around this place".to_owned()
                    } else {
                        format!("the variables around this place: {}", around.join(", "))
                    };
                    self.errors.at(
                        to.span(),
                        format!("`{to}` is not the variable of a repeat block around this place ({why}); block `{}`'s `{v}` takes one", block.name),
                    );
                    ok = false;
                }
                Some(to) => {
                    map.insert(v.to_string(), to.to_string());
                }
            }
        }
        let mut input_names: Vec<&String> = inputs.keys().collect();
        input_names.sort();
        for name in input_names {
            let decl = &inputs[name];
            let to = given.get(name).copied();
            let target = to.map_or(name.clone(), Ident::to_string);
            let at = to.map_or(u.block.span(), Ident::span);
            let Some(have) = self.declared.get(&target) else {
                if self.unsure {
                    ok = false;
                    continue;
                }
                let mut candidates: Vec<String> = self
                    .declared
                    .iter()
                    .filter(|(_, d)| d.fits(decl))
                    .map(|(n, _)| n.clone())
                    .collect();
                candidates.sort();
                let hint = match hints::suggestions(&target, candidates.iter().map(String::as_str))
                    .as_slice()
                {
                    [] => format!(
                        "; declare it, `{};`, or bind one the graph declares: `{}`",
                        decl.written(&target),
                        call(u, name, "...")
                    ),
                    some => format!(
                        "; did you mean {}? (bind it: `{}`)",
                        hints::either(some),
                        call(u, name, some[0])
                    ),
                };
                self.errors.at(
                    at,
                    format!(
                        "block `{}` uses {} `{name}`, but graph `{}` declares no `{target}`{hint}",
                        block.name, decl.kind, self.graph
                    ),
                );
                ok = false;
                continue;
            };
            if !have.fits(decl) {
                self.errors.once(
                    format!("block-input:{}:{target}", self.graph),
                    at,
                    format!(
                        "block `{}` declares `{}`, but graph `{}` has `{}`; bind a {} that matches, or change one of the two",
                        block.name,
                        decl.written(name),
                        self.graph,
                        have.written(&target),
                        decl.kind
                    ),
                );
                ok = false;
                continue;
            }
            if target != *name {
                map.insert(name.clone(), target);
            }
        }
        if !ok {
            // What the place would have used is not reported unused as well.
            for name in inputs.keys() {
                let target = given.get(name).map_or(name.clone(), |t| t.to_string());
                self.errors.dropped_use(&self.graph, &target);
            }
            return None;
        }
        let mut nodes = Vec::new();
        node_names(items.iter().copied(), &mut nodes);
        for n in &nodes {
            map.insert(n.to_string(), format!("{place}_{n}"));
        }
        let source = block.items.iter().find_map(|(i, _)| match i {
            Item::Source(lit) => Some(lit.clone()),
            _ => None,
        });
        let mut out = Vec::new();
        for (item, tokens) in &block.items {
            match item {
                Item::Node(_) | Item::Edges(_) => {
                    match syn::parse2::<Item>(rename(tokens.clone(), &map)) {
                        Ok(item) => out.push(item),
                        Err(e) => self.errors.push(e),
                    }
                }
                Item::Kernel(k) => {
                    let mut tokens = tokens.clone();
                    if let (None, Some(lit)) = (&k.source, &source) {
                        let mut t: Vec<TokenTree> = tokens.into_iter().collect();
                        let semi = t.pop();
                        tokens = t.into_iter().collect();
                        tokens.extend(quote::quote!(in #lit));
                        tokens.extend(semi);
                    }
                    self.hoist(tokens);
                }
                Item::Define(_) => self.hoist(tokens.clone()),
                _ => {}
            }
        }
        let (first, last) = ends(&items);
        let prefixed = |v: Vec<String>| v.into_iter().map(|n| format!("{place}_{n}")).collect();
        if first.is_empty() {
            self.errors.once(
                format!("empty-block:{}", block.name),
                block.brace,
                format!("block `{}` has no node to place", block.name),
            );
            return None;
        }
        Some((out, (prefixed(first), prefixed(last))))
    }

    /// Declares a block's kernel or define at the graph's top level, once.
    fn hoist(&mut self, tokens: TokenStream) {
        if !self.hoisted_text.insert(tokens.to_string()) {
            return;
        }
        match syn::parse2::<Item>(tokens) {
            Ok(item) => self.hoisted.push(item),
            Err(e) => self.errors.push(e),
        }
    }
}

/// An edge chain that names a place, as one chain per arrow, the place replaced by its block's
/// last nodes where the arrow leaves it and by its first where the arrow leads to it.
fn through(e: EdgeChain, placed: &HashMap<String, Ends>) -> Vec<Item> {
    let expand = |group: &[Ident], last: bool| -> Vec<Ident> {
        group
            .iter()
            .flat_map(|n| match placed.get(&n.to_string()) {
                Some((first, end)) => {
                    let names = if last { end } else { first };
                    names.iter().map(|m| Ident::new(m, n.span())).collect()
                }
                None => vec![n.clone()],
            })
            .collect()
    };
    e.arrows
        .iter()
        .enumerate()
        .map(|(i, arrow)| {
            Item::Edges(EdgeChain {
                programmatic: e.programmatic,
                carry: e.carry,
                groups: vec![expand(&e.groups[i], true), expand(&e.groups[i + 1], false)],
                arrows: vec![*arrow],
            })
        })
        .collect()
}

/// The place `u` written again with `name` bound to `to` (added, or replacing its binding):
/// `use layer(l, x = hidden)`, for a message's fix.
fn call(u: &UseDef, name: &str, to: &str) -> String {
    let mut binds: Vec<String> = Vec::new();
    let mut done = false;
    for (n, t) in &u.binds {
        let t = if n == name {
            done = true;
            to.to_owned()
        } else {
            t.to_string()
        };
        binds.push(if *n == t { t } else { format!("{n} = {t}") });
    }
    if !done {
        binds.push(if name == to {
            to.to_owned()
        } else {
            format!("{name} = {to}")
        });
    }
    format!("use {}({})", u.block, binds.join(", "))
}
