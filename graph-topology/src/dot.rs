//! DOT text of a topology: nodes labelled with their names and kinds, conditional bodies as
//! clusters, programmatic edges bold with their port, width capping's ordering edges dashed,
//! a repeat block's carry edges (iteration `l` to `l + 1`) dashed blue.

use std::fmt::Write as _;

use crate::Topology;

impl Topology {
    /// The graph as DOT text, nodes labelled with their names and kinds.
    pub fn to_dot(&self, graph_name: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "digraph {} {{", quote(graph_name));
        let _ = writeln!(s, "  rankdir=TB;");
        self.dot_scope(&mut s, 0, 1);
        for &(a, b) in &self.edges {
            let style = match self.programmatic_port(a, b) {
                Some(p) => format!(" [style=bold, label={}]", quote(p.as_str())),
                None => String::new(),
            };
            let _ = writeln!(
                s,
                "  {} -> {}{style};",
                quote(&self.names[a as usize]),
                quote(&self.names[b as usize])
            );
        }
        for &(a, b) in &self.carries {
            let _ = writeln!(
                s,
                "  {} -> {} [style=dashed, color=blue, label=\"next\", constraint=false];",
                quote(&self.names[a as usize]),
                quote(&self.names[b as usize])
            );
        }
        for &(a, b) in &self.ordering {
            let _ = writeln!(
                s,
                "  {} -> {} [style=dashed];",
                quote(&self.names[a as usize]),
                quote(&self.names[b as usize])
            );
        }
        s.push_str("}\n");
        s
    }
}

pub(crate) fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}
