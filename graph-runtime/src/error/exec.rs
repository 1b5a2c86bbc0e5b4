//! Launching, instantiating and updating executable graphs.

use cudarc::driver::DriverError;

use super::{at, DriverFailure};

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
    /// The graph runs collectives of a communicator that was aborted after an error or a
    /// time-out (feature `nccl`): launching it would run NCCL kernels of a destroyed
    /// communicator.
    #[error("the graph runs collectives of rank {rank}'s communicator, which was aborted after an earlier error; make a new communicator and build the graph again")]
    CommunicatorAborted {
        /// The rank of the aborted communicator.
        rank: u32,
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
/// anew, see [`UpdatePath`](crate::exec::UpdatePath)).
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

/// Instantiating a template ([`Graph::instantiate`](crate::Graph::instantiate)): the
/// template is consumed only when it succeeds.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstantiateError {
    /// A driver call failed.
    #[error(transparent)]
    Driver(#[from] DriverFailure),
    /// The driver refused to instantiate the graph.
    #[error("instantiating the graph failed{}: {reason} ({source})", at(node))]
    Refused {
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
}

/// Updating an executable graph from its template. A failed update leaves the executable graph
/// as it was, and it still launches.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateError {
    /// A driver call failed.
    #[error(transparent)]
    Driver(#[from] DriverFailure),
    /// The update needed a new instantiation, which failed.
    #[error(transparent)]
    Instantiate(#[from] InstantiateError),
    /// The update needs a new instantiation, which a graph with allocation nodes cannot have
    /// while this executable graph lives.
    #[error("the update needs a new instantiation ({reason:?}), but the graph holds allocation nodes (graph-owned memory) and CUDA lets such a graph have one executable graph at a time; the executable graph is left as it was: take the template back with `into_graph()` and instantiate it again")]
    MemoryNodes {
        /// Why the update could not be made in place.
        reason: UpdateRefusal,
    },
}
