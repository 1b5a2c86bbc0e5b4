//! Node checks: unique names, and each operation lowered by its kind (`crate::kinds`).

use std::collections::HashMap;

use syn::Ident;

use crate::ast;
use crate::lower::Lower;
use crate::model::{Node, Uses};

/// Checks every node; returns the valid ones and the names of those left out.
pub(super) fn check_nodes(
    cx: &mut Lower<'_>,
    decls: Vec<ast::NodeDecl>,
) -> (Vec<Node>, Vec<Ident>) {
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let (mut nodes, mut failed) = (Vec::new(), Vec::new());
    for n in decls {
        if by_name.contains_key(&n.name.to_string()) {
            cx.errors.at(
                n.name.span(),
                format!(
                    "a node named `{}` is already declared; node names must be unique",
                    n.name
                ),
            );
            continue;
        }
        let mut uses = Uses::default();
        let concurrent = n.concurrent;
        match crate::kinds::lower(cx, n.op, &mut uses) {
            Some(op) => {
                by_name.insert(n.name.to_string(), nodes.len());
                nodes.push(Node {
                    name: n.name,
                    op,
                    uses,
                    concurrent,
                });
            }
            None => failed.push(n.name),
        }
    }
    (nodes, failed)
}
