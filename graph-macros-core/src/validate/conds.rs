//! Conditional nodes and their bodies: the topology's scopes, the order `build` adds nodes in
//! (a body's nodes right after their conditional node), and the rules of condition handles.

use std::collections::HashMap;

use cuda_graph_topology::Topology;

use crate::ast;
use cuda_graph_topology::Reach;

use crate::model::{Cond, CondOp, Conditional, Errors, Graph, Node, NodeOp};

/// The topology of the nodes: a conditional node's bodies become scopes right after it, and
/// each node of a body goes into its scope (recorded in the node and its conditional).
pub(super) fn topology(nodes: &mut [Node], parents: &[Option<(usize, u32)>]) -> Topology {
    let mut topo = Topology::new();
    for ni in 0..nodes.len() {
        let scope = match parents[ni] {
            None => 0,
            Some((p, b)) => match &nodes[p].op {
                NodeOp::Conditional(c) => c.first + b,
                NodeOp::Repeat(r) => r.scope,
                _ => unreachable!("a body's parent is a conditional node or a repeat block"),
            },
        };
        let n = &mut nodes[ni];
        let i = topo
            .add_node_in(&n.name.to_string(), n.op.kind(), scope)
            .expect("node names were checked to be unique");
        n.scope = scope;
        if let NodeOp::Repeat(r) = &mut n.op {
            let count = quote::ToTokens::to_token_stream(&r.count.expr).to_string();
            r.scope = topo.add_body(i, &format!("repeat {} in 0..{count}", r.var));
        }
        if let NodeOp::Conditional(c) = &mut n.op {
            for b in 0..c.size {
                let label = match (c.op, c.size) {
                    (crate::model::CondOp::Switch, _) => format!("case {b}"),
                    (crate::model::CondOp::While, _) => "while".to_owned(),
                    (_, 1) => "if".to_owned(),
                    (_, _) if b == 0 => "then".to_owned(),
                    _ => "else".to_owned(),
                };
                let s = topo.add_body(i, &label);
                if b == 0 {
                    c.first = s;
                }
            }
        }
    }
    topo
}

/// The order `build` adds nodes in: the graph's own nodes in dependency order, each
/// conditional node followed by its bodies' nodes (the body exists once its node does).
pub(super) fn build_order(topo: &Topology) -> Vec<usize> {
    let bodies = topo.body_count();
    let mut by_scope: Vec<Vec<u32>> = vec![Vec::new(); bodies + 1];
    for v in topo.order() {
        by_scope[topo.scope(v) as usize].push(v);
    }
    let mut owned: HashMap<u32, Vec<u32>> = HashMap::new();
    for s in 1..=bodies as u32 {
        owned
            .entry(topo.owner(s).expect("a body has an owner"))
            .or_default()
            .push(s);
    }
    fn emit(s: u32, by_scope: &[Vec<u32>], owned: &HashMap<u32, Vec<u32>>, out: &mut Vec<usize>) {
        for &v in &by_scope[s as usize] {
            out.push(v as usize);
            for &b in owned.get(&v).map_or(&[][..], Vec::as_slice) {
                emit(b, by_scope, owned, out);
            }
        }
    }
    let mut out = Vec::with_capacity(topo.len());
    emit(0, &by_scope, &owned, &mut out);
    out
}

/// `cond name = default;`: a unique name and a constant default.
pub(super) fn check_cond_decl(conds: &mut Vec<Cond>, c: ast::CondDecl, errors: &mut Errors) {
    if conds.iter().any(|o| o.name == c.name) {
        errors.at(
            c.name.span(),
            format!(
                "the condition `{}` is declared twice; remove one declaration",
                c.name
            ),
        );
        return;
    }
    if let Some(d) = &c.default {
        let names = crate::lower::free_idents(quote::ToTokens::to_token_stream(d));
        if let Some(id) = names.first() {
            errors.at(
                id.span(),
                format!(
                    "the default of condition `{}` is a constant (`cond {} = 1;`); `{id}` is no constant: a condition handle is made once, when the graph is built",
                    c.name, c.name
                ),
            );
        }
    }
    conds.push(Cond {
        name: c.name,
        on: c.on,
        default: c.default,
        conditional: None,
        setters: Vec::new(),
    });
}

