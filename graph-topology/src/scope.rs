//! Conditional bodies: the nodes of a graph that run inside a conditional node (IF, IF/ELSE,
//! WHILE, SWITCH). Each body is a scope: scope 0 is the graph itself, scope `k > 0` is body
//! `k`, owned by one conditional node of the scope around it. Edges stay inside one scope (the
//! driver keeps a body in a graph of its own).
//!
//! A repeat block (`NodeKind::Repeat`, what `cuda_graph!` makes of `repeat l in 0..n { .. }`)
//! owns one body the same way: its nodes, written once, stand for every iteration's. Between
//! two nodes of the body, the edges order one iteration; carry edges
//! ([`add_carry`](Topology::add_carry)) order iteration `l`'s source before iteration
//! `l + 1`'s target. What runs in parallel across iterations is the macro's to decide; here,
//! as for a conditional, the block stands for all its iterations towards the nodes outside.
//!
//! Two nodes of different scopes run one after the other exactly when the nodes that hold them
//! in their closest common scope are ordered, or hold them in different branches of one
//! conditional (an IF/ELSE or a SWITCH runs one branch per launch). Within one body, a WHILE's
//! iterations run one after the other, so only nodes of one iteration can overlap.

use std::fmt::Write as _;

use crate::dot::quote;
use crate::{Reach, Topology, TopologyError};

/// A body: the conditional node that owns it, and its label (`then`, `else`, `case 2`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Body {
    pub owner: u32,
    pub label: String,
}

impl Topology {
    /// Adds a body owned by conditional node `owner`; its scope is returned. Nodes go into it
    /// with [`add_node_in`](Self::add_node_in).
    pub fn add_body(&mut self, owner: u32, label: &str) -> u32 {
        assert!((owner as usize) < self.len(), "node index out of range");
        self.bodies.push(Body {
            owner,
            label: label.to_owned(),
        });
        self.bodies.len() as u32
    }

    /// The scope of node `i`: 0 for the graph itself, or a body.
    #[inline]
    pub fn scope(&self, i: u32) -> u32 {
        self.scopes.get(i as usize).copied().unwrap_or(0)
    }

    /// The conditional node that owns scope `s` (none for scope 0).
    pub fn owner(&self, s: u32) -> Option<u32> {
        s.checked_sub(1).map(|k| self.bodies[k as usize].owner)
    }

    /// The label of scope `s` (`""` for scope 0).
    pub fn body_label(&self, s: u32) -> &str {
        s.checked_sub(1)
            .map_or("", |k| self.bodies[k as usize].label.as_str())
    }

    /// Number of bodies.
    #[inline]
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Adds a carry edge of a repeat block: iteration `l`'s `from` runs before iteration
    /// `l + 1`'s `to` (`from == to` is allowed). Both must be in the body of one repeat node.
    /// Carry edges are not edges of this topology (no cycle can close through them); they are
    /// kept for [`carries`](Self::carries) and drawing.
    pub fn add_carry(&mut self, from: u32, to: u32) -> Result<(), TopologyError> {
        let s = self.scope(from);
        let repeat = self
            .owner(s)
            .is_some_and(|o| self.kind(o) == crate::NodeKind::Repeat);
        if !repeat || self.scope(to) != s {
            return Err(TopologyError::CarryOutsideRepeat {
                from: self.name(from).to_owned(),
                to: self.name(to).to_owned(),
            });
        }
        if self.carries.contains(&(from, to)) {
            return Err(TopologyError::DuplicateEdge {
                from: self.name(from).to_owned(),
                to: self.name(to).to_owned(),
            });
        }
        self.carries.push((from, to));
        Ok(())
    }

    /// The carry edges of every repeat block, in the order they were added.
    pub fn carries(&self) -> &[(u32, u32)] {
        &self.carries
    }

