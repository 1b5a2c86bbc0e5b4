//! Errors, one enum per operation: building a template ([`BuildError`]), editing a node or a
//! binding ([`EditError`]), launching ([`LaunchError`]), instantiating or updating an executable
//! graph ([`UpdateError`]), reaching a bound buffer ([`AccessError`]), loading kernels
//! ([`ModuleError`]). Every error that concerns a node names it by the name the user gave it.
//! [`Error`] holds any of them, so `?` works across operations.

use cudarc::driver::DriverError;

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

/// An 8-byte memset value whose two 4-byte halves differ: the driver fills with at most 4-byte
/// patterns, so it cannot write it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("node `{node}`: a memset fills with a pattern of at most 4 bytes, and the {ty} value {value} has two different 4-byte halves; memset only {ty} values whose halves are equal (0, -1, ...), or write the buffer with a kernel")]
pub struct MemsetHalves {
    /// The memset node.
    pub node: String,
    /// The value, as `Debug` prints it.
    pub value: String,
    /// Its type.
    pub ty: &'static str,
}

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
}

/// A launch dimension or shared-memory size outside what the device or the kernel allows.
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
    /// A memset or memcpy buffer holds fewer elements than the node transfers.
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
    Capture(crate::capture::CaptureError),
    /// Work cannot be captured on the legacy default stream, or a stream of another context.
    #[error("node `{node}`: {why}; capture on a stream made with `ctx.new_stream()` (and give the library handle that stream)")]
    CaptureStream {
        /// The node.
        node: String,
        /// What is wrong with the stream.
        why: &'static str,
    },
    /// A switch with no case.
    #[error("node `{node}`: a switch needs at least one case")]
    NoCases {
        /// The node.
        node: String,
    },
}

/// Editing a node (a setter view) or a binding of a template or an executable graph. A failed
/// edit leaves the node and the binding as they were.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// An 8-byte memset value the driver cannot write (nothing changed).
    #[error(transparent)]
    MemsetHalves(#[from] MemsetHalves),
    /// Building a child graph again (for a changed input that flows into it) failed.
    #[error("node `{node}`: building its child graph again failed: {source}")]
    ChildBuild {
        /// The child node.
        node: String,
        /// Why.
        source: Box<crate::error::Error>,
    },
    /// Capturing a captured node's work again failed.
    #[error(transparent)]
    Capture(crate::capture::CaptureError),
    /// A new size for graph-owned memory larger than what its allocation node holds.
    #[error("temporary `{node}` holds {bytes} bytes, fixed when the graph was built, but the new value needs {needed}; build the graph again for a larger size")]
    TemporaryTooSmall {
        /// The allocation node.
        node: String,
        /// Bytes allocated.
        bytes: usize,
        /// Bytes the new value needs.
        needed: usize,
    },
    /// A driver call failed (the driver refused the new parameters).
    #[error(transparent)]
    Driver(#[from] DriverFailure),
    /// A handle of another graph, or a buffer of the parent graph.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// A node added to the template after instantiation, used on the executable graph.
    #[error("node `{node}` was added after the executable graph was made; call `update()` first")]
    NotInstantiated {
        /// The node.
        node: String,
    },
    /// Objects from two CUDA contexts were mixed.
    #[error("{what} belongs to another CUDA context than the graph")]
    ContextMismatch {
        /// What was from the other context.
        what: &'static str,
    },
    /// Launch dimensions or shared memory outside the device's or the kernel's limits.
    #[error("node `{node}`: invalid launch configuration: {limit}")]
    InvalidLaunch {
        /// The kernel node.
        node: String,
        /// The limit broken.
        limit: LaunchLimit,
    },
    /// A buffer holds fewer elements than the node transfers.
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
    /// A child node whose graph cannot be edited as a template (captured work).
    #[error("node `{node}`: its graph is captured work, which cannot be edited as a template; capture it again with `recapture`")]
    NotEditable {
        /// The node.
        node: String,
    },
    /// A child graph swapped for one of another shape.
    #[error("node `{node}`: the new child graph differs from the one it replaces ({difference}); a child graph can only be swapped for one with the same nodes and edges")]
    ChildShape {
        /// The child node.
        node: String,
        /// How the two differ.
        difference: String,
    },
    /// A buffer swapped with the method of the other access (`swap_buffer` for one bound
    /// writable, or the reverse).
    #[error("a buffer bound {bound} is swapped with `{method}`")]
    SwapKind {
        /// `"writable"` or `"read-only"`.
        bound: &'static str,
        /// The method to use.
        method: &'static str,
    },
}

/// Launching, uploading or waiting for an executable graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchError {
    /// A driver call failed.
    #[error(transparent)]
    Driver(DriverFailure),
    /// A kernel fault (a device-side assert, an illegal address, a trap) left the CUDA context
    /// unusable: this call failed and every later one in that context fails too. Nothing here
    /// panics; drop what was made in the context, and use the GPU again from a new process
    /// (or a new context).
    #[error("{call} failed: {source}; a kernel fault left the CUDA context unusable (every later call in it fails): drop the graphs and buffers made in it and use the GPU from a new process or context")]
    ContextLost {
        /// The driver entry point that reported it.
        call: &'static str,
        /// The driver's error code (e.g. `CUDA_ERROR_ASSERT`).
        source: DriverError,
    },
    /// The stream belongs to another CUDA context than the graph.
    #[error("{what} belongs to another CUDA context than the graph")]
    ContextMismatch {
        /// What was from the other context.
        what: &'static str,
    },
    /// A host callback panicked during an earlier launch (the launch asked for did not happen;
    /// the next one goes ahead).
    #[error("host callback `{node}` panicked: {message}")]
    HostCallbackPanicked {
        /// The host node.
        node: String,
        /// The panic payload, when it was a string.
        message: String,
    },
}

