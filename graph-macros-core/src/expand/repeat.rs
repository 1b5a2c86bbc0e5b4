//! What `build` does for a graph with repeat blocks: each block's count evaluated, the stacks'
//! lengths and every stack index checked (an error value, before any node is added), and each
//! block's body added once per iteration, in a loop, so the generated code grows with the body
//! and not with the count.
//!
//! The nodes' positions in the driver graph are known only when it is built, so in such a graph
//! every node names its dependencies by handle (`NodeId`s): a node after a block depends on the
//! block's *exits* (its last iteration's last nodes, and every iteration's last nodes that no
//! carry edge hands on); a block's *entries* (its first nodes, and every iteration's first
//! nodes that no carry edge reaches) depend on what the block depends on. A block that runs
//! zero times passes its dependencies through. Where `#[programmatic]` on the graph makes an
//! edge into the first iteration or out of the last programmatic (`validate::edges`), that
//! edge is added as such once both ends exist, not as a plain dependency.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::gen::{rt, Cx};
use crate::kinds;
use crate::model::{Arg, NodeOp, StackIndex};

/// `__cg_r<ni>`: the count of block `ni` while `build` runs.
pub(super) fn count_var(ni: usize) -> syn::Ident {
    format_ident!("__cg_r{}", ni)
}

/// `__cg_x<ni>`: the exits of block `ni`, once it is added.
fn exits_var(ni: usize) -> syn::Ident {
    format_ident!("__cg_x{}", ni)
}