    /// Records that the node just added (index `i`) is in scope `s`.
    #[inline]
    pub(crate) fn put_in_scope(&mut self, i: u32, s: u32) {
        if s != 0 {
            assert!(s as usize <= self.bodies.len(), "no such body");
            self.scopes.resize(i as usize, 0);
            self.scopes.push(s);
        } else if !self.scopes.is_empty() {
            self.scopes.push(0);
        }
    }

    /// Checks that an edge `from -> to` stays in one scope.
    pub(crate) fn check_scope(&self, from: u32, to: u32) -> Result<(), TopologyError> {
        let (a, b) = (self.scope(from), self.scope(to));
        if a == b {
            return Ok(());
        }
        let place = |s: u32| match self.owner(s) {
            None => "the graph itself".to_owned(),
            Some(o) => format!("the {} body of `{}`", self.body_label(s), self.name(o)),
        };
        Err(TopologyError::CrossScope {
            from: self.name(from).to_owned(),
            to: self.name(to).to_owned(),
            from_scope: place(a),
            to_scope: place(b),
        })
    }

    /// The scopes around node `i`, innermost first, each with the node that stands for `i` in
    /// it (`i` itself, then the conditional nodes holding it).
    fn chain(&self, i: u32) -> Vec<(u32, u32)> {
        let mut out = vec![(self.scope(i), i)];
        while let Some(o) = self.owner(out.last().expect("never empty").0) {
            out.push((self.scope(o), o));
        }
        out
    }

    /// Whether nodes `a` and `b` never run at the same time: ordered by a path (lifted to their
    /// closest common scope), or in different branches of one conditional, or one inside a
    /// body of the other. `reach` is [`reach`](Self::reach) of this topology.
    pub fn serial(&self, reach: &Reach, a: u32, b: u32) -> bool {
        if self.scopes.is_empty() {
            return reach.ordered(a, b);
        }
        let (ca, cb) = (self.chain(a), self.chain(b));
        for &(sa, x) in &ca {
            if let Some(&(_, y)) = cb.iter().find(|&&(sb, _)| sb == sa) {
                // `x == y`: both sit in bodies of one conditional (different branches, or one
                // is the conditional itself).
                return x == y || reach.ordered(x, y);
            }
        }
        unreachable!("every chain ends in scope 0")
    }

    /// Writes the nodes of scope `s` and, as clusters, the bodies in it.
    pub(crate) fn dot_scope(&self, out: &mut String, s: u32, indent: usize) {
        let pad = "  ".repeat(indent);
        for i in 0..self.len() as u32 {
            if self.scope(i) == s {
                let kind = self.kind(i);
                let _ = writeln!(
                    out,
                    "{pad}{} [label={}, shape={}];",
                    quote(self.name(i)),
                    quote(&format!("{}\\n{}", self.name(i), kind.as_str())),
                    kind.shape()
                );
            }
        }
        for (k, body) in self.bodies.iter().enumerate() {
            let inner = k as u32 + 1;
            if self.scope(body.owner) == s {
                let _ = writeln!(
                    out,
                    "{pad}subgraph {} {{",
                    quote(&format!("cluster_{inner}"))
                );
                let label = format!("{}: {}", self.name(body.owner), body.label);
                let _ = writeln!(out, "{pad}  label={};", quote(&label));
                let _ = writeln!(out, "{pad}  style=rounded;");
                self.dot_scope(out, inner, indent + 1);
                let _ = writeln!(out, "{pad}}}");
            }
        }
    }
}

impl Topology {
    /// The nodes that stand for `a` and `b` in their closest common scope (`a` and `b`
    /// themselves when they share one), or `None` when one holds the other or both sit in
    /// bodies of one conditional.
    pub fn meeting(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        let (ca, cb) = (self.chain(a), self.chain(b));
        for &(sa, x) in &ca {
            if let Some(&(_, y)) = cb.iter().find(|&&(sb, _)| sb == sa) {
                return (x != y).then_some((x, y));
            }
        }
        None
    }
}
