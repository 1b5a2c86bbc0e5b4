//! Building a template and loading kernels.

use cudarc::driver::DriverError;

use super::{
    plural, were, DriverFailure, HandleError, LaunchLimit, MemsetHalves, NoGpu, Role, TopologyError,
};

/// Building a template: [`Graph::new`](crate::Graph::new), binding buffers, adding nodes and
/// edges. The graph is left as it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A driver call failed.
    #[error(transparent)]
    Driver(#[from] DriverFailure),
    /// An 8-byte memset value the driver cannot write.
    #[error(transparent)]
    MemsetHalves(#[from] MemsetHalves),
    /// A handle of another graph.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// Objects from two CUDA contexts were mixed.
    #[error("{what} belongs to another CUDA context than the graph")]
    ContextMismatch {
        /// What was from the other context.
        what: &'static str,
    },
    /// A duplicate node name, a self-edge, a repeated edge, a cycle, or a missing edge.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// A dependency given by index names no node.
    #[error("node `{node}`: no node {index} to depend on: the graph has {len} nodes")]
    UnknownDependency {
        /// The node being added.
        node: String,
        /// The index given.
        index: u32,
        /// Nodes in the graph.
        len: usize,
    },
    /// A node was listed twice among a new node's dependencies.
    #[error("node `{node}`: node `{dependency}` is listed twice as a dependency")]
    RepeatedDependency {
        /// The node being added.
        node: String,
        /// The dependency listed twice.
        dependency: String,
    },
    /// A kernel given a different number of arguments than it has parameters.
    #[error("node `{node}`: the kernel takes {expected} parameter{} but {given} argument{} given", plural(*expected), were(*given))]
    ArgumentCount {
        /// The kernel node.
        node: String,
        /// The kernel's parameters.
        expected: usize,
        /// Arguments given.
        given: usize,
    },
    /// A kernel argument of a different size than its parameter.
    #[error("node `{node}`: argument {index} is {given} bytes but the kernel's parameter {index} is {expected} bytes")]
    ArgumentSize {
        /// The kernel node.
        node: String,
        /// The argument's position.
        index: usize,
        /// The parameter's size.
        expected: usize,
        /// The argument's size.
        given: usize,
    },
    /// Launch dimensions or shared memory outside the device's or the kernel's limits.
    #[error("node `{node}`: invalid launch configuration: {limit}")]
    InvalidLaunch {
        /// The kernel node.
        node: String,
        /// The limit broken.
        limit: LaunchLimit,
    },
    /// A memset, memcpy or collective buffer holds fewer elements than the node transfers.
    #[error("node `{node}`: the {role} buffer holds {len} elements but the node needs {needed}; pass a buffer of at least {needed} elements")]
    BufferTooShort {
        /// The memset or memcpy node.
        node: String,
        /// Which end.
        role: Role,
        /// Elements the buffer holds.
        len: usize,
        /// Elements the node transfers.
        needed: usize,
    },
    /// A memset or memcpy of zero elements or bytes (the driver does not support them).
    #[error("node `{node}`: the {role} buffer is empty; CUDA graphs cannot hold zero-length copies or memsets")]
    EmptyBuffer {
        /// The memset or memcpy node.
        node: String,
        /// Which end.
        role: Role,
    },
    /// A memcpy of a zero-sized element type.
    #[error("node `{node}`: a memcpy of a zero-sized element type copies nothing; CUDA graphs cannot hold zero-length copies")]
    ZeroSizedElement {
        /// The memcpy node.
        node: String,
    },
    /// `debug_dot_print` was given a path with a NUL byte.
    #[error("the DOT path {path:?} contains a NUL byte")]
    NulInPath {
        /// The path.
        path: String,
    },
    /// A kernel could not be loaded from its module.
    #[error(transparent)]
    Module(#[from] ModuleError),
    /// A node of a kind the driver does not run inside conditional bodies.
    #[error("node `{node}`: a {kind} node cannot go inside the body of conditional node `{conditional}`; CUDA runs only kernel, memset, memcpy, empty, child graph and conditional nodes there: add it before or after `{conditional}`")]
    NotInBody {
        /// The node.
        node: String,
        /// Its kind.
        kind: &'static str,
        /// The conditional node whose body it was added to.
        conditional: String,
    },
    /// A node and a dependency on different sides of a conditional body's boundary.
    #[error("node `{node}` cannot depend on `{dependency}`: one is inside a body of conditional node `{conditional}` and the other is not; order work outside a body with an edge to or from `{conditional}`")]
    DependencyOutsideBody {
        /// The node.
        node: String,
        /// The dependency outside the body.
        dependency: String,
        /// The conditional node.
        conditional: String,
    },
    /// The driver is too old for a feature.
    #[error("node `{node}`: {feature} needs a CUDA {needed} driver; this one is CUDA {found}")]
    DriverTooOld {
        /// The node.
        node: String,
        /// The feature.
        feature: &'static str,
        /// The driver version needed (`12.8`).
        needed: String,
        /// The driver's version.
        found: String,
    },
    /// A condition handle given to a conditional node of another scope than the one it was made
    /// in, or of another graph.
    #[error("node `{node}`: this condition handle was made for {made_for}; make one with `add_condition` in the scope the conditional node goes into (inside `in_body` for a nested conditional)")]
    ConditionScope {
        /// The conditional node.
        node: String,
        /// Where the handle was made.
        made_for: &'static str,
    },
    /// Graph-owned memory of zero bytes.
    #[error(
        "node `{node}`: an allocation of zero bytes; graph-owned memory needs at least one element"
    )]
    EmptyAllocation {
        /// The allocation node.
        node: String,
    },
    /// A child graph holding allocation or free nodes.
    #[error("node `{node}`: the child graph holds allocation or free nodes, which CUDA does not allow in a child graph; allocate in the parent graph and pass the buffer in")]
    MemoryNodesInChild {
        /// The child node.
        node: String,
    },
    /// Capturing a captured node's work failed.
    #[error(transparent)]
    Capture(super::CaptureError),
    /// Work cannot be captured on the legacy default stream, or a stream of another context.
    #[error("node `{node}`: {why}; capture on a stream made with `ctx.new_stream()` (and give the library handle that stream)")]
    CaptureStream {
        /// The node.
        node: String,
        /// What is wrong with the stream.
        why: &'static str,
    },
    /// A collective that cannot run as given: a communicator of another device than the
    /// graph, a peer or root outside the communicator, a count of zero, an aborted
    /// communicator.
    #[error("node `{node}`: {why}")]
    Collective {
        /// The collective node.
        node: String,
        /// What is wrong, and what to do.
        why: String,
    },
    /// A memcpy node between this graph's device and a buffer of another device
    /// ([`Graph::bind_peer`](crate::Graph::bind_peer)) that cannot reach it directly.
    #[error("node `{node}`: device {device} cannot access device {peer}'s memory directly (no peer access between them, NVLink or PCIe); place the ranks on devices with peer access, or stage the copy through host memory (a memcpy to a `host_buffer`, then from it)")]
    NoPeerAccess {
        /// The memcpy node.
        node: String,
        /// The graph's device.
        device: usize,
        /// The buffer's device.
        peer: usize,
    },
    /// A WHILE node given a limit of 0 iterations (its body's first iteration runs before any
    /// node of it could stop the loop).
    #[error("WHILE node `{node}`: a limit of 0 iterations; a WHILE's limit is at least 1 (its first iteration runs before the limit is checked)")]
    ZeroWhileLimit {
        /// The WHILE node.
        node: String,
    },
    /// An iteration limit given to a node that is not a WHILE node.
    #[error("node `{node}` is not a WHILE node: only a WHILE takes an iteration limit")]
    NotAWhile {
        /// The node.
        node: String,
    },
    /// A switch with no case.
    #[error("node `{node}`: a switch needs at least one case")]
    NoCases {
        /// The node.
        node: String,
    },
    /// A bound buffer shorter than its declared length (`buffer x: [T; len];`).
    #[error("{0}; bind a buffer at least that long, or build with smaller params")]
    ShortBuffer(#[from] Box<super::ShortBuffer>),
    /// A stack of buffers (one per iteration of a repeat block) of another length than the
    /// graph declares for it.
    #[error("stack `{input}` holds {found} buffer{} but the graph declares {expected} (`buffer {input}[..]`); pass {expected}", plural(*found))]
    StackLength {
        /// The stack input.
        input: String,
        /// The declared count, from the inputs.
        expected: usize,
        /// Buffers given.
        found: usize,
    },
    /// A stack indexed past its end (or below 0) in some iteration.
    #[error("node `{node}`{}: `{input}[{index}]` is outside the stack, which holds {len} buffer{}", iteration.map(|l| format!(" (iteration {l})")).unwrap_or_default(), plural(*len))]
    StackIndex {
        /// The stack input.
        input: String,
        /// The index computed.
        index: i128,
        /// Buffers in the stack.
        len: usize,
        /// The node indexing it.
        node: String,
        /// The iteration of its repeat block, if it is in one.
        iteration: Option<usize>,
    },
    /// A strided stack whose stride does not cut its buffer into equal parts.
    #[error("a strided stack needs a stride above 0 that divides its buffer's {len} elements; {stride} does not")]
    StackStride {
        /// Elements of the buffer.
        len: usize,
        /// The stride given.
        stride: usize,
    },
    /// A repeat block's count that is no `usize` (negative, or too large).
    #[error("repeat block `{block}`: its count {count} is not a number of iterations")]
    RepeatCount {
        /// The block.
        block: String,
        /// The count computed.
        count: i128,
    },
}

/// Compiling or loading kernels.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModuleError {
    /// No GPU (or no NVRTC) can be used.
    #[error(transparent)]
    NoGpu(#[from] NoGpu),
    /// A kernel source failed to compile.
    #[error("NVRTC could not compile the kernel source: {log}")]
    Compile {
        /// NVRTC's log, or its error when there is no log.
        log: String,
    },
    /// The module has no kernel of that name.
    #[error("no kernel named `{name}` in the module: {source}")]
    NoKernel {
        /// The name asked for.
        name: String,
        /// What the driver said.
        source: DriverError,
    },
    /// Several kernels of the module have the C++ name asked for (overloads, or instances
    /// of one template) and none was registered by that name when compiling.
    #[error("several kernels are called `{name}` in the module ({}): ask for one by its mangled name, or compile with `Compile::name_expression(\"{name}<...>\")` and ask by that expression", entries.join(", "))]
    Ambiguous {
        /// The name asked for.
        name: String,
        /// The module's entries of that name (mangled).
        entries: Vec<String>,
    },
    /// The source was checked for another CUDA version than the NVRTC found here (the
    /// graph's `define CUDA_VERSION = ...;`, [`Compile::toolkit`](crate::kernel::Compile::toolkit)):
    /// a branch on the version could be another than the one checked.
    #[error("the kernel source was checked for CUDA {}.{} (`CUDA_VERSION` {expected}), but the NVRTC found here is {}.{}; build with `define CUDA_VERSION = {}{:02}0;` (or the NVRTC of CUDA {}.{})", expected / 1000, (expected % 1000) / 10, found.0, found.1, found.0, found.1, expected / 1000, (expected % 1000) / 10)]
    Toolkit {
        /// The `CUDA_VERSION` checked for.
        expected: u32,
        /// NVRTC's version (major, minor).
        found: (i32, i32),
    },
    /// The source names a type or function of a CUDA header that NVRTC did not find (the half
    /// and fp8 types come from the CUDA toolkit's `cuda_fp16.h`, `cuda_bf16.h`, `cuda_fp8.h`).
    #[error("`{name}` comes from `{header}`, which is in no include directory NVRTC searched ({}): install the CUDA toolkit's headers (or the `nvidia-cuda-runtime-cu12` wheel beside the `nvidia-cuda-nvrtc-cu12` one), set `CUDA_HOME` to the directory that holds their `include/`, or add the directory with `Compile::include_dir`; NVRTC said: {log}", if searched.is_empty() { "none".to_owned() } else { searched.join(", ") })]
    MissingHeader {
        /// The undeclared name, as NVRTC reported it.
        name: String,
        /// The header that declares it.
        header: &'static str,
        /// The include directories searched.
        searched: Vec<String>,
        /// NVRTC's log.
        log: String,
    },
    /// A check for an architecture older than the one the source is built for (the graph's
    /// `define __CUDA_ARCH__ = ...;`, [`Compile::arch`](crate::kernel::Compile::arch)).
    #[error("the kernel source is built for `__CUDA_ARCH__` {built_for} (sm_{}), which a device of sm_{arch} cannot load: check it for sm_{} or newer", built_for / 10, built_for / 10)]
    ArchTooOld {
        /// The `__CUDA_ARCH__` the source is built for (`900`).
        built_for: u32,
        /// The architecture checked (`80` for sm_80).
        arch: u32,
    },
    /// A kernel the graph loads is not in what the source compiled to (left out by an `#if`
    /// for this architecture, say).
    #[error("the kernel source compiled for sm_{arch} has no kernel `{kernel}` (looked for as `{entry}`); its kernels: {}", if entries.is_empty() { "none".to_owned() } else { entries.join(", ") })]
    NotInSource {
        /// The kernel, as the graph names it.
        kernel: String,
        /// The entry looked for (its lowered name, for C++ linkage).
        entry: String,
        /// The architecture compiled for (`90`).
        arch: u32,
        /// The entries the source compiled to.
        entries: Vec<String>,
    },
    /// A driver call failed.
    #[error(transparent)]
    Driver(#[from] DriverFailure),
}

impl From<super::ShortBuffer> for BuildError {
    fn from(e: super::ShortBuffer) -> Self {
        Self::ShortBuffer(Box::new(e))
    }
}