/// The variable holding node `ni`'s handle (or handles) while `build` adds nodes, at `at` (a
/// position in its group).
fn handle(cx: &Cx<'_>, ni: usize, at: &TokenStream) -> TokenStream {
    let var = Cx::group_var(cx.groups.of[ni].0);
    quote!(&#var[#at])
}

/// Where node `ni`, outside any block, is in its handle group.
fn outside_at(cx: &Cx<'_>, ni: usize) -> TokenStream {
    let j = proc_macro2::Literal::usize_unsuffixed(cx.groups.of[ni].1);
    quote!(#j)
}

/// Statements that make `__cg_d`, the dependencies of node `ni` (a node outside any block,
/// or a block): its predecessors, a block among them standing for its exits. A predecessor
/// joined to it by a programmatic edge is left out: `programmatic` adds that edge as such
/// (the driver refuses to turn a plain edge into one in a graph with memory nodes), and so
/// is a block's last node its programmatic exit edge joins, whichever block passes it on.
fn outside_deps(cx: &Cx<'_>, ni: usize) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let pushes = g.preds[ni].iter().map(|&p| {
        if g.repeat(p).is_some() {
            let x = exits_var(p);
            quote!(__cg_d.extend_from_slice(&#x);)
        } else if g.topo.programmatic_port(p as u32, ni as u32).is_some() {
            quote!()
        } else {
            let h = handle(cx, p, &outside_at(cx, p));
            quote!(__cg_d.push(#rt::__private::id(#h));)
        }
    });
    let exits = g.nodes.iter().enumerate().flat_map(|(bi, n)| {
        let NodeOp::Repeat(r) = &n.op else {
            return Vec::new();
        };
        let c = count_var(bi);
        r.exits
            .iter()
            .filter(|e| e.1 as usize == ni)
            .map(|e| {
                let h = handle(cx, e.0 as usize, &quote!(#c - 1));
                quote!(if #c > 0 {
                    let __cg_p = #rt::__private::id(#h);
                    __cg_d.retain(|d| *d != __cg_p);
                })
            })
            .collect()
    });
    quote! {
        let mut __cg_d: ::std::vec::Vec<#rt::node::NodeId> = ::std::vec::Vec::new();
        #(#pushes)*
        #(#exits)*
    }
}

/// Adds node `ni` after the dependencies in `__cg_d` (`iteration`: the variable holding the
/// iteration, for a node of a block).
fn add_after_deps(cx: &Cx<'_>, ni: usize, iteration: Option<&TokenStream>) -> TokenStream {
    let rt = rt();
    let var = Cx::group_var(cx.groups.of[ni].0);
    if matches!(cx.g.nodes[ni].op, NodeOp::Launch(_)) {
        let (name, made) = kinds::made(cx, ni, iteration);
        quote!(#var.add_with_deps(&mut *__cg_g, #name, &__cg_d, #made)?;)
    } else {
        let add = kinds::add(cx, ni, iteration, quote!(&#rt::__private::deps(&__cg_d)));
        quote!(#var.push(#add);)
    }
}

/// Adds node `ni`, outside any block, in a graph with blocks.
pub(super) fn add_one(cx: &Cx<'_>, ni: usize) -> TokenStream {
    let deps = outside_deps(cx, ni);
    let add = add_after_deps(cx, ni, None);
    quote!({ #deps #add })
}

/// Adds block `ni`: its body's nodes `body` (in dependency order) once per iteration.
pub(super) fn block(cx: &Cx<'_>, ni: usize, body: &[usize]) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let r = g.repeat(ni).expect("a repeat block");
    let (n, x, e) = (count_var(ni), exits_var(ni), format_ident!("__cg_e{}", ni));
    let entry_deps = outside_deps(cx, ni);
    let l = quote!(__cg_l);
    let prev = quote!(__cg_l - 1);
    let mut adds = TokenStream::new();
    for &b in body {
        let into = |b: usize| r.carry.iter().filter(move |c| c.1 as usize == b);
        let out_of = |b: usize| r.carry.iter().any(|c| c.0 as usize == b);
        // Programmatic edges within an iteration and between iterations are left out here:
        // `programmatic` adds them as such.
        let within = g.preds[b].iter().filter_map(|&p| {
            if g.topo.programmatic_port(p as u32, b as u32).is_some() {
                return None;
            }
            let h = handle(cx, p, &l);
            Some(quote!(__cg_d.push(#rt::__private::id(#h));))
        });
        let carried: Vec<TokenStream> = into(b)
            .filter(|c| !r.programmatic.contains(&(c.0, c.1)))
            .map(|c| {
                let h = handle(cx, c.0 as usize, &prev);
                quote!(__cg_d.push(#rt::__private::id(#h));)
            })
            .collect();
        let carried = (!carried.is_empty()).then(|| quote!(if __cg_l > 0 { #(#carried)* }));
        // A first node of the body: after the block's dependencies, where no carry edge
        // orders it after the iteration before.
        let entry = g.preds[b].is_empty().then(|| {
            let when = if into(b).next().is_some() {
                quote!(__cg_l == 0)
            } else {
                quote!(true)
            };
            // The nodes before the block a programmatic edge joins to this one instead.
            let skip: Vec<TokenStream> = r
                .entries
                .iter()
                .filter(|e| e.1 as usize == b)
                .map(|e| {
                    let h = handle(cx, e.0 as usize, &outside_at(cx, e.0 as usize));
                    quote!(#rt::__private::id(#h))
                })
                .collect();
            if skip.is_empty() {
                quote!(if #when { __cg_d.extend_from_slice(&#e); })
            } else {
                quote!(if #when {
                    let __cg_p = [#(#skip),*];
                    __cg_d.extend(#e.iter().copied().filter(|d| !__cg_p.contains(d)));
                })
            }
        });
        let add = add_after_deps(cx, b, Some(&l));
        // A last node of the body: what follows the block waits for it, unless a carry edge
        // hands it to the next iteration (which then stands for it).
        let last = !g.topo.successors(b as u32).iter().any(|&s| s as usize != b);
        let exit = last.then(|| {
            let when = if out_of(b) {
                quote!(__cg_l + 1 == #n)
            } else {
                quote!(true)
            };
            let h = handle(cx, b, &l);
            quote!(if #when { #x.push(#rt::__private::id(#h)); })
        });
        adds.extend(quote! {
            {
                let mut __cg_d: ::std::vec::Vec<#rt::node::NodeId> = ::std::vec::Vec::new();
                #(#within)*
                #carried
                #entry
                #add
            }
            #exit
        });
    }
    quote! {
        let #e: ::std::vec::Vec<#rt::node::NodeId> = { #entry_deps __cg_d };
        let mut #x: ::std::vec::Vec<#rt::node::NodeId> = ::std::vec::Vec::new();
        for __cg_l in 0..#n {
            #adds
        }
        if #n == 0 {
            #x = #e.clone();
        }
    }
}

/// What `build` checks before it adds any node: each block's count (`__cg_r<ni>`), each
/// stack's length, and the index of every stack argument in every iteration.
pub(super) fn prologue(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let mut out = TokenStream::new();
    for (ni, n) in g.nodes.iter().enumerate() {
        let NodeOp::Repeat(r) = &n.op else { continue };
        let (v, name, e) = (count_var(ni), n.name.to_string(), &r.count.expr);
        let lets = cx.bind_params([&r.count.params]);
        out.extend(quote_spanned!(e.span()=>
            let #v: usize = #rt::__private::repeat_count(#name, { #lets #e })?;
        ));
    }
    for (i, inp) in g.inputs.iter().enumerate() {
        let Some((count, _)) = inp.kind.buffer().and_then(|b| b.stack.as_ref()) else {
            continue;
        };
        let (f, name, e) = (cx.input_field(i), inp.name.to_string(), &count.expr);
        let lets = cx.bind_params([&count.params]);
        out.extend(quote_spanned!(e.span()=>
            #rt::__private::stack_len(#name, __cg_s.#f.len(), { #lets #e })?;
        ));
    }
    for (ni, n) in g.nodes.iter().enumerate() {
        let NodeOp::Launch(l) = &n.op else { continue };
        let block = g.block_of(ni);
        let node = n.name.to_string();
        for a in &l.args {
            let Arg::Buffer {
                input,
                index: Some(index),
                ..
            } = a
            else {
                continue;
            };
            let (f, stack) = (cx.input_field(*input), g.inputs[*input].name.to_string());
            let len = quote!(__cg_s.#f.len());
            let check = |iteration: TokenStream, at: TokenStream| quote!(#rt::__private::stack_index(#stack, #node, #iteration, #at, #len)?;);
            out.extend(match (index, block) {
                (StackIndex::Iter(c), Some(b)) => {
                    let n = count_var(b);
                    let first = check(quote!(Some(0)), quote!(#c));
                    let last = check(quote!(Some(#n - 1)), quote!((#n - 1) as i64 + #c));
                    quote!(if #n > 0 { #first #last })
                }
                (StackIndex::Value(v), Some(b)) if v.iter => {
                    let (n, var, e) = (count_var(b), cx.loop_var(ni), &v.expr);
                    let lets = cx.bind_params([&v.params]);
                    let c = check(quote!(Some(#var)), quote!({ #lets #e }));
                    quote!(for #var in 0..#n { #c })
                }
                (StackIndex::Value(v), _) => {
                    let e = &v.expr;
                    let lets = cx.bind_params([&v.params]);
                    check(quote!(None), quote!({ #lets #e }))
                }
                (StackIndex::Iter(_), None) => unreachable!("`l + c` is in a repeat block"),
            });
        }
    }
    out
}

/// The programmatic edges of a graph with blocks: those between two nodes of a block's body in
/// every iteration, its programmatic carry edges between every two iterations that follow each
/// other, and its programmatic edges in and out (left out of the plain dependencies where the
/// nodes are added).
pub(super) fn programmatic(cx: &Cx<'_>) -> TokenStream {
    let rt = rt();
    let g = cx.g;
    let port = quote!(#rt::topology::Port::Programmatic);
    let mut out = TokenStream::new();
    for &(a, b, _) in g.topo.programmatic_edges() {
        let (a, b) = (a as usize, b as usize);
        let edge = |at: &TokenStream, bt: &TokenStream| {
            let (ha, hb) = (handle(cx, a, at), handle(cx, b, bt));
            quote!(__cg_g.add_programmatic_edge(#ha, #hb, #port)?;)
        };
        out.extend(match g.block_of(a) {
            Some(block) => {
                let (n, l) = (count_var(block), quote!(__cg_l));
                let e = edge(&l, &l);
                quote!(for __cg_l in 0..#n { #e })
            }
            None => edge(&outside_at(cx, a), &outside_at(cx, b)),
        });
    }
    for (ni, n) in g.nodes.iter().enumerate() {
        let NodeOp::Repeat(r) = &n.op else { continue };
        let count = count_var(ni);
        // Into the first iteration, and out of the last (none when the block runs no time:
        // its dependencies then pass through, plain).
        for &(a, e) in &r.entries {
            let ha = handle(cx, a as usize, &outside_at(cx, a as usize));
            let he = handle(cx, e as usize, &quote!(0));
            out.extend(quote!(if #count > 0 {
                __cg_g.add_programmatic_edge(#ha, #he, #port)?;
            }));
        }
        for &(x, b) in &r.exits {
            let hx = handle(cx, x as usize, &quote!(#count - 1));
            let hb = handle(cx, b as usize, &outside_at(cx, b as usize));
            out.extend(quote!(if #count > 0 {
                __cg_g.add_programmatic_edge(#hx, #hb, #port)?;
            }));
        }
        for &(a, b) in &r.programmatic {
            let (ha, hb) = (
                handle(cx, a as usize, &quote!(__cg_l - 1)),
                handle(cx, b as usize, &quote!(__cg_l)),
            );
            out.extend(quote!(for __cg_l in 1..#count {
                __cg_g.add_programmatic_edge(#ha, #hb, #port)?;
            }));
        }
    }
    out
}
