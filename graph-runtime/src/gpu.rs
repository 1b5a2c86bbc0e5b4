//! Finding a GPU without panicking, and compiling kernels with NVRTC.
//!
//! cudarc loads libcuda lazily and panics when it is missing; every function here probes first
//! and returns [`NoGpu`] instead.

use std::sync::Arc;

use cudarc::driver::CudaContext;

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
/// whose kernels know their parameter lists. The same as [`compile_with`] and
/// [`Compile::new`].
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
    compile_with(ctx, src, &Compile::new())
}

/// How [`compile_with`] builds a source: headers it `#include`s by name, macros defined for it
/// (`-D`), include directories, and the kernels with C++ linkage to find (their name
/// expressions: `scale`, `ops::scale`, `layernorm<float, 256>`), which
/// [`Module::function`] then finds by the same text.
///
/// By default the CUDA toolkit's include directory is searched when one is found
/// (`$CUDA_HOME/include`, `$CUDA_PATH/include`, `/usr/local/cuda/include`), so
/// `#include <cuda_fp16.h>` works as with nvcc.
///
/// One difference from nvcc's code to know about: NVRTC addresses shared memory with 64-bit
/// registers where nvcc uses 32-bit ones, and no option changes it. In a loop that reads shared
/// memory on every step, the extra address arithmetic shows: the Llama decode step of
/// `flagships` was 2% slower on an H100 built by NVRTC than by nvcc, until its inner loops read
/// shared memory through 32-bit addresses (`cvta.to.shared` once, then `ld.shared` with a
/// 32-bit register: `smem_u32` and `lds16` in `flagships/src/llama/stream.cuh`).
///
/// ```no_run
/// # fn main() -> Result<(), cuda_graph_runtime::Error> {
/// use cuda_graph_runtime::kernel::Compile;
/// let ctx = cuda_graph_runtime::context(0)?;
/// let src = r#"#include "scale.cuh"
///     template <typename T, int N> __global__ void scale(T* y) { y[threadIdx.x] *= T(N) * K; }"#;
/// let opts = Compile::new()
///     .header("scale.cuh", "#define K 2")
///     .define("UNUSED", "1")
///     .name_expression("scale<float, 3>");
/// let module = cuda_graph_runtime::compile_with(&ctx, src, &opts)?;
/// let k = module.function("scale<float, 3>")?;   // found by its lowered name
/// # drop(k); Ok(()) }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Compile<'s> {
    headers: Vec<(&'s str, &'s str)>,
    defines: Vec<(&'s str, &'s str)>,
    names: Vec<&'s str>,
    include_dirs: Vec<String>,
    no_toolkit_includes: bool,
    arch: Option<u32>,
    toolkit: Option<u32>,
}

impl<'s> Compile<'s> {
    /// No headers, macros or name expressions; the toolkit's include directory if found.
    pub fn new() -> Self {
        Self::default()
    }

    /// A header the source includes as `#include "name"`, given as text (NVRTC reads no
    /// file for it).
    pub fn header(mut self, name: &'s str, text: &'s str) -> Self {
        self.headers.push((name, text));
        self
    }

    /// Defines macro `name` as `value` (`-D name=value`; an empty value defines it as `1`).
    pub fn define(mut self, name: &'s str, value: &'s str) -> Self {
        self.defines.push((name, value));
        self
    }

    /// A kernel with C++ linkage to find by this text in the module (NVRTC's name expression:
    /// the kernel's qualified name, with template arguments for a template).
    pub fn name_expression(mut self, expr: &'s str) -> Self {
        self.names.push(expr);
        self
    }

    /// A directory searched for `#include`d files.
    pub fn include_dir(mut self, dir: impl Into<String>) -> Self {
        self.include_dirs.push(dir.into());
        self
    }

    /// Does not search the CUDA toolkit's include directory.
    pub fn no_toolkit_includes(mut self) -> Self {
        self.no_toolkit_includes = true;
        self
    }

    /// Compiles for the architecture whose `__CUDA_ARCH__` is `arch` (`900`: `compute_90`)
    /// rather than the device's. What `cuda_graph!`'s `define __CUDA_ARCH__ = 900;` gives, so
    /// the branches of `#if __CUDA_ARCH__ ...` the macro checked are the ones compiled. A
    /// device older than `arch` cannot load the module.
    pub fn arch(mut self, arch: u32) -> Self {
        self.arch = Some(arch);
        self
    }

