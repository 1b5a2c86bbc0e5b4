//! The driver layer: every call into the CUDA driver, and the types that keep alive what the
//! driver points at.
//!
//! This layer and the argument block (`args`) are the only places with `unsafe` code, and
//! nothing outside this layer touches `cudarc::driver::sys`. What it hands upwards is safe:
//!
//! - [`RawGraph`] and [`RawExec`] own a driver graph and an executable graph, destroy them on
//!   drop, and keep a copy of every function and host callback their nodes call ([`KeepAlive`]), so
//!   the driver never calls into an unloaded module or a freed closure;
//! - a lifetime `'a` on both says how long the host memory and events their nodes point at stay
//!   borrowed ([`HostPtr`], [`EventRef`]); the layers above borrow them for `'a` (see
//!   `Graph<'a>`), so the borrow checker forbids freeing them first;
//! - node parameters are built here, from checked parts: a [`Launchable`] knows its argument
//!   layout matches the kernel's parameter list, a [`Memcpy`] that its host ends are long
//!   enough.
//!
//! Every failed call names its entry point ([`CallError`]), so the layers above can say which
//! call failed and for which node.

mod capture;
mod exec;
pub(crate) mod fp8;
#[cfg(feature = "cublas")]
mod gemm;
mod graph;
mod host;
#[cfg(feature = "cublaslt")]
mod lt;
mod mem;
#[cfg(feature = "nccl")]
pub(crate) mod nccl;
mod nodes;
mod nvrtc;
pub(crate) mod opaque;
mod params;
mod peer;
#[cfg(feature = "nccl")]
pub(crate) mod peer_reduce;
mod probe;
pub(crate) mod vector;

use std::ptr;

use cudarc::driver::sys;
use cudarc::driver::DriverError;

use crate::error::DriverFailure;

pub(crate) use capture::capture;
pub(crate) use exec::{flags, InstantiateFailure, RawExec};
#[cfg(feature = "cublas")]
pub(crate) use gemm::CheckedGemm;
pub(crate) use graph::{CondKind, RawGraph, RawNode};
pub(crate) use host::Callback;
#[cfg(feature = "cublaslt")]
pub use lt::LtConfig;
#[cfg(feature = "cublaslt")]
pub(crate) use lt::{LtAlgo, LtFailure, LtPlan, LtShape, Operand, Operands};
// Each kind's parameters (a new kind's come with it).
pub(crate) use nvrtc::compile as nvrtc_compile;
pub(crate) use nvrtc::version as nvrtc_version;
pub(crate) use nvrtc::Compiled;
pub(crate) use params::*;
pub(crate) use peer::enable_peer_access;
pub(crate) use probe::{
    context_lost, device_limits, driver_present, driver_version, func_info, missing_symbol,
    not_found, nvrtc_present, FuncInfo, Limits,
};

pub(crate) use sys::CUcontext;

/// A failed driver call: which entry point, and what it returned.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallError {
    pub call: &'static str,
    pub code: DriverError,
}

pub(crate) type CallResult<T> = Result<T, CallError>;

impl CallError {
    /// The error the layers above report: the call, the node it was about, the driver's code.
    pub fn at(self, node: Option<&str>) -> DriverFailure {
        DriverFailure {
            call: self.call,
            node: node.map(str::to_owned),
            source: self.code,
        }
    }
}

impl From<CallError> for DriverFailure {
    fn from(e: CallError) -> Self {
        e.at(None)
    }
}

impl From<DriverFailure> for crate::error::LaunchError {
    /// A failure of a launch, upload or wait: [`ContextLost`](crate::error::LaunchError::ContextLost)
    /// when a kernel fault caused it.
    fn from(f: DriverFailure) -> Self {
        if context_lost(f.source) {
            crate::error::LaunchError::ContextLost {
                call: f.call,
                source: f.source,
            }
        } else {
            crate::error::LaunchError::Driver(f)
        }
    }
}

macro_rules! call_error_into {
    ($($e:ident),*) => {$(
        impl From<CallError> for crate::error::$e {
            fn from(e: CallError) -> Self {
                DriverFailure::from(e).into()
            }
        }
    )*};
}
call_error_into!(BuildError, EditError, LaunchError, UpdateError, AccessError);

/// The functions and closures a graph's nodes may call, each kept once.
#[derive(Clone, Default)]
pub(crate) struct KeepAlive<'a> {
    /// A graph calls few functions: a linear scan finds one faster than hashing.
    functions: Vec<cudarc::driver::CudaFunction>,
    callbacks: Vec<Callback<'a>>,
    /// Addresses of `callbacks`.
    callback_ids: std::collections::HashSet<usize>,
    /// How many functions and closures were ever added: a list that kept everything this one
    /// held when it counted `n` still does while the count is `n` (see [`RawExec::keep_all`]).
    added: u64,
}

impl<'a> KeepAlive<'a> {
    /// Keeps `f` (once). Clones it only the first time.
    #[inline]
    pub fn function(&mut self, f: &cudarc::driver::CudaFunction) {
        let raw = f.cu_function();
        if !self.functions.iter().any(|g| g.cu_function() == raw) {
            if self.functions.capacity() == 0 {
                // A shorter path than the first push's growth.
                self.functions = Vec::with_capacity(4);
            }
            self.functions.push(f.clone());
            self.added += 1;
        }
    }

