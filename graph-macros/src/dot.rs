//! The graph as DOT text, computed at compile time. Same format as the runtime's
//! `Topology::to_dot`, so a graph built either way prints the same.

use crate::validate::Graph;

pub fn dot(g: &Graph) -> String {
    let mut s = format!("digraph {} {{\n  rankdir=TB;\n", quote(&g.name.to_string()));
    for n in &g.nodes {
        let name = n.name.to_string();
        let kind = kind(&n.op);
        s.push_str(&format!(
            "  {} [label={}, shape={}];\n",
            quote(&name),
            quote(&format!("{name}\\n{}", kind.0)),
            kind.1
        ));
    }
    for &(a, b) in &g.edges {
        s.push_str(&format!(
            "  {} -> {};\n",
            quote(&g.nodes[a].name.to_string()),
            quote(&g.nodes[b].name.to_string())
        ));
    }
    s.push_str("}\n");
    s
}

fn kind(op: &crate::validate::NodeOp) -> (&'static str, &'static str) {
    use crate::validate::NodeOp::*;
    match op {
        Launch { .. } => ("kernel", "box"),
        Memset { .. } => ("memset", "parallelogram"),
        Memcpy { .. } => ("memcpy", "parallelogram"),
        Host { .. } => ("host", "ellipse"),
        Empty => ("empty", "point"),
        Child { .. } => ("child graph", "box3d"),
        Record(_) => ("event record", "diamond"),
        Wait(_) => ("event wait", "diamond"),
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}
