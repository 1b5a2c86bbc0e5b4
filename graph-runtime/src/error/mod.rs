//! Errors, one enum per operation: building a template ([`BuildError`]), editing a node or a
//! binding ([`EditError`]), launching ([`LaunchError`]), instantiating ([`InstantiateError`]) or
//! updating ([`UpdateError`]) an executable graph, reaching a bound buffer ([`AccessError`]),
//! loading kernels ([`ModuleError`]), capturing work ([`CaptureError`]), using a communicator
//! ([`CommError`]). Every error that
//! concerns a node names it by the name the user gave it. [`Error`] holds any of them, so `?`
//! works across operations, and the errors of cudarc's own calls (the driver, NVRTC, cuBLAS,
//! cuBLASLt, NCCL) convert into it too.
//!
//! The lowest layer of the runtime: it names no other module of the crate.

mod build;
mod comm;
mod cuda;
mod edit;
mod exec;

use cudarc::driver::DriverError;

pub use build::{BuildError, ModuleError};
pub use comm::CommError;
pub use edit::{AccessError, CaptureError, EditError, MemsetHalves};
pub use exec::{InstantiateError, InstantiateReason, LaunchError, UpdateError, UpdateRefusal};

pub use cuda_graph_topology::TopologyError;

/// Why no GPU can be used. Returned by [`gpu_available`](crate::gpu_available) and by every
/// constructor that needs the driver, instead of a panic.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum NoGpu {
    /// The CUDA driver library (libcuda) could not be loaded.
    #[error("the CUDA driver library (libcuda) was not found; install an NVIDIA driver or run on a machine with one")]
    DriverNotFound,
    /// The driver library lacks an entry point the runtime calls.
    #[error("the CUDA driver is too old: it lacks `{symbol}` (CUDA 12.8 or newer is needed)")]
    DriverTooOld {
        /// The missing entry point.
        symbol: &'static str,
    },
    /// The driver loaded but the device could not be opened (no device, or a broken driver).
    #[error("no usable CUDA device {ordinal}: {source}")]
    NoDevice {
        /// The device ordinal that was asked for.
        ordinal: usize,
        /// What the driver said.
        source: DriverError,
    },
    /// The NVRTC library, needed to compile kernels at run time, could not be loaded.
    #[error("the NVRTC library (libnvrtc) was not found; install the CUDA toolkit's NVRTC")]
    NvrtcNotFound,
}

/// A driver call that failed: which entry point, for which node, and what the driver said.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{call} failed{}: {source}", at(node))]
pub struct DriverFailure {
    /// The driver entry point.
    pub call: &'static str,
    /// The node the call was about, if any.
    pub node: Option<String>,
    /// The driver's error code.
    pub source: DriverError,
}

fn at(node: &Option<String>) -> String {
    match node {
        Some(n) => format!(" for node `{n}`"),
        None => String::new(),
    }
}

/// A bound buffer shorter than the length its graph declares for it (`buffer x: [T; len];`
/// in `cuda_graph!`), or a declared length that cannot be computed (it overflows, is
/// negative, or divides by zero), with the params' values at the time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortBuffer {
    /// The buffer's name.
    pub buffer: String,
    /// Which buffer of a stack (`buffer kv[n]: [T; len];`), if it is one.
    pub position: Option<usize>,
    /// The bound buffer's length, in elements.
    pub len: usize,
    /// The declared length as written (`n * 4`).
    pub declared: String,
    /// Its value, or `None` where it could not be computed.
    pub needed: Option<u128>,
    /// The params it uses, with their values (`n = 1024, k = 3`).
    pub values: String,
}

impl std::fmt::Display for ShortBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self.position {
            Some(i) => format!("buffer {i} of stack `{}`", self.buffer),
            None => format!("buffer `{}`", self.buffer),
        };
        let with = if self.values.is_empty() {
            String::new()
        } else {
            format!(" with {}", self.values)
        };
        match self.needed {
            Some(n) => write!(
                f,
                "{name} holds {} elements, fewer than its declared length `{}` = {n}{with}",
                self.len, self.declared
            ),
            None => write!(
                f,
                "{name}: its declared length `{}` cannot be computed{with} (it overflows, is negative or divides by zero)",
                self.declared
            ),
        }
    }
}

impl std::error::Error for ShortBuffer {}

/// A handle that does not name what it should in this graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandleError {
    /// A node or buffer handle of another graph.
    #[error("this {what} handle belongs to another graph")]
    Foreign {
        /// `"node"`, `"buffer"` or `"condition"`.
        what: &'static str,
    },
    /// A free node given a buffer that is not graph-owned memory.
    #[error("this buffer is not graph-owned memory (made by `add_mem_alloc`); only that can be freed by a free node")]
    NotGraphOwned,
    /// Graph-owned memory (a temporary) reached from the host.
    #[error("this buffer is graph-owned memory: it exists only while a launch runs, between its allocation and free nodes; copy what it holds into a bound buffer inside the graph")]
    GraphOwned,
    /// A buffer bound to the parent graph, reached through a child graph.
    #[error(
        "this buffer was bound to the parent graph; reach it through the parent's executable graph"
    )]
    ParentBuffer,
    /// A part of a strided stack reached as a buffer of its own.
    #[error("this buffer is one part of a strided stack (one buffer cut into equal parts): it has no `CudaSlice` of its own and cannot be swapped alone; reach or swap the whole buffer")]
    StackPart,
}