/// Every condition decides one conditional node and is set by a kernel that can reach it:
/// one in the scope of its conditional node, or in a body nested in it. A WHILE with an
/// iteration limit always ends (the runtime's kernel, the last of its body, sets its condition
/// to 0 at the limit), so no kernel of the graph has to set it; those that do still sit where
/// they can.
pub(super) fn check_conds(model: &Graph, errors: &mut Errors) {
    for c in &model.conds {
        let limited = c.conditional.is_some_and(
            |o| matches!(&model.nodes[o].op, NodeOp::Conditional(w) if w.limit.is_some()),
        );
        let Some(owner) = c.conditional else {
            errors.at(
                c.name.span(),
                format!(
                    "condition `{}` is declared but no `if`, `while` or `switch` uses it; use it in one or remove it",
                    c.name
                ),
            );
            continue;
        };
        let owner_name = &model.nodes[owner].name;
        if c.setters.is_empty() && !limited {
            let counted = match &model.nodes[owner].op {
                NodeOp::Conditional(w) if w.op == CondOp::While => format!(
                    ", or end the loop after a number of iterations: `while {}, max n {{ ... }}`",
                    c.name
                ),
                _ => String::new(),
            };
            errors.at(
                c.name.span(),
                format!(
                    "condition `{}` is never passed to a kernel, so nothing sets it and `{owner_name}` always sees its default; pass it to the kernel that decides (a parameter of type `Cond`, set on the device with `cudaGraphSetConditional`){counted}",
                    c.name
                ),
            );
            continue;
        }
        let home = model.topo.scope(owner as u32);
        if let NodeOp::Conditional(w) = &model.nodes[owner].op {
            if w.op == CondOp::While && w.limit.is_none() {
                check_loop_ends(model, c, owner, w, errors);
            }
        }
        for &k in &c.setters {
            // The scopes around the setter, innermost first.
            let mut s = model.nodes[k].scope;
            let inside = loop {
                if s == home {
                    break true;
                }
                match model.topo.owner(s) {
                    Some(o) => s = model.topo.scope(o),
                    None => break false,
                }
            };
            if !inside {
                let where_ = match model.topo.owner(home) {
                    Some(o) => format!("inside the body of `{}`", model.nodes[o as usize].name),
                    None => "at the top of the graph".to_owned(),
                };
                errors.at(
                    model.nodes[k].name.span(),
                    format!(
                        "node `{}` sets condition `{}`, which decides `{owner_name}` {where_}; only nodes there (or in bodies nested there) can set it",
                        model.nodes[k].name, c.name
                    ),
                );
            }
        }
    }
}

/// A WHILE node whose condition no node of its body (nested bodies included) sets runs forever
/// once it starts.
fn check_loop_ends(model: &Graph, c: &Cond, owner: usize, w: &Conditional, errors: &mut Errors) {
    let topo = &model.topo;
    if c.setters
        .iter()
        .any(|&k| within(topo, model.nodes[k].scope, w.first))
    {
        return;
    }
    let outside: Vec<String> = c
        .setters
        .iter()
        .map(|&k| format!("`{}`", model.nodes[k].name))
        .collect();
    errors.at(
        w.keyword,
        format!(
            "`{}` can never stop once it starts: no node inside its body sets `{}` (only {}, outside the loop, does); pass `{}` to a kernel inside the body that decides whether to go on, or give the loop a limit: `while {}, max n {{ ... }}`",
            model.nodes[owner].name,
            c.name,
            outside.join(", "),
            c.name,
            c.name
        ),
    );
}

/// Whether scope `inner` is scope `outer` or a body nested in it.
pub(super) fn within(topo: &Topology, mut inner: u32, outer: u32) -> bool {
    loop {
        if inner == outer {
            return true;
        }
        match topo.owner(inner) {
            Some(o) => inner = topo.scope(o),
            None => return false,
        }
    }
}

/// The node that stands for node `i` in scope `s`: `i` itself, or the conditional node of `s`
/// whose bodies hold it; `None` when `i` is not in `s` or a body nested in it.
pub(super) fn lift_to(topo: &Topology, mut i: u32, s: u32) -> Option<u32> {
    loop {
        if topo.scope(i) == s {
            return Some(i);
        }
        i = topo.owner(topo.scope(i))?;
    }
}

/// Why the body of WHILE node `w` may run zero times the first time `w` runs in a launch, or
/// `None` when it provably runs at least once then: its condition's default is a non-zero
/// literal (applied at every launch) and every node that sets the condition outside `w`'s body
/// runs after `w`. (Inside another loop's body, `w` may start again with its condition left at
/// 0, but what its first run wrote stays written: this is enough for initialisation.)
pub(super) fn may_skip(g: &Graph, reach: &Reach, w: usize) -> Option<String> {
    let NodeOp::Conditional(c) = &g.nodes[w].op else {
        return Some(String::new());
    };
    let (topo, cond, name) = (&g.topo, &g.conds[c.cond], &g.nodes[w].name);
    let default = match &cond.default {
        None => Some(0),
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        })) => i.base10_parse::<u128>().ok(),
        Some(_) => None,
    };
    match default {
        Some(0) => return Some(format!("`{}` starts at 0", cond.name)),
        None => {
            return Some(format!(
                "the default of `{}` is no integer literal, so it may be 0",
                cond.name
            ))
        }
        Some(_) => {}
    }
    let home = topo.scope(w as u32);
    for &k in &cond.setters {
        if within(topo, g.nodes[k].scope, c.first) {
            continue;
        }
        match lift_to(topo, k as u32, home) {
            Some(x) if x != w as u32 && reach.reaches(w as u32, x) => {}
            _ => {
                return Some(format!(
                    "`{}` may set `{}` to 0 before `{name}` starts",
                    g.nodes[k].name, cond.name
                ))
            }
        }
    }
    None
}
