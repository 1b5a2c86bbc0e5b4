//! Errors. Every error that concerns a node names it by the name the user gave it.

use cudarc::driver::DriverError;

use crate::driver::CallError;

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

/// Everything that can go wrong building, instantiating, launching or editing a graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No GPU could be used.
    #[error(transparent)]
    NoGpu(#[from] NoGpu),

    /// A driver call failed.
    #[error("{call} failed{}: {source}", at(node))]
    Driver {
        /// The driver entry point.
        call: &'static str,
        /// The node the call was about, if any.
        node: Option<String>,
        /// The driver's error code.
        source: DriverError,
    },

    /// A kernel source failed to compile.
    #[error("NVRTC could not compile the kernel source: {log}")]
    Compile {
        /// NVRTC's log, or its error when there is no log.
        log: String,
    },

    /// Launch dimensions or shared memory outside what the device or kernel allows.
    #[error("node `{node}`: invalid launch configuration: {reason}")]
    InvalidLaunch {
        /// The kernel node.
        node: String,
        /// What is wrong and what the limit is.
        reason: String,
    },

    /// The arguments given do not match the kernel's parameter list.
    #[error("node `{node}`: {reason}")]
    KernelSignature {
        /// The kernel node.
        node: String,
        /// Which parameter and how it differs.
        reason: String,
    },

    /// A memset or memcpy buffer holds fewer elements than the node transfers.
    #[error("node `{node}`: the {role} buffer holds {len} elements but the node needs {needed}; pass a buffer of at least {needed} elements")]
    BufferTooShort {
        /// The memset or memcpy node.
        node: String,
        /// `"source"` or `"destination"`.
        role: &'static str,
        /// Elements the buffer holds.
        len: usize,
        /// Elements the node transfers.
        needed: usize,
    },

    /// A memset or memcpy of zero elements (the driver does not support them).
    #[error("node `{node}`: the {role} buffer is empty; CUDA graphs cannot hold zero-length copies or memsets")]
    EmptyBuffer {
        /// The memset or memcpy node.
        node: String,
        /// `"source"` or `"destination"`.
        role: &'static str,
    },

    /// A host callback panicked during an earlier launch.
    #[error("host callback `{node}` panicked: {message}")]
    HostCallbackPanicked {
        /// The host node.
        node: String,
        /// The panic payload, when it was a string.
        message: String,
    },

    /// Two nodes of one graph were given the same name.
    #[error("a node named `{name}` already exists in this graph; node names must be unique")]
    DuplicateNode {
        /// The repeated name.
        name: String,
    },

    /// The edge would close a cycle.
    #[error("the edge `{from} -> {to}` would close a cycle: {path}")]
    Cycle {
        /// Source node of the rejected edge.
        from: String,
        /// Target node of the rejected edge.
        to: String,
        /// The cycle, as `a -> b -> a`.
        path: String,
    },

    /// The edge exists already.
    #[error("the edge `{from} -> {to}` exists already")]
    DuplicateEdge {
        /// Source node.
        from: String,
        /// Target node.
        to: String,
    },

    /// The edge to remove does not exist.
    #[error("there is no edge `{from} -> {to}` to remove")]
    NoSuchEdge {
        /// Source node.
        from: String,
        /// Target node.
        to: String,
    },

    /// A node cannot depend on itself.
    #[error("node `{node}` cannot depend on itself")]
    SelfEdge {
        /// The node.
        node: String,
    },

    /// A handle (node or buffer) that belongs to another graph.
    #[error("this {what} handle belongs to another graph")]
    ForeignHandle {
        /// `"node"` or `"buffer"`.
        what: &'static str,
    },

    /// A node added to the template after instantiation, used on the executable graph.
    #[error("node `{node}` was added after the executable graph was made; call `update()` first")]
    NotInstantiated {
        /// The node.
        node: String,
    },

    /// Objects from two different CUDA contexts were mixed.
    #[error("{what} belongs to another CUDA context than the graph")]
    ContextMismatch {
        /// What was from the other context.
        what: &'static str,
    },

    /// A value was given that the driver does not accept.
    #[error("{0}")]
    Invalid(String),

    /// Instantiation failed.
    #[error("instantiating the graph failed{}: {reason} ({source})", at(node))]
    Instantiate {
        /// The node the driver blamed, if any.
        node: Option<String>,
        /// The driver's reason.
        reason: &'static str,
        /// The driver's error code.
        source: DriverError,
    },
}

fn at(node: &Option<String>) -> String {
    match node {
        Some(n) => format!(" for node `{n}`"),
        None => String::new(),
    }
}

impl Error {
    pub(crate) fn call(e: CallError, node: Option<&str>) -> Self {
        Error::Driver {
            call: e.call,
            node: node.map(str::to_owned),
            source: e.code,
        }
    }
}

impl From<CallError> for Error {
    fn from(e: CallError) -> Self {
        Error::call(e, None)
    }
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
