//! Editing nodes and bindings, capturing work, reaching bound buffers.

use super::{DriverFailure, Error, HandleError, LaunchLimit, Role};

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
    Capture(super::CaptureError),
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
    /// A WHILE node's limit set to 0 iterations (nothing changed).
    #[error("WHILE node `{node}`: a limit of 0 iterations; a WHILE's limit is at least 1 (its first iteration runs before the limit is checked)")]
    ZeroWhileLimit {
        /// The WHILE node's limit kernel.
        node: String,
    },
    /// A param set, or a buffer bound, that would leave a bound buffer shorter than its
    /// declared length (`buffer x: [T; len];`): nothing changed.
    #[error("{0}; nothing changed (bind a longer buffer first, or set a smaller value)")]
    ShortBuffer(#[from] Box<super::ShortBuffer>),
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
    /// An iteration of a repeat block's node that the graph does not have.
    #[error("node `{node}` runs in {count} iteration{} of its repeat block; there is no iteration {iteration}", super::plural(*count))]
    NoIteration {
        /// The node, as written.
        node: String,
        /// The iteration asked for.
        iteration: usize,
        /// Iterations the graph has.
        count: usize,
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

/// Why captured work failed: what the closure returned, or a buffer it did not declare.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    /// The work asked for a buffer it did not declare (or declared read-only, for a write).
    #[error("captured node `{node}` uses a buffer it did not declare {as_}; add it to the node's {list}")]
    Undeclared {
        /// The node.
        node: String,
        /// `"as read"` or `"as written"`.
        as_: &'static str,
        /// `"reads"` or `"writes"`.
        list: &'static str,
    },
    /// The work allocated or freed memory while captured (a library calling
    /// `cudaMallocAsync`): a child graph cannot hold allocation nodes.
    #[error("captured node `{node}`: the work allocates or frees memory while captured (a library calling cudaMallocAsync), which a captured node cannot hold; give the library memory before (for cuBLAS, a workspace with cublasSetWorkspace), or allocate with a `temp` / `add_mem_alloc` in the graph")]
    AllocatesMemory {
        /// The node.
        node: String,
    },
    /// The work failed (cuBLAS, a launch, ...).
    #[error("captured node `{node}`: {source}")]
    Work {
        /// The node.
        node: String,
        /// What the closure returned.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
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

impl From<super::ShortBuffer> for EditError {
    fn from(e: super::ShortBuffer) -> Self {
        Self::ShortBuffer(Box::new(e))
    }
}
