//! Conditional nodes: IF (with an optional ELSE body), WHILE and SWITCH, each running bodies
//! (graphs of their own, made by the driver with the node) on the value of a condition handle
//! that kernels set on the device.
//!
//! A body is a scope of the same [`Graph`](crate::Graph): its nodes are added inside
//! [`Graph::in_body`](crate::Graph::in_body), get the same typed handles and setter views as
//! any other, and are edited in place on the executable graph the same way.

use super::{kind, Children, Shadow, Target};
use crate::driver::{CallResult, CondKind, RawGraph, RawNode};
use crate::id::GraphId;
use cuda_graph_topology::NodeKind;

kind!(
    /// A conditional node: made by [`Graph::add_if`](crate::Graph::add_if),
    /// [`add_if_else`](crate::Graph::add_if_else), [`add_while`](crate::Graph::add_while) or
    /// [`add_switch`](crate::Graph::add_switch).
    ///
    /// ```no_run
    /// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, k: &'a cuda_graph_runtime::Kernel,
    /// #         x: cuda_graph_runtime::buffer::BufMut<f32>) -> cuda_graph_runtime::Result<()> {
    /// use cudarc::driver::LaunchConfig;
    /// let go = g.add_condition(1)?;                 // every launch starts at 1
    /// let (lp, body) = g.add_while("loop", &[], go)?;
    /// g.in_body(body, |g| {
    ///     // `step` sets `go` to 0 with `cudaGraphSetConditional` when it is done.
    ///     g.add_kernel("step", &[], k, LaunchConfig::for_num_elems(1), (x, go))
    /// })?;
    /// # let _ = lp; Ok(()) }
    /// ```
    handle CondNode<>,
    /// A conditional node's view: its bodies. Its condition handle is fixed when it is made.
    view CondMut,
    shadow CondShadow,
    kind Conditional
);

/// A body of a conditional node: where [`Graph::in_body`](crate::Graph::in_body) adds nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Body {
    pub(crate) graph: GraphId,
    pub(crate) scope: u32,
}

impl Body {
    /// The body's scope in its graph's [`Topology`](cuda_graph_topology::Topology).
    pub fn scope(&self) -> u32 {
        self.scope
    }
}

/// A conditional node's parameters: fixed when it is made.
#[derive(Clone, Copy)]
pub(crate) struct CondShadow {
    pub handle: u64,
    pub kind: CondKind,
    pub size: u32,
    /// The scope of its first body; the others follow.
    pub first: u32,
}

impl<'a> Shadow<'a> for CondShadow {
    const KIND: NodeKind = NodeKind::Conditional;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        debug_assert_eq!(g.body_count() as u32 + 1, self.first);
        g.add_conditional(deps, self.handle, self.kind, self.size)
    }

    /// Nothing to resend: a conditional node's handle and bodies cannot change.
    fn apply(&self, _: &mut Target<'_, 'a>, _: RawNode) -> CallResult<()> {
        Ok(())
    }
}

impl<S> CondMut<'_, '_, S> {
    /// Number of bodies: 1 for IF and WHILE, 2 for IF/ELSE, the number of cases for SWITCH.
    pub fn body_count(&self) -> u32 {
        self.cx.shadow.size
    }

    /// Body `i` (for IF/ELSE, 0 is the `then` body and 1 the `else` body).
    pub fn body(&self, i: u32) -> Option<Body> {
        (i < self.cx.shadow.size).then(|| Body {
            graph: self.cx.bindings.owner,
            scope: self.cx.shadow.first + i,
        })
    }
}
