//! Conditional nodes and their bodies: condition handles, IF, IF/ELSE, WHILE and SWITCH
//! nodes, and adding nodes inside a body.

use super::add::Deps;
use super::Graph;
use crate::args::Cond;
use crate::driver::{self, CondKind};
use crate::error::{BuildError, HandleError};
use crate::id::Dep;
use crate::kinds::cond::{Body, CondNode, CondShadow};

/// IF/ELSE and SWITCH nodes need a CUDA 12.8 driver.
const IF_ELSE_SWITCH: u32 = 12080;

impl<'a> Graph<'a> {
    /// Makes a condition handle for a conditional node of the scope nodes are being added to
    /// (the graph itself, or the body [`in_body`](Self::in_body) is filling). Every launch of
    /// the graph starts it at `default`; kernels change it with `cudaGraphSetConditional`.
    pub fn add_condition(&mut self, default: u32) -> Result<Cond, BuildError> {
        let raw = self.raw.create_condition(default)?;
        Ok(Cond {
            graph: self.id,
            raw,
            scope: self.raw.scope(),
            default,
        })
    }

    /// Adds an IF node: its body runs when `cond` is non-zero.
    pub fn add_if(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        cond: Cond,
    ) -> Result<(CondNode, Body), BuildError> {
        let (n, first) = self.add_conditional(name, Deps::Handles(deps), cond, CondKind::If, 1)?;
        Ok((n, self.body_at(first)))
    }

    /// Adds an IF/ELSE node: its first body runs when `cond` is non-zero, its second when it is
    /// zero. Needs a CUDA 12.8 driver ([`BuildError::DriverTooOld`] otherwise).
    pub fn add_if_else(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        cond: Cond,
    ) -> Result<(CondNode, [Body; 2]), BuildError> {
        let (n, first) = self.add_conditional(name, Deps::Handles(deps), cond, CondKind::If, 2)?;
        Ok((n, [self.body_at(first), self.body_at(first + 1)]))
    }

    /// Adds a WHILE node: its body runs again and again while `cond` is non-zero (checked
    /// before each iteration; a kernel in the body clears it to stop).
    pub fn add_while(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        cond: Cond,
    ) -> Result<(CondNode, Body), BuildError> {
        let (n, first) =
            self.add_conditional(name, Deps::Handles(deps), cond, CondKind::While, 1)?;
        Ok((n, self.body_at(first)))
    }

    /// Adds a SWITCH node of `cases` bodies: body `i` runs when `cond` is `i`; none runs for a
    /// value of `cases` or more. Needs a CUDA 12.8 driver.
    pub fn add_switch(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        cond: Cond,
        cases: u32,
    ) -> Result<(CondNode, Vec<Body>), BuildError> {
        let kind = CondKind::Switch;
        let (n, first) = self.add_conditional(name, Deps::Handles(deps), cond, kind, cases)?;
        Ok((n, (0..cases).map(|i| self.body_at(first + i)).collect()))
    }

    fn body_at(&self, scope: u32) -> Body {
        Body {
            graph: self.id,
            scope,
        }
    }

    fn add_conditional(
        &mut self,
        name: &str,
        deps: Deps<'_>,
        cond: Cond,
        kind: CondKind,
        size: u32,
    ) -> Result<(CondNode, u32), BuildError> {
        if cond.graph != self.id {
            return Err(HandleError::Foreign { what: "condition" }.into());
        }
        if cond.scope != self.raw.scope() {
            let made_for = if cond.scope == 0 {
                "the graph itself, not a conditional body"
            } else {
                "another scope (a conditional body)"
            };
            return Err(BuildError::ConditionScope {
                node: name.to_owned(),
                made_for,
            });
        }
        if size == 0 {
            return Err(BuildError::NoCases {
                node: name.to_owned(),
            });
        }
        let feature = match (kind, size) {
            (CondKind::If, 2) => Some("an IF/ELSE node"),
            (CondKind::Switch, _) => Some("a SWITCH node"),
            _ => None,
        };
        if let Some(feature) = feature {
            let found = driver::driver_version().map_err(|e| e.at(Some(name)))?;
            if found < IF_ELSE_SWITCH {
                return Err(BuildError::DriverTooOld {
                    node: name.to_owned(),
                    feature,
                    needed: "12.8".to_owned(),
                    found: format!("{}.{}", found / 1000, found % 1000 / 10),
                });
            }
        }
        let first = self.raw.body_count() as u32 + 1;
        let shadow = CondShadow {
            handle: cond.raw,
            kind,
            size,
            first,
        };
        let at = self.add_node(name, deps, shadow)?;
        let labels: Vec<String> = match (kind, size) {
            (CondKind::If, 1) => vec!["if".into()],
            (CondKind::If, _) => vec!["then".into(), "else".into()],
            (CondKind::While, _) => vec!["while".into()],
            (CondKind::Switch, n) => (0..n).map(|i| format!("case {i}")).collect(),
        };
        for l in &labels {
            self.topo.add_body(at.id.index, l);
        }
        Ok((CondNode::new(at), first))
    }

    /// Runs `f` with this graph adding nodes inside `body`, then goes back to where it was
    /// adding them. Nodes in a body depend only on nodes of the same body; host and event
    /// nodes cannot go there (the driver does not run them in bodies).
    pub fn in_body<R>(
        &mut self,
        body: Body,
        f: impl FnOnce(&mut Self) -> Result<R, BuildError>,
    ) -> Result<R, BuildError> {
        if body.graph != self.id {
            return Err(HandleError::Foreign { what: "body" }.into());
        }
        let back = self.raw.scope();
        self.raw.enter(body.scope);
        let r = f(self);
        self.raw.enter(back);
        r
    }

    /// Makes the next nodes go into scope `scope` (0: the graph itself), for `cuda_graph!`,
    /// which adds bodies in order.
    #[doc(hidden)]
    pub fn enter_scope(&mut self, scope: u32) {
        self.raw.enter(scope);
    }
}
