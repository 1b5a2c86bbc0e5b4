//! Host callbacks: safe Rust closures run by the driver, with panics caught.
//!
//! The driver calls a C function pointer with a `void*`; here that pointer is a [`HostSlot`]
//! holding the closure, the node's name and the graph's [`PanicSlot`]. A panic in the closure
//! is caught (it must never unwind into the driver), stored, and reported as
//! [`Error::HostCallbackPanicked`](crate::Error::HostCallbackPanicked) by the next launch or
//! synchronize.

use std::any::Any;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::driver::HostParams;
use crate::error::Error;

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
    pub fn take(&self) -> Option<Error> {
        if !self.raised.load(Ordering::Acquire) {
            return None;
        }
        let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        self.raised.store(false, Ordering::Release);
        first
            .take()
            .map(|(node, message)| Error::HostCallbackPanicked { node, message })
    }
}

/// A host callback as the driver sees it.
pub(crate) struct HostSlot<'a> {
    f: Box<dyn Fn() + Send + Sync + 'a>,
    node: String,
    panics: Arc<PanicSlot>,
}

impl<'a> HostSlot<'a> {
    pub fn new(f: Box<dyn Fn() + Send + Sync + 'a>, node: &str, panics: Arc<PanicSlot>) -> Self {
        HostSlot {
            f,
            node: node.to_owned(),
            panics,
        }
    }

    /// Driver parameters that call this slot. The slot must stay alive (and unmoved: it lives
    /// in an `Arc`) for as long as a graph holding these parameters may run.
    pub fn params(self: &Arc<Self>) -> HostParams {
        HostParams {
            fn_: Some(trampoline),
            userData: Arc::as_ptr(self) as *mut c_void,
        }
    }
}

unsafe extern "C" fn trampoline(user: *mut c_void) {
    // SAFETY: `user` is the address of an `Arc<HostSlot>` that the graph (template or
    // executable) keeps alive while any launch that can reach this node is in flight
    // (`GraphExec` synchronizes before dropping or retiring slots).
    let slot = unsafe { &*(user as *const HostSlot<'_>) };
    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (slot.f)())) {
        slot.panics.record(&slot.node, payload);
    }
}