/// Which end of a memset or memcpy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The buffer read.
    Source,
    /// The buffer written.
    Destination,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Source => "source",
            Role::Destination => "destination",
        })
    }
}

/// Any error of this crate: each operation's own error converts into it, so `?` works across
/// operations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No GPU could be used.
    #[error(transparent)]
    NoGpu(#[from] NoGpu),
    /// Compiling or loading kernels failed.
    #[error(transparent)]
    Module(#[from] ModuleError),
    /// Building a template failed.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Editing a node or binding failed.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// Launching failed.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// Instantiating failed.
    #[error(transparent)]
    Instantiate(#[from] InstantiateError),
    /// Updating failed.
    #[error(transparent)]
    Update(#[from] UpdateError),
    /// Reaching a bound buffer failed.
    #[error(transparent)]
    Access(#[from] AccessError),
    /// A communicator failed (feature `nccl`).
    #[error(transparent)]
    Comm(#[from] CommError),
    /// A CUDA driver call made through cudarc failed: an allocation, a copy, a stream or an
    /// event (`stream.clone_htod(..)?`).
    #[error("a CUDA driver call failed: {}", cuda::driver(.0))]
    Driver(#[from] DriverError),
    /// Compiling CUDA C with cudarc's NVRTC (`cudarc::nvrtc::compile_ptx(..)?`) failed.
    #[error("{}", cuda::nvrtc(.0))]
    Nvrtc(#[from] cudarc::nvrtc::CompileError),
    /// A cuBLAS call made through cudarc failed (feature `cublas`).
    #[cfg(feature = "cublas")]
    #[error("a cuBLAS call failed: {:?}", .0 .0)]
    Cublas(#[from] cudarc::cublas::result::CublasError),
    /// A cuBLASLt call made through cudarc failed (feature `cublaslt`).
    #[cfg(feature = "cublaslt")]
    #[error("a cuBLASLt call failed: {:?}", .0 .0)]
    CublasLt(#[from] cudarc::cublaslt::result::CublasError),
    /// An NCCL call made through cudarc failed (feature `nccl`). cudarc's NCCL error is no
    /// `std::error::Error`, so the status is in the message, not in `source()`.
    #[cfg(feature = "nccl")]
    #[error("an NCCL call failed: {}", cuda::nccl(.0))]
    Nccl(cudarc::nccl::result::NcclError),
}

#[cfg(feature = "nccl")]
impl From<cudarc::nccl::result::NcclError> for Error {
    fn from(e: cudarc::nccl::result::NcclError) -> Self {
        Error::Nccl(e)
    }
}

/// What an edit of an executable graph returns (a setter, a view's setter).
pub type EditResult<T = ()> = std::result::Result<T, EditError>;

/// What reaching a bound buffer returns.
pub type AccessResult<T> = std::result::Result<T, AccessError>;

/// The result type of this crate; the error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn were(n: usize) -> &'static str {
    if n == 1 {
        " was"
    } else {
        "s were"
    }
}

/// A launch dimension or shared-memory size outside what the device or the kernel allows: refused
/// when a kernel node is added ([`BuildError`]) and when its launch is edited ([`EditError`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchLimit {
    /// A grid dimension is 0 or above the device's maximum.
    #[error("grid {axis} is {value}; it must be between 1 and {max}")]
    Grid {
        /// `'x'`, `'y'` or `'z'`.
        axis: char,
        /// What was asked.
        value: u32,
        /// The device's maximum.
        max: u32,
    },
    /// A block dimension is 0 or above the device's maximum.
    #[error("block {axis} is {value}; it must be between 1 and {max}")]
    Block {
        /// `'x'`, `'y'` or `'z'`.
        axis: char,
        /// What was asked.
        value: u32,
        /// The device's maximum.
        max: u32,
    },
    /// A block has more threads than the kernel (or device) allows.
    #[error("block {block:?} has {threads} threads; this kernel allows at most {max} per block")]
    Threads {
        /// The block dimensions.
        block: (u32, u32, u32),
        /// Their product.
        threads: u64,
        /// The kernel's maximum.
        max: u64,
    },
    /// More dynamic shared memory than the kernel allows.
    #[error("{bytes} bytes of dynamic shared memory asked; this kernel allows at most {max}")]
    SharedMemory {
        /// What was asked.
        bytes: u32,
        /// The kernel's maximum (raise it with cudarc before adding the kernel's first node).
        max: u32,
    },
}
