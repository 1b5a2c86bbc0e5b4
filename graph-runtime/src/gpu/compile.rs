//! Compiling CUDA C with NVRTC as the runtime does: the options ([`Compile`]), the device API
//! included before every source (`device_api.h`), the include directories searched, and the
//! error that names a missing header.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cudarc::driver::CudaContext;

use crate::driver;
use crate::error::{DriverFailure, ModuleError, NoGpu};
use crate::module::Module;

/// The device API, included by NVRTC before every source (`--pre-include`): what the docs tell
/// a kernel to call or name (`cudaGraphSetConditional`, `cudaGridDependencySynchronize`, ...).
pub(crate) const DEVICE_API: &str = include_str!("device_api.h");

/// The name [`DEVICE_API`] has among the program's headers (and in NVRTC's messages).
pub(crate) const DEVICE_API_NAME: &str = "cuda-graph-device-api.h";

/// Whether a name is one a header declares.
type Declares = fn(&str) -> bool;

/// The CUDA headers whose types the device API makes available where NVRTC finds them, each
/// with how to tell a name it declares (for the error when it is missing).
const TYPE_HEADERS: &[(&str, Declares)] = &[
    ("cuda_fp8.h", |n| n.contains("fp8")),
    ("cuda_bf16.h", |n| {
        n.contains("bfloat16") || n.starts_with("__bf")
    }),
    ("cuda_fp16.h", |n| {
        n.contains("half") || n.starts_with("__h")
    }),
];

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
/// Every source is compiled with cuda-graph's device API included first (NVRTC's
/// `--pre-include`; line numbers in NVRTC's messages stay the source's): a kernel calls
/// `cudaGraphSetConditional`, `cudaGridDependencySynchronize` and
/// `cudaTriggerProgrammaticLaunchCompletion`, and names `cudaGraphConditionalHandle`,
/// `__half`, `__nv_bfloat16` and the fp8 types, with no declaration or `#include` of its own
/// (the README's "The device API" says what a declaration of its own does).
///
/// By default the CUDA toolkit's include directory is searched when one is found
/// (`$CUDA_HOME/include`, `$CUDA_PATH/include`, `/usr/local/cuda/include`, then the headers
/// beside the NVRTC library loaded: the toolkit's `include/` above its `lib64/`, or the
/// `nvidia-cuda-runtime-cu12` wheel's beside the `nvidia-cuda-nvrtc-cu12` wheel's), so
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
    no_device_api: bool,
    file_name: Option<&'s str>,
    pub(super) arch: Option<u32>,
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

    /// Does not include cuda-graph's device API before the source: the source declares
    /// `cudaGraphSetConditional` and the rest itself, and includes the half and fp8 headers
    /// it uses. For a file that defines names of its own that the CUDA headers also define
    /// (its own `half`, say).
    pub fn no_device_api(mut self) -> Self {
        self.no_device_api = true;
        self
    }

    /// The name the source has in NVRTC's messages (`kernels/heat.cu(12): error: ...`;
    /// `source.cu` when not given). `cuda_graph!`'s `compile_options` gives the path of the
    /// graph's `source` file. NVRTC also looks beside a file of that name for an
    /// `#include "..."` given neither as a [`header`](Self::header) nor in an include
    /// directory.
    pub fn file_name(mut self, name: &'s str) -> Self {
        self.file_name = Some(name);
        self
    }

    /// The name given by [`file_name`](Self::file_name), if any.
    pub fn file(&self) -> Option<&'s str> {
        self.file_name
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

    /// The name of the source in NVRTC's messages.
    pub(super) fn name(&self) -> &str {
        self.file_name.unwrap_or("source.cu")
    }

    /// The include directories searched: those given, then the toolkit's if found.
    fn search_path(&self) -> Vec<String> {
        let mut dirs = self.include_dirs.clone();
        if !self.no_toolkit_includes {
            dirs.extend(toolkit_include());
        }
        dirs
    }

    /// NVRTC's options for `target` (`compute_90`, or `sm_90` for machine code), searching
    /// `dirs` for includes.
    fn options(&self, target: &str, dirs: &[String]) -> Vec<String> {
        let mut o = vec![format!("--gpu-architecture={target}")];
        if !self.no_device_api {
            o.push(format!("--pre-include={DEVICE_API_NAME}"));
        }
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
        for d in dirs {
            o.push(format!("--include-path={d}"));
        }
        o
    }

    /// The headers handed to NVRTC: the device API, then those given.
    fn program_headers(&self) -> Vec<(&str, &str)> {
        let api = (!self.no_device_api).then_some((DEVICE_API_NAME, DEVICE_API));
        api.into_iter()
            .chain(self.headers.iter().copied())
            .collect()
    }

    /// The architecture the source is compiled for, as `major * 10 + minor` (`90`): the one
    /// given by [`arch`](Self::arch), else `device`'s.
    pub(super) fn target(&self, device: u32) -> u32 {
        self.arch.map_or(device, |a| a / 10)
    }
}

