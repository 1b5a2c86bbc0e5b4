//! Finding a GPU without panicking, and compiling kernels with NVRTC.
//!
//! cudarc loads libcuda lazily and panics when it is missing; every function here probes first
//! and returns [`NoGpu`] instead.

use std::sync::Arc;

use cudarc::driver::CudaContext;
use cudarc::nvrtc::{self, CompileOptions};

use crate::driver;
use crate::error::{DriverFailure, ModuleError, NoGpu};
use crate::module::Module;

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

/// Checks that NVRTC can be loaded.
pub fn nvrtc_available() -> Result<(), NoGpu> {
    if driver::nvrtc_present() {
        Ok(())
    } else {
        Err(NoGpu::NvrtcNotFound)
    }
}

/// Compiles CUDA C source with NVRTC for the context's device and loads it as a [`Module`],
/// whose kernels know their parameter lists.
///
/// ```no_run
/// # fn main() -> Result<(), cuda_graph_runtime::Error> {
/// let ctx = cuda_graph_runtime::context(0)?;
/// let module = cuda_graph_runtime::compile(
///     &ctx,
///     r#"extern "C" __global__ void fill(float* y, float v, unsigned n) {
///         unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
///         if (i < n) y[i] = v;
///     }"#,
/// )?;
/// let fill = module.function("fill")?;
/// assert_eq!(fill.param_sizes(), Some(&[8, 4, 4][..]));
/// # drop(fill); Ok(()) }
/// ```
pub fn compile(ctx: &Arc<CudaContext>, src: &str) -> Result<Module, ModuleError> {
    nvrtc_available()?;
    let (major, minor) = ctx.compute_capability().map_err(|source| DriverFailure {
        call: "cuDeviceGetAttribute",
        node: None,
        source,
    })?;
    let opts = CompileOptions {
        options: vec![format!("--gpu-architecture=compute_{major}{minor}")],
        ..Default::default()
    };
    let ptx = nvrtc::compile_ptx_with_opts(src, opts).map_err(|e| ModuleError::Compile {
        log: match e {
            nvrtc::CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
            other => other.to_string(),
        },
    })?;
    Module::from_ptx(ctx, &ptx.to_src())
}

/// [`compile`]s `src` for `ctx` on first use, and hands out the same module after: one module
/// per context and source, kept for the process's life. What `cuda_graph!`'s
/// `build_from_source` uses.
///
/// ```no_run
/// # fn main() -> Result<(), cuda_graph_runtime::Error> {
/// static KERNELS: &str = r#"extern "C" __global__ void zero(float* y) { y[threadIdx.x] = 0; }"#;
/// let ctx = cuda_graph_runtime::context(0)?;
/// let a = cuda_graph_runtime::compile_cached(&ctx, KERNELS)?;
/// let b = cuda_graph_runtime::compile_cached(&ctx, KERNELS)?;   // no second compilation
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// # Ok(()) }
/// ```
pub fn compile_cached(
    ctx: &Arc<CudaContext>,
    src: &'static str,
) -> Result<Arc<Module>, ModuleError> {
    type Cache = Vec<(usize, usize, Arc<Module>)>;
    static CACHE: std::sync::Mutex<Cache> = std::sync::Mutex::new(Vec::new());
    // The cached module holds the context, so its address is never reused by another while
    // the entry exists.
    let key = (Arc::as_ptr(ctx) as usize, src.as_ptr() as usize);
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((.., m)) = cache.iter().find(|(c, s, _)| (*c, *s) == key) {
        return Ok(m.clone());
    }
    let m = Arc::new(compile(ctx, src)?);
    cache.push((key.0, key.1, m.clone()));
    Ok(m)
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
