//! Child graph nodes: a node that runs a copy of another graph.
//!
//! A child node's graph is a [`Graph`](crate::Graph), which the layer above defines; this kind
//! sees it through [`Subgraph`](super::Subgraph), what a parent needs of a child.

use super::{kind, Children, IntoChild, NodeHandle, OnExec, Shadow, Subgraph, Target};
use crate::driver::{CallResult, RawExec, RawGraph, RawNode};
use crate::error::EditError;
use cuda_graph_topology::NodeKind;

kind!(
    /// A child graph node: made by [`Graph::add_child`](crate::Graph::add_child).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>, y: cuda_graph_runtime::buffer::BufMut<u32>)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// let mut sub = g.child_graph()?;            // shares the parent's buffer handles
    /// sub.add_memset("fill", &[], y, 7u32)?;
    /// let node = g.add_child("sub", &[], sub)?;
    /// # let _ = node; Ok(()) }
    /// ```
    handle ChildNode<>,
    /// Setters of a child graph node (on an executable graph only).
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>, node: cuda_graph_runtime::node::ChildNode,
    /// #         y: cuda_graph_runtime::buffer::BufMut<u32>) -> cuda_graph_runtime::Result<()> {
    /// let mut other = exec.graph().child_graph()?;
    /// other.add_memset("fill", &[], y, 8u32)?;   // the same nodes and edges as before
    /// exec.node(node)?.set_graph(other)?;
    /// # Ok(()) }
    /// ```
    view ChildMut,
    shadow ChildShadow,
    kind Child
);

#[derive(Clone, Copy)]
pub(crate) struct ChildShadow {
    /// The child graph (in the parent's `Children`) this side runs.
    pub child: u32,
    /// The one the template node embeds (the driver cloned it when the node was added).
    pub embedded: u32,
    /// The child graph was edited after it was embedded (`GraphExec::edit_child`): the node
    /// must be sent it again after an instantiation or update.
    pub edited: bool,
}

impl<'a> Shadow<'a> for ChildShadow {
    const KIND: NodeKind = NodeKind::Child;

    fn add(
        &self,
        g: &mut RawGraph<'a>,
        deps: &[RawNode],
        children: &Children<'a>,
    ) -> CallResult<RawNode> {
        g.add_child(deps, children.get(self.child).raw())
    }

    /// Child nodes have no parameters to resend: a template node keeps the graph it embeds,
    /// and one swapped on an executable graph is sent again by `reapply`.
    fn apply(&self, _: &mut Target<'_, 'a>, _: RawNode) -> CallResult<()> {
        Ok(())
    }

    fn needs_reapply(&self) -> bool {
        self.child != self.embedded || self.edited
    }

    fn reapply(&self, e: &mut RawExec<'a>, n: RawNode, children: &Children<'a>) -> CallResult<()> {
        if self.needs_reapply() {
            e.set_child(n, children.get(self.child).raw())
        } else {
            Ok(())
        }
    }
}

impl<'a> ChildMut<'_, 'a, OnExec> {
    /// Runs another child graph in this node: a [`Graph`](crate::Graph) of the same nodes and
    /// edges as the one the node was made with (made with
    /// [`child_graph`](crate::Graph::child_graph)). The driver copies its nodes' parameters;
    /// the executable graph keeps it (in place of a child swapped in earlier) and everything
    /// its nodes call.
    pub fn set_graph(&mut self, child: impl IntoChild<'a>) -> Result<(), EditError> {
        let child = child.into_child();
        let cx = &mut self.cx;
        if child.0.context().cu_ctx() != cx.ctx.cu_ctx() {
            return Err(EditError::ContextMismatch {
                what: "the child graph",
            });
        }
        let current = cx.children.get(cx.shadow.child);
        if let Some(difference) = current.topology().differs_from(child.0.topology()) {
            return Err(EditError::ChildShape {
                node: cx.name().to_owned(),
                difference,
            });
        }
        let node = cx.node;
        let name = cx.name();
        cx.exec()
            .set_child(node, child.0.raw())
            .map_err(|e| e.at(Some(name)))?;
        let index = cx
            .children
            .swap_in(cx.shadow.child, cx.shadow.embedded, child);
        cx.shadow.child = index;
        cx.mirror(|m| m.child = index);
        cx.stick();
        Ok(())
    }
}

impl<'a> ChildMut<'_, 'a, OnExec> {
    /// Runs `f` on the template graph this node runs (its nodes' typed views, through its own
    /// handles; edits go into its driver graph), then runs the edited graph in the node (one
    /// driver call, `cuGraphExecChildGraphNodeSetParams`). The graph keeps its nodes and edges.
    /// A graph of captured work cannot be edited this way (`EditError::NotEditable`).
    pub fn edit<R>(
        &mut self,
        f: impl FnOnce(&mut ChildTemplate<'_, 'a>) -> Result<R, EditError>,
    ) -> Result<R, EditError> {
        let cx = &mut self.cx;
        let name = cx.name().to_owned();
        let sub = &mut *cx.children.list[cx.shadow.child as usize].0;
        if !sub.editable() {
            return Err(EditError::NotEditable { node: name });
        }
        let shape = sub.topology().clone();
        let r = f(&mut ChildTemplate { sub })?;
        if let Some(difference) = shape.differs_from(sub.topology()) {
            return Err(EditError::ChildShape {
                node: name,
                difference,
            });
        }
        let node = cx.node;
        let Target::Exec(e) = &mut cx.target else {
            unreachable!("an `OnExec` view targets an executable graph")
        };
        e.set_child(node, cx.children.get(cx.shadow.child).raw())
            .map_err(|e| e.at(Some(&name)))?;
        cx.shadow.edited = true;
        cx.mirror(|m| m.edited = true);
        cx.stick();
        Ok(r)
    }
}

/// The template graph a child node runs, lent by [`ChildMut::edit`]: the setter views of its
/// nodes, reached through the child's own typed handles.
///
/// ```no_run
/// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>, sub: cuda_graph_runtime::node::ChildNode,
/// #         scale: cuda_graph_runtime::node::KernelNode<(cuda_graph_runtime::buffer::BufMut<f32>, f32)>)
/// #   -> cuda_graph_runtime::Result<()> {
/// exec.node(sub)?.edit(|g| g.node(scale)?.set_arg::<1>(3.0))?;
/// # Ok(()) }
/// ```
pub struct ChildTemplate<'v, 'a> {
    sub: &'v mut (dyn Subgraph<'a> + 'a),
}

impl<'a> ChildTemplate<'_, 'a> {
    /// The template-side setter view of node `h` of the child graph.
    pub fn node<H: NodeHandle>(&mut self, h: H) -> Result<H::OnTemplate<'_, 'a>, EditError> {
        match self.sub.template_node(h.node_id()) {
            Some(Ok(parts)) => Ok(h.on_template(parts)),
            Some(Err(e)) => Err(e.into()),
            None => unreachable!("only a template child is lent"),
        }
    }
}