/// The CUDA toolkit's include directory, if one is found: `$CUDA_HOME/include`,
/// `$CUDA_PATH/include`, `/usr/local/cuda/include`, then the headers beside the NVRTC library
/// this process loaded (a toolkit's `include/` above its `lib64/`, the `nvidia-cuda-runtime-cu12`
/// wheel's `include/` beside the `nvidia-cuda-nvrtc-cu12` wheel's `lib/`). The one with
/// `cuda_fp16.h`.
fn toolkit_include() -> Option<String> {
    let mut candidates: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|d| Path::new(&d).join("include"))
        .collect();
    candidates.push("/usr/local/cuda/include".into());
    if let Some(lib) = loaded_nvrtc() {
        if let Some(dir) = lib.parent() {
            candidates.push(dir.join("../include"));
            candidates.push(dir.join("../../include"));
            candidates.push(dir.join("../../cuda_runtime/include"));
        }
    }
    candidates
        .into_iter()
        .find(|d| d.join("cuda_fp16.h").exists())
        .map(|d| d.canonicalize().unwrap_or(d).to_string_lossy().into_owned())
}

/// Where the NVRTC library this process loaded lives (Linux: read from `/proc/self/maps`).
fn loaded_nvrtc() -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| {
            Path::new(p)
                .file_name()
                .and_then(|f| f.to_str())
                .is_some_and(|f| f.starts_with("libnvrtc.") || f.starts_with("libnvrtc64"))
        })
        .map(PathBuf::from)
}

/// What [`program`] made: the driver's compilation and the log.
pub(super) type Program = driver::Compiled;

/// Compiles `src` as `opts` says for `target` (`compute_90`; `sm_90` and `cubin` for machine
/// code), after checking NVRTC's version against [`Compile::toolkit`]. A failure that names a
/// type of a header no include directory holds is [`ModuleError::MissingHeader`].
pub(super) fn program(
    src: &str,
    opts: &Compile<'_>,
    target: &str,
    cubin: bool,
) -> Result<Program, ModuleError> {
    nvrtc_available()?;
    // Also loads the library for the process's life, so that the headers beside it are found.
    let found = driver::nvrtc_version().map_err(|f| ModuleError::Compile { log: f.log })?;
    if let Some(expected) = opts.toolkit {
        if (found.0, found.1) != ((expected / 1000) as i32, ((expected % 1000) / 10) as i32) {
            return Err(ModuleError::Toolkit { expected, found });
        }
    }
    let searched = opts.search_path();
    driver::nvrtc_compile(
        src,
        opts.name(),
        &opts.program_headers(),
        &opts.options(target, &searched),
        &opts.names,
        cubin,
    )
    .map_err(|f| missing_header(opts, &searched, f.log))
}

