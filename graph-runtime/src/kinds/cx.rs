//! What a setter view of one kind borrows (`NodeCtx`, narrowed from the graph's `Parts`) and, on an
//! executable graph, what keeps its template in step (`Mirror`, `Pending`, and each node's
//! `NodeRec`).

use std::sync::Arc;

use cudarc::driver::CudaContext;

use super::host::Panics;
use super::{Children, Target};
use crate::bind::Bindings;
use crate::driver::{CallResult, Limits, RawExec, RawNode};
use crate::error::DriverFailure;
use cuda_graph_topology::Topology;

/// A node of a template: its driver handle, where its shadow is, and whether the template's
/// copy of its parameters is behind or ahead of the executable graph's.
pub(crate) struct NodeRec {
    pub raw: RawNode,
    /// Its kind's store ([`Stored::STORE`]) and its shadow's slot there.
    pub store: u8,
    pub slot: u32,
    /// The template's shadow holds edits (made through an executable graph) not yet sent to
    /// the template's driver graph.
    pub dirty: bool,
    /// A template-side view was opened on the node since the executable graph last took the
    /// template's parameters: an update copies only these.
    pub stale: bool,
    /// In the template's list of nodes that are `dirty` or `stale` (`Graph::marked`).
    pub marked: bool,
    /// In the executable graph's list of nodes an update must send again (`Pending::sticky`).
    pub sticky: bool,
    /// Kept out of width capping (`Graph::keep_concurrent`).
    pub concurrent: bool,
}

impl NodeRec {
    pub fn new(raw: RawNode, store: u8, slot: u32) -> Self {
        NodeRec {
            raw,
            store,
            slot,
            dirty: false,
            stale: false,
            marked: false,
            sticky: false,
            concurrent: false,
        }
    }

    /// Puts node `index` (this record) in `marked`, the template's list of edited nodes, once.
    #[inline]
    pub fn mark(&mut self, marked: &mut Vec<u32>, index: u32) {
        if !self.marked {
            self.marked = true;
            marked.push(index);
        }
    }
}

/// What an executable graph owes its template and its next update, kept as lists so both are
/// paid per node edited: kernel nodes whose edits the template's shadow has not taken yet, and
/// nodes whose state an update or instantiation does not carry over (disabled nodes, child
/// graphs swapped or edited).
#[derive(Default)]
pub(crate) struct Pending {
    /// Kernel nodes whose shadow is ahead of the template's (`KernelShadow::behind`).
    pub behind: Vec<u32>,
    /// Node indices (`NodeRec::sticky`).
    pub sticky: Vec<u32>,
}

/// On a view of an executable graph: the template's side of the node (its stores, or once
/// narrowed its shadow `T`; its record, and the template's list of edited nodes) and what the
/// executable graph owes it ([`Pending`]).
pub(crate) struct Mirror<'v, T> {
    pub template: &'v mut T,
    pub rec: &'v mut NodeRec,
    pub marked: &'v mut Vec<u32>,
    pub pending: &'v mut Pending,
}

impl<T> Mirror<'_, T> {
    /// Marks node `index` for sending to the template's driver graph.
    #[inline]
    fn dirty(&mut self, index: u32) {
        self.rec.dirty = true;
        self.rec.mark(self.marked, index);
    }
}

/// What a setter view of a node of kind `S` borrows, from the graph (and the executable graph)
/// for the view's life.
pub(crate) struct NodeCtx<'v, 'a, S> {
    pub target: Target<'v, 'a>,
    pub node: RawNode,
    pub ctx: &'v Arc<CudaContext>,
    /// The node's names, read only for error messages.
    pub topo: &'v Topology,
    pub index: u32,
    /// The shadow's slot in its kind's store.
    pub slot: u32,
    pub shadow: &'v mut S,
    /// The template's side, when the view edits an executable graph: its shadows of this kind
    /// (the node's, in `slot`, is looked up only by an edit that writes it at once).
    pub mirror: Option<Mirror<'v, Vec<S>>>,
    pub bindings: &'v Bindings<'a>,
    pub limits: &'v Limits,
    pub panics: &'v Panics,
    pub children: &'v mut Children<'a>,
}

impl<'v, 'a, S> NodeCtx<'v, 'a, S> {
    /// The node's name.
    pub fn name(&self) -> &'v str {
        self.topo.name(self.index)
    }

    /// Makes one driver call for this node, naming the node if it fails.
    #[inline]
    pub fn send(
        &mut self,
        call: impl FnOnce(&mut Target<'v, 'a>) -> CallResult<()>,
    ) -> Result<(), DriverFailure> {
        let name = self.topo.name(self.index);
        call(&mut self.target).map_err(|e| e.at(Some(name)))
    }

    /// Applies `edit` to the template's shadow too, and marks it for sending.
    #[inline]
    pub fn mirror(&mut self, edit: impl FnOnce(&mut S)) {
        if let Some(m) = self.mirror.as_mut() {
            edit(&mut m.template[self.slot as usize]);
            m.dirty(self.index);
        }
    }

    /// After an edit of an executable graph's node that an update or instantiation would not
    /// carry over (a disabled node, a swapped or edited child graph): puts the node on the list
    /// the next update sends again.
    pub fn stick(&mut self) {
        if let Some(m) = self.mirror.as_mut() {
            if !m.rec.sticky {
                m.rec.sticky = true;
                m.pending.sticky.push(self.index);
            }
        }
    }

    /// The executable graph edited (views of the `OnExec` side only).
    pub fn exec(&mut self) -> &mut RawExec<'a> {
        match &mut self.target {
            Target::Exec(e) => e,
            Target::Template(_) => unreachable!("an `OnExec` view targets an executable graph"),
        }
    }
}
