//! Compiling kernels as the runtime will, for an architecture, to machine code, on a machine
//! with NVRTC and no GPU: the check `cuda_graph!`'s `check_source` makes, usable from a
//! `cargo test` in CI.

use std::collections::HashMap;
use std::fmt;
use std::io::Write;

use super::compile::{program, Compile};
use crate::driver;
use crate::error::{ModuleError, NoGpu};
use crate::module::{entry_for, parse_entries};

/// A GPU architecture to compile for, by its compute capability: `Arch::SM_90` is `sm_90`
/// (Hopper), `Arch::SM_80` `sm_80` (A100).
///
/// ```
/// use cuda_graph_runtime::check::Arch;
/// assert_eq!(Arch::SM_90.to_string(), "sm_90");
/// assert_eq!(Arch::new(8, 9), Arch::SM_89);
/// assert_eq!(Arch::SM_100.capability(), (10, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch(u32);

impl Arch {
    /// `sm_80` (A100).
    pub const SM_80: Arch = Arch(80);
    /// `sm_86` (A10, RTX 30xx).
    pub const SM_86: Arch = Arch(86);
    /// `sm_89` (L4, L40, RTX 40xx).
    pub const SM_89: Arch = Arch(89);
    /// `sm_90` (H100, H200).
    pub const SM_90: Arch = Arch(90);
    /// `sm_100` (B200).
    pub const SM_100: Arch = Arch(100);
    /// `sm_120` (RTX 50xx).
    pub const SM_120: Arch = Arch(120);

    /// The architecture of compute capability `major.minor`.
    pub const fn new(major: u32, minor: u32) -> Arch {
        Arch(major * 10 + minor)
    }

    /// Its compute capability (major, minor).
    pub const fn capability(self) -> (u32, u32) {
        (self.0 / 10, self.0 % 10)
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.0)
    }
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Checked {
    /// The source compiled to machine code, with every kernel asked for in it.
    Compiled {
        /// The architecture compiled for: the one asked for, or the older one the source is
        /// built for ([`Compile::arch`], a graph's `define __CUDA_ARCH__ = ...;`), whose code a
        /// newer device runs.
        arch: Arch,
        /// NVRTC's warnings (empty when there are none).
        warnings: String,
        /// The size of the machine code, in bytes.
        cubin_bytes: usize,
        /// The PTX NVRTC made on the way.
        ptx: String,
    },
    /// NVRTC is not on this machine: nothing was compiled (the reason was printed).
    Skipped {
        /// Why.
        reason: String,
    },
}

impl Checked {
    /// Whether nothing was compiled, for want of NVRTC.
    pub fn skipped(&self) -> bool {
        matches!(self, Checked::Skipped { .. })
    }
}

/// Compiles `src` as [`compile_with`](crate::compile_with) would for a device of `arch`, but to
/// machine code (a cubin: inline-assembly errors that PTX alone does not show are found) and
/// with no GPU or driver, then checks that each of `kernels` is in it, found as
/// [`Module::function`](crate::Module::function) finds it. An error is what building on such
/// a device would give: [`ModuleError::Compile`] with NVRTC's log,
/// [`ModuleError::NotInSource`], [`ModuleError::MissingHeader`], ...
///
/// NVRTC not found is `Ok(Checked::Skipped)`, with the reason printed on standard error, so
/// that a `cargo test` on a machine without it passes; with `CUDA_GRAPH_REQUIRE_NVRTC=1` it is
/// an error ([`NoGpu::NvrtcNotFound`]). With `CUDA_GRAPH_CHECK_RECORD` set to a file, each
/// source compiled is added to it as a line `sm_90<TAB>path` ([`Compile::file_name`], made
/// absolute): what a CI script can compare with the sources it expects checked.
///
/// ```no_run
/// use cuda_graph_runtime::check::{self, Arch};
/// use cuda_graph_runtime::kernel::Compile;
/// let src = r#"extern "C" __global__ void fill(float* y, float v) { y[threadIdx.x] = v; }"#;
/// let opts = Compile::new().file_name("fill.cu");
/// let done = check::source(Arch::SM_90, src, &opts, &["fill"]).unwrap();
/// assert!(matches!(done, check::Checked::Compiled { .. }) || done.skipped());
/// ```
pub fn source(
    arch: Arch,
    src: &str,
    opts: &Compile<'_>,
    kernels: &[&str],
) -> Result<Checked, ModuleError> {
    if !driver::nvrtc_present() {
        if std::env::var("CUDA_GRAPH_REQUIRE_NVRTC").as_deref() == Ok("1") {
            return Err(NoGpu::NvrtcNotFound.into());
        }
        let reason = format!(
            "{}: `{}` not compiled for {arch}",
            NoGpu::NvrtcNotFound,
            opts.name()
        );
        eprintln!("skipped: {reason}");
        return Ok(Checked::Skipped { reason });
    }
    if let Some(built_for) = opts.arch {
        if built_for / 10 > arch.0 {
            return Err(ModuleError::ArchTooOld {
                built_for,
                arch: arch.0,
            });
        }
    }
    let target = Arch(opts.target(arch.0));
    let out = program(src, opts, &target.to_string(), true)?;
    let entries = parse_entries(&out.ptx);
    let lowered: HashMap<String, String> = out.lowered.into_iter().collect();
    for k in kernels {
        let entry = entry_for(&lowered, &entries, k)?;
        if !entries.contains_key(&entry) {
            let mut all: Vec<String> = entries.keys().cloned().collect();
            all.sort();
            return Err(ModuleError::NotInSource {
                kernel: (*k).to_owned(),
                entry,
                arch: target.0,
                entries: all,
            });
        }
    }
    record(target, opts.name());
    Ok(Checked::Compiled {
        arch: target,
        warnings: out.log.trim().to_owned(),
        cubin_bytes: out.cubin.map_or(0, |c| c.len()),
        ptx: out.ptx,
    })
}