/// Why the driver refused to instantiate a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstantiateReason {
    /// The graph's structure is invalid.
    InvalidStructure,
    /// A node's operation is not supported.
    NodeOperationNotSupported,
    /// Nodes of several contexts.
    MultipleContexts,
    /// The driver gave no further reason.
    Other,
}

impl std::fmt::Display for InstantiateReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InstantiateReason::InvalidStructure => "the graph structure is invalid",
            InstantiateReason::NodeOperationNotSupported => "a node's operation is not supported",
            InstantiateReason::MultipleContexts => "nodes from several contexts are not supported",
            InstantiateReason::Other => "the driver gave no further reason",
        })
    }
}

/// Why the driver refused to update an executable graph in place (then it is instantiated
/// anew, see [`UpdatePath`](crate::UpdatePath)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpdateRefusal {
    /// Nodes or edges were added or removed.
    TopologyChanged,
    /// A node changed kind.
    NodeTypeChanged,
    /// A kernel node's function changed.
    FunctionChanged,
    /// Parameters changed in a way an update cannot apply.
    ParametersChanged,
    /// Something about a node cannot be updated.
    NotSupported,
    /// Another reason the driver gave.
    Other,
}

/// Instantiating a template, or updating an executable graph from it. A failed update leaves
/// the executable graph as it was, and it still launches.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateError {
    /// A driver call failed.
    #[error(transparent)]
    Driver(#[from] DriverFailure),
    /// The driver refused to instantiate the graph.
    #[error("instantiating the graph failed{}: {reason} ({source})", at(node))]
    Instantiate {
        /// The node the driver blamed, if any.
        node: Option<String>,
        /// The driver's reason.
        reason: InstantiateReason,
        /// The driver's error code.
        source: DriverError,
    },
    /// The upload stream belongs to another CUDA context than the graph.
    #[error("{what} belongs to another CUDA context than the graph")]
    ContextMismatch {
        /// What was from the other context.
        what: &'static str,
    },
    /// The update needs a new instantiation, which a graph with allocation nodes cannot have
    /// while this executable graph lives.
    #[error("the update needs a new instantiation ({reason:?}), but the graph holds allocation nodes (graph-owned memory) and CUDA lets such a graph have one executable graph at a time; the executable graph is left as it was: take the template back with `into_graph()` and instantiate it again")]
    MemoryNodes {
        /// Why the update could not be made in place.
        reason: UpdateRefusal,
    },
}

impl EditError {
    /// Building child node `node`'s graph again failed (what `cuda_graph!` setters report).
    #[doc(hidden)]
    pub fn child_build(node: &str, e: Error) -> Self {
        EditError::ChildBuild {
            node: node.to_owned(),
            source: Box::new(e),
        }
    }
}

/// Reaching a bound buffer through an executable graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AccessError {
    /// A handle of another graph, or a buffer of the parent graph.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// Waiting for the running launches failed.
    #[error(transparent)]
    Driver(#[from] DriverFailure),
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
    /// A driver call failed.
    #[error(transparent)]
    Driver(#[from] DriverFailure),
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
    /// Instantiating or updating failed.
    #[error(transparent)]
    Update(#[from] UpdateError),
    /// Reaching a bound buffer failed.
    #[error(transparent)]
    Access(#[from] AccessError),
}

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
