//! Waiting for a launch on every rank of a communicator while watching each one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::CudaStream;

use super::Communicator;
use crate::error::CommError;

/// Waits for the work so far on each rank's stream (a launch on every rank) while watching
/// each communicator's asynchronous error, every rank in turn. The first failure aborts every
/// communicator, so no rank waits on a peer that is gone: a rank whose device faults
/// ([`CommError::Fault`]), an asynchronous NCCL error ([`CommError::Async`]), or, after
/// `timeout`, a rank whose launch has not finished ([`CommError::Timeout`], naming the first
/// such rank).
pub fn wait_all(
    ranks: &[(&Communicator, &Arc<CudaStream>)],
    timeout: Duration,
) -> Result<(), CommError> {
    let fail = |e: CommError| {
        for (c, _) in ranks {
            c.abort();
        }
        Err(e)
    };
    let mut pending = Vec::with_capacity(ranks.len());
    for (r, (c, s)) in ranks.iter().enumerate() {
        match s.record_event(None) {
            Ok(done) => pending.push((r, done)),
            Err(source) => {
                return fail(CommError::Driver {
                    call: "cuEventRecord",
                    rank: c.rank,
                    source,
                })
            }
        }
    }
    let deadline = Instant::now() + timeout;
    loop {
        let mut k = 0;
        while k < pending.len() {
            let (r, done) = &pending[k];
            let c = ranks[*r].0;
            let finished = match done.try_is_complete() {
                Ok(f) => f,
                Err(source) => {
                    return fail(CommError::Fault {
                        rank: c.rank,
                        world: c.world,
                        source,
                    })
                }
            };
            if let Err(e) = c.check() {
                return fail(e);
            }
            if finished {
                pending.swap_remove(k);
            } else {
                k += 1;
            }
        }
        let Some((r, _)) = pending.first() else {
            return Ok(());
        };
        if Instant::now() >= deadline {
            let c = ranks[*r].0;
            return fail(c.timeout("the launch's collectives", timeout));
        }
        // A step takes tens of microseconds: a sleep would add its own tens (the scheduler's
        // granularity) to every wait.
        std::thread::yield_now();
    }
}
