//! Finding a GPU without panicking, and compiling kernels with NVRTC (`compile`: for a
//! context's device; `check`: for an architecture, on a machine with no GPU).
//!
//! cudarc loads libcuda lazily and panics when it is missing; every function here probes first
//! and returns [`NoGpu`] instead.

use std::sync::Arc;

use cudarc::driver::CudaContext;

use crate::driver;
use crate::error::NoGpu;

pub(crate) mod check;
mod compile;

pub use compile::{
    compile, compile_cached, compile_cached_with, compile_with, nvrtc_available, Compile,
};

/// Checks that the CUDA driver is installed, new enough, and sees device 0.
///
/// ```
/// match cuda_graph_runtime::gpu_available() {
///     Ok(()) => println!("a GPU is here"),
///     Err(why) => println!("no GPU: {why}"),
/// }
/// ```
pub fn gpu_available() -> Result<(), NoGpu> {
    context(0).map(drop)
}

fn probe_driver() -> Result<(), NoGpu> {
    if !driver::driver_present() {
        return Err(NoGpu::DriverNotFound);
    }
    if let Some(symbol) = driver::missing_symbol() {
        return Err(NoGpu::DriverTooOld { symbol });
    }
    Ok(())
}

/// Opens (retains) the primary context of device `ordinal`, or says why there is none.
///
/// Use this instead of `CudaContext::new`, which panics when libcuda is missing.
///
/// ```
/// match cuda_graph_runtime::context(0) {
///     Ok(ctx) => println!("device: {}", ctx.name().unwrap_or_default()),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, NoGpu> {
    probe_driver()?;
    CudaContext::new(ordinal).map_err(|source| NoGpu::NoDevice { ordinal, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe answers, never panics, and agrees with whether libcuda loads. (Under
    /// compute-sanitizer this is also the test binary's instrumented driver call.)
    #[test]
    fn probe_agrees_with_the_driver_library() {
        let present = driver::driver_present();
        match gpu_available() {
            Ok(()) => assert!(present),
            Err(NoGpu::DriverNotFound) => assert!(!present),
            Err(other) => assert!(present, "{other}"),
        }
        if std::env::var("CUDA_GRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
            assert!(gpu_available().is_ok());
        }
    }
}
