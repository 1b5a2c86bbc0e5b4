//! Event record and event wait nodes.

use cudarc::driver::CudaEvent;

use super::{kind, Children, Shadow, Target};
use crate::driver::{CallResult, EventRef, RawGraph, RawNode};
use crate::error::EditError;
use cuda_graph_topology::NodeKind;

kind!(
    /// An event record node: made by [`Graph::add_event_record`](crate::Graph::add_event_record).
    ///
    /// ```no_run
    /// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, ev: &'a cudarc::driver::CudaEvent)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// let rec = g.add_event_record("done", &[], ev)?;   // another stream can wait for `ev`
    /// # let _ = rec; Ok(()) }
    /// ```
    handle EventRecordNode<>,
    /// Setters of an event record node.
    view EventRecordMut,
    shadow RecordShadow<'a>,
    kind EventRecord
);

kind!(
    /// An event wait node: made by [`Graph::add_event_wait`](crate::Graph::add_event_wait).
    ///
    /// ```no_run
    /// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, ev: &'a cudarc::driver::CudaEvent)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// let wait = g.add_event_wait("after_upload", &[], ev)?;   // work recorded elsewhere first
    /// # let _ = wait; Ok(()) }
    /// ```
    handle EventWaitNode<>,
    /// Setters of an event wait node.
    view EventWaitMut,
    shadow WaitShadow<'a>,
    kind EventWait
);

/// The event a record node records.
#[derive(Clone, Copy)]
pub(crate) struct RecordShadow<'a> {
    pub event: EventRef<'a>,
}

/// The event a wait node waits for.
#[derive(Clone, Copy)]
pub(crate) struct WaitShadow<'a> {
    pub event: EventRef<'a>,
}

impl<'a> Shadow<'a> for RecordShadow<'a> {
    const KIND: NodeKind = NodeKind::EventRecord;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_event_record(deps, self.event)
    }

    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()> {
        match t {
            Target::Template(g) => g.set_event_record(n, self.event),
            Target::Exec(e) => e.set_event_record(n, self.event),
        }
    }
}

impl<'a> Shadow<'a> for WaitShadow<'a> {
    const KIND: NodeKind = NodeKind::EventWait;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_event_wait(deps, self.event)
    }

    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()> {
        match t {
            Target::Template(g) => g.set_event_wait(n, self.event),
            Target::Exec(e) => e.set_event_wait(n, self.event),
        }
    }
}

/// `set_event` on the view of an event node.
macro_rules! event_setter {
    ($view:ident) => {
        impl<'a, S> $view<'_, 'a, S> {
            /// Uses another event. It must belong to the graph's context.
            pub fn set_event(&mut self, event: &'a CudaEvent) -> Result<(), EditError> {
                if event.context().cu_ctx() != self.cx.ctx.cu_ctx() {
                    return Err(EditError::ContextMismatch { what: "the event" });
                }
                let mut new = *self.cx.shadow;
                new.event = EventRef::of(event);
                let node = self.cx.node;
                self.cx.send(|t| new.apply(t, node))?;
                *self.cx.shadow = new;
                self.cx.mirror(|m| *m = new);
                Ok(())
            }
        }
    };
}
event_setter!(EventRecordMut);
event_setter!(EventWaitMut);

impl<'a> super::SendAgain<&'a CudaEvent> for EventRecordMut<'_, 'a, super::OnExec> {
    fn send_again(&mut self, e: &'a CudaEvent, _: u64) -> Result<(), EditError> {
        self.set_event(e)
    }
}

impl<'a> super::SendAgain<&'a CudaEvent> for EventWaitMut<'_, 'a, super::OnExec> {
    fn send_again(&mut self, e: &'a CudaEvent, _: u64) -> Result<(), EditError> {
        self.set_event(e)
    }
}