/// A graph's `check_source` (generated by `cuda_graph!` for a graph that names its `source`
/// file), by the graph's name: what [`graphs`] takes.
pub type GraphCheck = (&'static str, fn(Arch) -> Result<Checked, ModuleError>);

/// A graph whose source did not compile for an architecture.
#[derive(Debug, thiserror::Error)]
#[error("graph `{graph}`, {arch}: {error}")]
pub struct Failure {
    /// The graph's name.
    pub graph: &'static str,
    /// The architecture.
    pub arch: Arch,
    /// Why.
    pub error: ModuleError,
}

/// Runs each graph's check for each of `archs`: the first failure, named.
///
/// ```no_run
/// use cuda_graph_runtime::check::{self, Arch};
/// # fn saxpy_check(a: Arch) -> Result<check::Checked, cuda_graph_runtime::error::ModuleError> { unimplemented!() }
/// // In a `#[test]`, with `Saxpy` a graph of `cuda_graph!` that names its `source`:
/// // check::graphs(&[("Saxpy", Saxpy::check_source)], &[Arch::SM_90, Arch::SM_80])
/// if let Err(e) = check::graphs(&[("Saxpy", saxpy_check)], &[Arch::SM_90, Arch::SM_80]) {
///     panic!("{e}");
/// }
/// ```
pub fn graphs(checks: &[GraphCheck], archs: &[Arch]) -> Result<(), Failure> {
    for &(graph, check) in checks {
        for &arch in archs {
            check(arch).map_err(|error| Failure { graph, arch, error })?;
        }
    }
    Ok(())
}

/// Adds `sm_XX<TAB>path` to the file `CUDA_GRAPH_CHECK_RECORD` names, if set (best effort: a
/// record that cannot be written is said on standard error).
fn record(arch: Arch, name: &str) {
    let Some(file) = std::env::var_os("CUDA_GRAPH_CHECK_RECORD") else {
        return;
    };
    let path = std::path::Path::new(name);
    let path = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let line = format!("{arch}\t{}\n", path.display());
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!(
            "cannot add to {}: {e}",
            std::path::Path::new(&file).display()
        );
    }
}

#[cfg(all(test, feature = "nccl"))]
mod tests {
    use super::*;
    use crate::driver::peer_reduce::{defines, ELEMS, OPS, SOURCE};

    /// The peer all-reduce's kernel, one program per element type and reduction as the
    /// runtime builds it (no device API, no toolkit headers, its macros), to machine code.
    #[test]
    fn the_peer_all_reduce_compiles_for_every_element_type_and_reduction() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/driver/peer_reduce.cu");
        for elem in ELEMS {
            for op in OPS {
                let d = defines(elem, op);
                let opts = d.iter().fold(
                    Compile::new()
                        .file_name(path)
                        .no_device_api()
                        .no_toolkit_includes(),
                    |o, (n, v)| o.define(n, v),
                );
                for arch in [Arch::SM_90, Arch::SM_80] {
                    if let Err(e) = source(arch, SOURCE, &opts, &["peer_all_reduce"]) {
                        panic!("ELEM_{elem} OP_{op}, {arch}: {e}");
                    }
                }
            }
        }
    }
}
