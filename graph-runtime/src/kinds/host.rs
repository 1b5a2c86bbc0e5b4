//! Host nodes: a safe Rust closure run by the driver, with panics caught.
//!
//! A panic in the closure is caught (it must never unwind into the driver), stored in the
//! graph's [`PanicSlot`], and reported as
//! [`LaunchError::HostCallbackPanicked`](crate::error::LaunchError::HostCallbackPanicked) by the next
//! launch or synchronize.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::{kind, Children, Shadow, Target};
use crate::driver::{CallResult, Callback, RawGraph, RawNode};
use crate::error::{EditError, LaunchError};
use cuda_graph_topology::NodeKind;

kind!(
    /// A host callback node: made by [`Graph::add_host`](crate::Graph::add_host).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>) -> cuda_graph_runtime::Result<()> {
    /// let tell = g.add_host("tell", &[], || println!("step done"))?;
    /// # let _ = tell; Ok(()) }
    /// ```
    handle HostNode<>,
    /// Setters of a host callback node.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         tell: cuda_graph_runtime::node::HostNode) -> cuda_graph_runtime::Result<()> {
    /// exec.node(tell)?.set_callback(|| println!("another message"))?;
    /// # Ok(()) }
    /// ```
    view HostMut,
    shadow HostShadow<'a>,
    kind Host
);

/// The first host-callback panic of a graph since it was last reported.
#[derive(Default)]
pub(crate) struct PanicSlot {
    raised: AtomicBool,
    first: Mutex<Option<(String, String)>>,
}

impl PanicSlot {
    fn record(&self, node: &str, payload: Box<dyn Any + Send>) {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "a panic payload that is not a string".to_owned()
        };
        let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        if first.is_none() {
            *first = Some((node.to_owned(), message));
        }
        self.raised.store(true, Ordering::Release);
    }

    /// The panic recorded since the last call, as an error.
    #[inline]
    pub fn take(&self) -> Option<LaunchError> {
        if !self.raised.load(Ordering::Acquire) {
            return None;
        }
        let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        self.raised.store(false, Ordering::Release);
        first
            .take()
            .map(|(node, message)| LaunchError::HostCallbackPanicked { node, message })
    }
}

/// Where the host callbacks of one graph record their first panic: made with the graph's
/// first host node, so a graph without one allocates nothing for it.
#[derive(Default)]
pub(crate) struct Panics(OnceLock<Arc<PanicSlot>>);

impl Panics {
    /// None yet.
    #[inline]
    pub const fn new() -> Self {
        Panics(OnceLock::new())
    }

    /// The slot, made the first time.
    fn slot(&self) -> &Arc<PanicSlot> {
        self.0.get_or_init(Arc::default)
    }

    /// The panic recorded since the last call, as an error (none without a host node).
    #[inline]
    pub fn take(&self) -> Option<LaunchError> {
        self.0.get()?.take()
    }
}

#[derive(Clone)]
pub(crate) struct HostShadow<'a> {
    cb: Callback<'a>,
}

impl<'a> HostShadow<'a> {
    /// Node `node` running `f`; a panic in `f` is recorded in `panics`.
    pub fn new<F: Fn() + Send + Sync + 'a>(f: F, node: &str, panics: &Panics) -> Self {
        let (node, panics) = (node.to_owned(), panics.slot().clone());
        HostShadow {
            cb: Callback::new(Box::new(move || {
                if let Err(payload) = catch_unwind(AssertUnwindSafe(&f)) {
                    panics.record(&node, payload);
                }
            })),
        }
    }
}

fn send<'a>(t: &mut Target<'_, 'a>, n: RawNode, cb: &Callback<'a>) -> CallResult<()> {
    match t {
        Target::Template(g) => g.set_host(n, cb),
        Target::Exec(e) => e.set_host(n, cb),
    }
}

impl<'a> Shadow<'a> for HostShadow<'a> {
    const KIND: NodeKind = NodeKind::Host;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_host(deps, &self.cb)
    }

    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()> {
        send(t, n, &self.cb)
    }
}

impl<'a, S> HostMut<'_, 'a, S> {
    /// Replaces the closure the node runs. The old closure is kept until no launch can still
    /// call it.
    pub fn set_callback<F: Fn() + Send + Sync + 'a>(&mut self, f: F) -> Result<(), EditError> {
        let new = HostShadow::new(f, self.cx.name(), self.cx.panics);
        let node = self.cx.node;
        self.cx.send(|t| send(t, node, &new.cb))?;
        self.cx.mirror(|m| *m = new.clone());
        *self.cx.shadow = new;
        Ok(())
    }
}

impl<'a> super::SendAgain<Option<&'a (dyn Fn() + Send + Sync + 'a)>>
    for HostMut<'_, 'a, super::OnExec>
{
    fn send_again(
        &mut self,
        f: Option<&'a (dyn Fn() + Send + Sync + 'a)>,
        _: u64,
    ) -> Result<(), EditError> {
        f.map_or(Ok(()), |f| self.set_callback(f))
    }
}
