//! A node's setter views on the template ([`Graph::node`]), what a view borrows on either side
//! (`Graph::parts`), and the template's side of the edits made through an executable graph
//! (`Graph::flush`).

use super::Graph;
use crate::driver::{RawExec, RawNode};
use crate::error::{DriverFailure, EditError};
use crate::kinds::{Mirror, NodeHandle, Parts, Pending, Stores, Target};

impl<'a> Graph<'a> {
    /// The setter view of a node of this template. Edits here reach an executable graph made
    /// earlier only through [`GraphExec::update`](crate::GraphExec::update).
    pub fn node<H: NodeHandle>(&mut self, h: H) -> Result<H::OnTemplate<'_, 'a>, EditError> {
        let i = self.index_of(&h)?;
        Ok(h.on_template(self.parts(i, None)))
    }

    /// What a setter view of node `i` borrows: on this template (`exec: None`), or on an
    /// executable graph made from it (its driver graph, its stores, and what it owes the
    /// template; the template's side then keeps in step, see `Mirror`).
    #[inline(always)]
    pub(crate) fn parts<'v>(
        &'v mut self,
        i: u32,
        exec: Option<(&'v mut RawExec<'a>, &'v mut Stores<'a>, &'v mut Pending)>,
    ) -> Parts<'v, 'a> {
        let Graph {
            raw,
            ctx,
            limits,
            topo,
            nodes,
            marked,
            stores,
            bindings,
            children,
            panics,
            ..
        } = self;
        let rec = &mut nodes[i as usize];
        let node = rec.raw;
        let (target, stores, mirror) = match exec {
            Some((e, mine, pending)) => (
                Target::Exec(e),
                mine,
                Some(Mirror {
                    template: stores,
                    rec,
                    marked,
                    pending,
                }),
            ),
            None => {
                // The template's parameters may now differ from the executable graph's.
                rec.stale = true;
                rec.mark(marked, i);
                (Target::Template(raw), stores, None)
            }
        };
        Parts {
            target,
            node,
            ctx,
            topo,
            index: i,
            stores,
            mirror,
            bindings,
            limits,
            panics,
            children,
        }
    }

    /// The name of the node with driver handle `raw`, if it is one of ours.
    pub(crate) fn node_name(&self, raw: Option<RawNode>) -> Option<String> {
        let raw = raw?;
        let i = self.nodes.iter().position(|n| n.raw == raw)?;
        Some(self.topo.name(i as u32).to_owned())
    }

    /// Sends shadow edits made through an executable graph to the template's driver graph
    /// (the marked nodes that are `dirty`). Most updates find none: that look is inlined.
    #[inline]
    pub(crate) fn flush(&mut self) -> Result<(), DriverFailure> {
        let nodes = &self.nodes;
        match self.marked.iter().position(|&i| nodes[i as usize].dirty) {
            None => Ok(()),
            Some(k) => self.flush_from(k),
        }
    }

    /// [`flush`](Self::flush) from the `k`th marked node on.
    #[inline(never)]
    fn flush_from(&mut self, k: usize) -> Result<(), DriverFailure> {
        for &i in &self.marked[k..] {
            let rec = &mut self.nodes[i as usize];
            if rec.dirty {
                self.stores
                    .at(rec.store)
                    .flush_one(rec.slot, &mut self.raw, rec.raw)
                    .map_err(|e| e.at(Some(self.topo.name(i))))?;
                rec.dirty = false;
            }
        }
        Ok(())
    }
}
