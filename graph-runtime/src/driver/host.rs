//! Host callbacks as the driver sees them: a C function pointer and a `void*`.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::CUDA_HOST_NODE_PARAMS;

/// A closure a host node runs on a driver thread. Cloning shares it. The closure must not
/// unwind: the layer above wraps user closures in `catch_unwind` (an unwind out of the
/// `extern "C"` trampoline would abort the process).
#[derive(Clone)]
pub(crate) struct Callback<'a>(Arc<Box<dyn Fn() + Send + Sync + 'a>>);

impl<'a> Callback<'a> {
    pub fn new(f: Box<dyn Fn() + Send + Sync + 'a>) -> Self {
        Callback(Arc::new(f))
    }

    /// The closure's address: the same for every copy.
    pub fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }

    /// Whether something besides this copy holds the closure.
    pub fn is_shared(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }

    /// Driver parameters that call this closure. They stay valid while a copy of this
    /// `Callback` lives (the `Arc` never moves its contents): the graphs that send them keep one.
    pub(super) fn params(&self) -> CUDA_HOST_NODE_PARAMS {
        CUDA_HOST_NODE_PARAMS {
            fn_: Some(trampoline),
            userData: Arc::as_ptr(&self.0) as *mut c_void,
        }
    }
}

unsafe extern "C" fn trampoline(user: *mut c_void) {
    // SAFETY: `user` is the address of the boxed closure inside a `Callback`'s `Arc`, and every
    // `RawGraph` and `RawExec` whose nodes call it keeps a copy of that `Callback` until no
    // launch can reach the node (see `KeepAlive`).
    let f = unsafe { &*(user as *const Box<dyn Fn() + Send + Sync + '_>) };
    f();
}
