//! Conditional nodes and their bodies: the topology's scopes, the order `build` adds nodes in
//! (a body's nodes right after their conditional node), and the rules of condition handles.

use std::collections::HashMap;

use cuda_graph_topology::Topology;

use crate::ast;
use crate::model::{Cond, Errors, Graph, Node, NodeOp};

/// The topology of the nodes: a conditional node's bodies become scopes right after it, and
/// each node of a body goes into its scope (recorded in the node and its conditional).
pub(super) fn topology(nodes: &mut [Node], parents: &[Option<(usize, u32)>]) -> Topology {
    let mut topo = Topology::new();
    for ni in 0..nodes.len() {
        let scope = match parents[ni] {
            None => 0,
            Some((p, b)) => match &nodes[p].op {
                NodeOp::Conditional(c) => c.first + b,
                _ => unreachable!("a body's parent is a conditional node"),
            },
        };
        let n = &mut nodes[ni];
        let i = topo
            .add_node_in(&n.name.to_string(), n.op.kind(), scope)
            .expect("node names were checked to be unique");
        n.scope = scope;
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
        default: c.default,
        conditional: None,
        setters: Vec::new(),
    });
}

/// Every condition decides one conditional node and is set by a kernel that can reach it:
/// one in the scope of its conditional node, or in a body nested in it.
pub(super) fn check_conds(model: &Graph, errors: &mut Errors) {
    for c in &model.conds {
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
        if c.setters.is_empty() {
            errors.at(
                c.name.span(),
                format!(
                    "condition `{}` is never passed to a kernel, so nothing sets it and `{owner_name}` always sees its default; pass it to the kernel that decides (a parameter of type `Cond`, set on the device with `cudaGraphSetConditional`)",
                    c.name
                ),
            );
            continue;
        }
        let home = model.topo.scope(owner as u32);
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
