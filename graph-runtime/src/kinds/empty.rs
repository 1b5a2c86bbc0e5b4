//! Empty nodes: no work, a join point that orders its dependencies before its dependents.

use super::{kind, Children, Shadow, Target};
use crate::driver::{CallResult, RawGraph, RawNode};
use cuda_graph_topology::NodeKind;

kind!(
    /// An empty node: orders its dependencies before its dependents. Made by
    /// [`Graph::add_empty`](crate::Graph::add_empty).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>, a: cuda_graph_runtime::node::HostNode,
    /// #         b: cuda_graph_runtime::node::HostNode) -> cuda_graph_runtime::Result<()> {
    /// let join = g.add_empty("join", &[&a, &b])?;
    /// # let _ = join; Ok(()) }
    /// ```
    handle EmptyNode<>,
    /// An empty node has no parameters.
    view EmptyMut,
    shadow EmptyShadow,
    kind Empty
);

/// An empty node has no parameters.
#[derive(Clone, Copy)]
pub(crate) struct EmptyShadow;

impl<'a> Shadow<'a> for EmptyShadow {
    const KIND: NodeKind = NodeKind::Empty;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_empty(deps)
    }

    fn apply(&self, _: &mut Target<'_, 'a>, _: RawNode) -> CallResult<()> {
        Ok(())
    }
}