    /// Keeps `c` (once).
    pub fn callback(&mut self, c: &Callback<'a>) {
        if self.callback_ids.insert(c.addr()) {
            self.callbacks.push(c.clone());
            self.added += 1;
        }
    }

    /// How many functions and closures were ever added (none is counted twice).
    pub fn added(&self) -> u64 {
        self.added
    }

    /// Keeps everything `other` keeps.
    pub fn extend(&mut self, other: &KeepAlive<'a>) {
        for f in &other.functions {
            self.function(f);
        }
        for c in &other.callbacks {
            self.callback(c);
        }
    }

    /// Lets go of closures nothing else holds: no node of the graph this list belongs to calls
    /// them any more (every node's current closure is held by its shadow). Only when no launch
    /// that may call them is in flight.
    pub fn release_unshared(&mut self) {
        let ids = &mut self.callback_ids;
        self.callbacks.retain(|c| {
            let keep = c.is_shared();
            if !keep {
                ids.remove(&c.addr());
            }
            keep
        });
    }
}

thread_local! {
    /// The context this thread last made current through [`make_current`].
    static CURRENT: std::cell::Cell<CUcontext> = const { std::cell::Cell::new(ptr::null_mut()) };
}

/// Runs `call` with `ctx` current on this thread (a graph may have moved to another thread).
///
/// The usual path makes no driver call: a thread-local remembers the context this thread last
/// made current. If other code switched contexts behind our back, the driver answers
/// `CUDA_ERROR_INVALID_CONTEXT`; then the context is checked for real and `call` runs again.
#[inline]
pub(crate) fn in_context<T>(ctx: CUcontext, call: impl Fn() -> CallResult<T>) -> CallResult<T> {
    make_current(ctx)?;
    match call() {
        Err(e) if e.code.0 == sys::CUresult::CUDA_ERROR_INVALID_CONTEXT => again(ctx, call),
        r => r,
    }
}

/// `in_context`'s second try, after the driver said the context was not current (kept out of
/// line: setters take the first path).
#[cold]
#[inline(never)]
fn again<T>(ctx: CUcontext, call: impl Fn() -> CallResult<T>) -> CallResult<T> {
    forget_current();
    make_current(ctx)?;
    call()
}

/// Asks the CPU to bring the first two cache lines of `*r` close (a hint, on x86-64; nothing
/// elsewhere): what the next driver call's caller reads after the call before it pushed
/// them out.
#[inline(always)]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (r as *const T).cast::<i8>();
        // SAFETY: a prefetch reads nothing and faults on no address; `p` and the line after
        // it are inside or just past a live value.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// Whether `ctx` is current on this thread, as the last call through [`make_current`] left it.
#[inline(always)]
pub(crate) fn is_current(ctx: CUcontext) -> bool {
    CURRENT.with(|c| c.get()) == ctx
}

/// Forgets which context this thread has current (the driver said it was not the one
/// remembered): the next call checks for real.
pub(crate) fn forget_current() {
    CURRENT.with(|c| c.set(ptr::null_mut()));
}

/// Makes `ctx` current on this thread if it is not already. Unlike cudarc's `bind_to_thread`,
/// it does not report (and clear) errors cudarc recorded earlier.
#[inline]
pub(crate) fn make_current(ctx: CUcontext) -> CallResult<()> {
    if is_current(ctx) {
        return Ok(());
    }
    make_current_checked(ctx)
}

/// Makes `ctx` current, asking the driver what is current instead of trusting the thread-local
/// (other code may have switched contexts, e.g. by creating one). For calls that take a stream:
/// the legacy default stream (a null handle) means "the current context's", so a stale guess
/// would send the work to another context's stream without any error.
pub(crate) fn make_current_checked(ctx: CUcontext) -> CallResult<()> {
    let mut current = ptr::null_mut();
    // SAFETY: `current` is a valid out-pointer.
    check("cuCtxGetCurrent", unsafe {
        sys::cuCtxGetCurrent(&mut current)
    })?;
    if current != ctx {
        // SAFETY: `ctx` is a live context (every caller holds an `Arc<CudaContext>` to it).
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(ctx) })?;
    }
    CURRENT.with(|c| c.set(ctx));
    Ok(())
}

#[inline]
fn check(call: &'static str, r: sys::CUresult) -> CallResult<()> {
    match r {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        code => Err(CallError {
            call,
            code: DriverError(code),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alive_keeps_each_closure_once_and_lets_go_of_unshared_ones() {
        let (a, b) = (
            Callback::new(Box::new(|| {})),
            Callback::new(Box::new(|| {})),
        );
        let mut k = KeepAlive::default();
        k.callback(&a);
        k.callback(&a);
        k.callback(&b);
        assert_eq!(k.callbacks.len(), 2);
        let mut other = KeepAlive::default();
        other.extend(&k);
        other.extend(&k);
        assert_eq!(other.callbacks.len(), 2);
        // `b` is held by `k`, `other` and this frame; once only `k` holds it, it goes.
        drop(other);
        drop(b);
        k.release_unshared();
        assert_eq!(k.callbacks.len(), 1);
        assert_eq!(k.callbacks[0].addr(), a.addr());
        // A released closure's slot can be taken again.
        k.callback(&Callback::new(Box::new(|| {})));
        assert_eq!(k.callbacks.len(), 2);
    }
}
