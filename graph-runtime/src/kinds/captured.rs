//! Captured nodes: work issued on a stream by a closure (a cuBLAS GEMM, a library call),
//! captured into a graph when the node is made and run as a child graph node. Its setter
//! captures the closure again and updates the node in place when the work has the same shape.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use super::child::ChildShadow;
use super::{kind, Children, OnExec, Shadow, Subgraph, Target};
use crate::bind::{Bindings, BufferId, Tracking};
use crate::capture::{Capture, CaptureFn};
use crate::driver::{self, CallResult, RawExec, RawGraph, RawNode};
use crate::error::CaptureError;
use crate::error::{DriverFailure, EditError, LaunchError};
use cuda_graph_topology::{NodeKind, Topology};

kind!(
    /// A captured node: made by [`Graph::add_captured`](crate::Graph::add_captured).
    handle CapturedNode<>,
    /// Setters of a captured node: [`recapture`](CapturedMut::recapture) (on an executable
    /// graph).
    view CapturedMut,
    shadow CapturedShadow,
    kind Captured
);

/// The work of a captured node, kept to capture it again.
pub(crate) struct Stored<'a> {
    pub f: CaptureFn<'a>,
    pub stream: Arc<CudaStream>,
    pub reads: Vec<BufferId>,
    pub writes: Vec<BufferId>,
}

/// What capturing a node's work made: a graph a child node runs.
pub(crate) struct Captured<'a> {
    raw: RawGraph<'a>,
    topo: Topology,
}

impl<'a> Subgraph<'a> for Captured<'a> {
    fn raw(&self) -> &RawGraph<'a> {
        &self.raw
    }
    fn topology(&self) -> &Topology {
        &self.topo
    }
    fn context(&self) -> &Arc<CudaContext> {
        self.raw.context()
    }
    fn take_panic(&self) -> Option<LaunchError> {
        None
    }
    fn tracked(&mut self, _: &CudaStream, f: &mut dyn FnMut() -> Tracking) -> Tracking {
        f()
    }
    fn editable(&self) -> bool {
        false
    }
    fn template_node(
        &mut self,
        _: crate::id::NodeId,
    ) -> Option<Result<super::Parts<'_, 'a>, crate::error::HandleError>> {
        None
    }
}

/// Why capturing failed: the driver, or the work.
pub(crate) enum CaptureFailure {
    Driver(DriverFailure),
    Work(CaptureError),
}

/// Runs `work` under capture: the graph it made, described.
pub(crate) fn capture<'a>(
    ctx: &Arc<CudaContext>,
    work: &mut Stored<'a>,
    bindings: &Bindings<'a>,
    node: &str,
) -> Result<Captured<'a>, CaptureFailure> {
    let Stored {
        f,
        stream,
        reads,
        writes,
    } = work;
    let cx = Capture {
        stream,
        bindings,
        reads,
        writes,
        node,
    };
    let named = |e: driver::CallError| CaptureFailure::Driver(e.at(Some(node)));
    let (raw, r) = driver::capture(ctx, stream, || f(&cx)).map_err(named)?;
    r.map_err(|source| {
        CaptureFailure::Work(match source.downcast::<CaptureError>() {
            Ok(e) => *e,
            Err(source) => CaptureError::Work {
                node: node.to_owned(),
                source,
            },
        })
    })?;
    let topo = raw.describe(node).map_err(named)?;
    if (0..topo.len() as u32)
        .any(|i| matches!(topo.kind(i), NodeKind::MemAlloc | NodeKind::MemFree))
    {
        return Err(CaptureFailure::Work(CaptureError::AllocatesMemory {
            node: node.to_owned(),
        }));
    }
    Ok(Captured { raw, topo })
}

/// The captured graph the node runs (a child node's, in the graph's `Children`), and its work.
#[derive(Clone, Copy)]
pub(crate) struct CapturedShadow {
    pub run: ChildShadow,
    pub work: u32,
}

/// Added, sent and re-sent as a child node.
impl<'a> Shadow<'a> for CapturedShadow {
    const KIND: NodeKind = NodeKind::Captured;

    fn add(
        &self,
        g: &mut RawGraph<'a>,
        deps: &[RawNode],
        children: &Children<'a>,
    ) -> CallResult<RawNode> {
        self.run.add(g, deps, children)
    }

    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()> {
        self.run.apply(t, n)
    }

    fn needs_reapply(&self) -> bool {
        self.run.needs_reapply()
    }

    fn reapply(&self, e: &mut RawExec<'a>, n: RawNode, children: &Children<'a>) -> CallResult<()> {
        self.run.reapply(e, n, children)
    }
}

impl<'a> CapturedMut<'_, 'a, OnExec> {
    /// Captures the node's work again (its closure runs now, reading whatever state it reads)
    /// and updates the node in place. Work of another shape (other nodes or edges) is refused
    /// with [`EditError::ChildShape`], and the node keeps what it ran.
    pub fn recapture(&mut self) -> Result<(), EditError> {
        let cx = &mut self.cx;
        let name = cx.name().to_owned();
        let w = cx.shadow.work as usize;
        let made = capture(cx.ctx, &mut cx.children.works[w], cx.bindings, &name);
        let made = match made {
            Ok(m) => m,
            Err(CaptureFailure::Driver(e)) => return Err(e.into()),
            Err(CaptureFailure::Work(e)) => return Err(EditError::Capture(e)),
        };
        let current = cx.children.get(cx.shadow.run.child);
        if let Some(difference) = current.topology().differs_from(&made.topo) {
            return Err(EditError::ChildShape {
                node: name,
                difference,
            });
        }
        let node = cx.node;
        cx.exec()
            .set_child(node, &made.raw)
            .map_err(|e| e.at(Some(&name)))?;
        let (current, embedded) = (cx.shadow.run.child, cx.shadow.run.embedded);
        let index = cx
            .children
            .swap_in(current, embedded, super::ChildGraph(Box::new(made)));
        cx.shadow.run.child = index;
        cx.mirror(|m| m.run.child = index);
        cx.stick();
        Ok(())
    }
}