    /// Defines `CUDA_VERSION` as `version` (`12080`: CUDA 12.8) and refuses to compile with
    /// an NVRTC of another major and minor version ([`ModuleError::Toolkit`]): what
    /// `cuda_graph!`'s `define CUDA_VERSION = 12080;` gives, so the branches on the version
    /// (`CUDA_VERSION`, `__CUDACC_VER_MAJOR__`, ...) the macro checked are the ones compiled.
    pub fn toolkit(mut self, version: u32) -> Self {
        self.toolkit = Some(version);
        self
    }

    fn options(&self, major: i32, minor: i32) -> Vec<String> {
        let target = match self.arch {
            Some(a) => format!("compute_{}{}", a / 100, (a % 100) / 10),
            None => format!("compute_{major}{minor}"),
        };
        let mut o = vec![format!("--gpu-architecture={target}")];
        if let Some(v) = self.toolkit {
            o.push(format!("-DCUDA_VERSION={v}"));
        }
        for (n, v) in &self.defines {
            o.push(if v.is_empty() {
                format!("-D{n}")
            } else {
                format!("-D{n}={v}")
            });
        }
        for d in &self.include_dirs {
            o.push(format!("--include-path={d}"));
        }
        if !self.no_toolkit_includes {
            if let Some(d) = toolkit_include() {
                o.push(format!("--include-path={d}"));
            }
        }
        o
    }
}

/// The CUDA toolkit's include directory, if one is found.
fn toolkit_include() -> Option<String> {
    let candidates = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .map(|d| format!("{d}/include"))
        .chain(std::iter::once("/usr/local/cuda/include".to_owned()));
    candidates
        .into_iter()
        .find(|d| std::path::Path::new(d).join("cuda_fp16.h").exists())
}

/// Compiles `src` with NVRTC as `opts` says, for the context's device, and loads it.
/// A compile error is [`ModuleError::Compile`] with NVRTC's log.
pub fn compile_with(
    ctx: &Arc<CudaContext>,
    src: &str,
    opts: &Compile<'_>,
) -> Result<Module, ModuleError> {
    nvrtc_available()?;
    if let Some(expected) = opts.toolkit {
        let found = driver::nvrtc_version().map_err(|f| ModuleError::Compile { log: f.log })?;
        if (found.0, found.1) != ((expected / 1000) as i32, ((expected % 1000) / 10) as i32) {
            return Err(ModuleError::Toolkit { expected, found });
        }
    }
    let (major, minor) = ctx.compute_capability().map_err(|source| DriverFailure {
        call: "cuDeviceGetAttribute",
        node: None,
        source,
    })?;
    let out = driver::nvrtc_compile(
        src,
        "source.cu",
        &opts.headers,
        &opts.options(major, minor),
        &opts.names,
    )
    .map_err(|f| ModuleError::Compile { log: f.log })?;
    let mut m = Module::from_ptx(ctx, &out.ptx)?;
    m.add_lowered(out.lowered);
    Ok(m)
}

/// [`compile`]s `src` for `ctx` on first use, and hands out the same module after: one module
/// per context and source, kept for the process's life.
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
    compile_cached_with(ctx, src, &Compile::new())
}

/// [`compile_with`] on first use for this context, source and options, the same module
/// after (kept for the process's life). What `cuda_graph!`'s `build_from_source` uses.
pub fn compile_cached_with(
    ctx: &Arc<CudaContext>,
    src: &'static str,
    opts: &Compile<'static>,
) -> Result<Arc<Module>, ModuleError> {
    type Cache = Vec<(usize, usize, Compile<'static>, Arc<Module>)>;
    static CACHE: std::sync::Mutex<Cache> = std::sync::Mutex::new(Vec::new());
    // The cached module holds the context, so its address is never reused by another while
    // the entry exists.
    let key = (Arc::as_ptr(ctx) as usize, src.as_ptr() as usize);
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((.., m)) = cache
        .iter()
        .find(|(c, s, o, _)| (*c, *s) == key && o == opts)
    {
        return Ok(m.clone());
    }
    let m = Arc::new(compile_with(ctx, src, opts)?);
    cache.push((key.0, key.1, opts.clone(), m.clone()));
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