/// The error for NVRTC's `log`: [`ModuleError::MissingHeader`] when it reports a name of
/// [`TYPE_HEADERS`] undefined and that header is neither given nor in an include directory,
/// [`ModuleError::Compile`] otherwise.
fn missing_header(opts: &Compile<'_>, searched: &[String], log: String) -> ModuleError {
    let present = |h: &str| {
        opts.headers.iter().any(|(n, _)| *n == h)
            || searched.iter().any(|d| Path::new(d).join(h).exists())
    };
    let undefined = log.lines().filter_map(|l| {
        let rest = &l[l.find("identifier \"")? + "identifier \"".len()..];
        let (name, tail) = rest.split_once('"')?;
        tail.trim_start()
            .starts_with("is undefined")
            .then_some(name)
    });
    for name in undefined {
        let header = TYPE_HEADERS.iter().find(|(_, declares)| declares(name));
        if let Some(&(header, _)) = header {
            if !opts.no_device_api && !present(header) {
                return ModuleError::MissingHeader {
                    name: name.to_owned(),
                    header,
                    searched: searched.to_vec(),
                    log,
                };
            }
        }
    }
    ModuleError::Compile { log }
}

/// Compiles `src` with NVRTC as `opts` says, for the context's device, and loads it.
/// A compile error is [`ModuleError::Compile`] with NVRTC's log.
pub fn compile_with(
    ctx: &Arc<CudaContext>,
    src: &str,
    opts: &Compile<'_>,
) -> Result<Module, ModuleError> {
    nvrtc_available()?;
    let (major, minor) = ctx.compute_capability().map_err(|source| DriverFailure {
        call: "cuDeviceGetAttribute",
        node: None,
        source,
    })?;
    let arch = opts.target((major * 10 + minor) as u32);
    let out = program(src, opts, &format!("compute_{arch}"), false)?;
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

    #[test]
    fn the_device_api_comes_first_and_its_name_is_the_pre_include() {
        let o = Compile::new().define("N", "4").options("sm_90", &[]);
        assert_eq!(o[0], "--gpu-architecture=sm_90");
        assert_eq!(o[1], "--pre-include=cuda-graph-device-api.h");
        assert!(o.contains(&"-DN=4".to_owned()));
        let opts = Compile::new().header("a.cuh", "x");
        let h = opts.program_headers();
        assert_eq!(h[0], (DEVICE_API_NAME, DEVICE_API));
        assert_eq!(h[1], ("a.cuh", "x"));
        let off = Compile::new().no_device_api();
        assert!(!off
            .options("sm_90", &[])
            .iter()
            .any(|o| o.contains("pre-include")));
        assert!(off.program_headers().is_empty());
    }

    #[test]
    fn an_undefined_half_type_names_its_header_when_no_directory_has_it() {
        let log = "k.cu(1): error: identifier \"__nv_bfloat16\" is undefined\n".to_owned();
        let opts = Compile::new().no_toolkit_includes();
        match missing_header(&opts, &[], log.clone()) {
            ModuleError::MissingHeader { name, header, .. } => {
                assert_eq!((name.as_str(), header), ("__nv_bfloat16", "cuda_bf16.h"));
            }
            other => panic!("{other}"),
        }
        // Given in memory: NVRTC's own message stands.
        let given = opts.clone().header("cuda_bf16.h", "");
        assert!(matches!(
            missing_header(&given, &[], log.clone()),
            ModuleError::Compile { .. }
        ));
        // A name of no header the device API includes.
        let other = "k.cu(1): error: identifier \"foo\" is undefined\n".to_owned();
        assert!(matches!(
            missing_header(&opts, &[], other),
            ModuleError::Compile { .. }
        ));
        let fp8 = "k.cu(3): error: identifier \"__nv_fp8_e4m3\" is undefined\n".to_owned();
        let e = missing_header(&opts, &[], fp8);
        assert!(
            e.to_string()
                .starts_with("`__nv_fp8_e4m3` comes from `cuda_fp8.h`"),
            "{e}"
        );
        let half = "k.cu(3): error: identifier \"__half\" is undefined\n".to_owned();
        assert!(matches!(
            missing_header(&opts, &[], half),
            ModuleError::MissingHeader {
                header: "cuda_fp16.h",
                ..
            }
        ));
    }

    #[test]
    fn an_architecture_given_is_the_target() {
        assert_eq!(Compile::new().target(90), 90);
        assert_eq!(Compile::new().arch(800).target(90), 80);
    }
}
