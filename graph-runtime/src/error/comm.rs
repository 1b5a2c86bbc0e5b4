//! Errors of communicators (feature `nccl`): making one, waiting on a launch that runs
//! collectives, and NCCL's own failures.

use std::time::Duration;

/// What went wrong with an NCCL communicator.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CommError {
    /// The NCCL library could not be loaded.
    #[error("the NCCL library (libnccl.so.2) was not found; install NCCL 2.28 or newer (the system package, or the one PyTorch ships, on the library path)")]
    NcclNotFound,
    /// An NCCL call failed.
    #[error("{call} failed for rank {rank}: {message}")]
    Nccl {
        /// The NCCL entry point.
        call: &'static str,
        /// The rank whose communicator it was.
        rank: u32,
        /// NCCL's result code.
        code: i32,
        /// NCCL's words for it.
        message: String,
    },
    /// The ranks given do not make a communicator.
    #[error("invalid communicator: {why}")]
    Invalid {
        /// What is wrong.
        why: String,
    },
    /// A CUDA driver call failed (binding the device, making the capture stream, an event).
    #[error("{call} failed for rank {rank}: {source}")]
    Driver {
        /// The call.
        call: &'static str,
        /// The rank.
        rank: u32,
        /// What the driver said.
        source: cudarc::driver::DriverError,
    },
    /// Joining the communicator or a launch's collectives did not finish in time: a rank never
    /// joined, or a collective's peer never issued its side. The communicator was aborted (its
    /// kernels returned), so nothing hangs; make a new one.
    #[error("rank {rank} of {world}: {what} did not finish within {timeout:?} (a rank that never joined, or a peer that never issued its side of a collective); the communicator was aborted")]
    Timeout {
        /// The rank.
        rank: u32,
        /// The communicator's size.
        world: u32,
        /// What was waited for.
        what: &'static str,
        /// The time-out.
        timeout: Duration,
    },
    /// NCCL reported an asynchronous error (a peer failed, a network error); the communicator
    /// was aborted.
    #[error("rank {rank} of {world}: NCCL reported an asynchronous error: {message}; the communicator was aborted")]
    Async {
        /// The rank.
        rank: u32,
        /// The communicator's size.
        world: u32,
        /// NCCL's words for it.
        message: String,
    },
    /// A rank's device failed while running its launch (a kernel fault, an illegal address):
    /// every communicator of the step was aborted so that no peer waits for this rank. CUDA
    /// keeps such an error: that device's context cannot run anything again in this process.
    #[error("rank {rank} of {world}: its device failed while running the launch ({source}); every rank's communicator was aborted, and this device cannot run work again in this process")]
    Fault {
        /// The rank whose device failed.
        rank: u32,
        /// The communicator's size.
        world: u32,
        /// What the driver said.
        source: cudarc::driver::DriverError,
    },
    /// The communicator was aborted earlier (a time-out or an error): it cannot be used again.
    #[error("rank {rank} of {world}: the communicator was aborted after an earlier error; make a new one (and build the graphs that use it again)")]
    Aborted {
        /// The rank.
        rank: u32,
        /// The communicator's size.
        world: u32,
    },
}
