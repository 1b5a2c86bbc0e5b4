//! The peer all-reduce: on a communicator made by [`Communicator::local`] over devices that
//! reach each other's memory (NVLink or PCIe peer access), a small all-reduce runs as one kernel
//! of this crate instead of NCCL's. Each rank stores its part straight into every peer's
//! memory, the all-reduce's number beside every word, polls its own memory until its peers'
//! parts carry that number, and reduces the parts in rank order (so every rank gets the same
//! bits). One kernel and one pass, with no fence and no flag to wait for: on two H100s joined
//! by NVLink, 3 µs at 4-64 KiB inside a graph where NCCL's takes 7-8.
//!
//! Which all-reduces take it: sum, product, largest and smallest (NCCL keeps the mean) of
//! `f32`, `f64`, `f16`, `bf16`, `i32`, `u32`, `i64`, `u64`, of at most
//! [`PEER_ALL_REDUCE_BYTES`] a rank `/ (world - 1)`; the rest, every other collective, and
//! communicators made by [`Communicator::from_id`] (one process per GPU) go through NCCL. The
//! decision is made once for all ranks of the communicator, so they issue the same collectives.
//! An abort of any rank ends every rank's waits (as it ends NCCL's kernels) and marks every rank
//! of the communicator aborted: a kernel whose wait ended leaves its output unwritten.
//!
//! Set [`PEER_ALL_REDUCE_VAR`] to `0` before making the communicator to send every collective
//! through NCCL.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use cudarc::driver::{CudaContext, CudaStream};

use super::{Communicator, Health, NcclDtype};
use crate::driver::nccl::{RawOp, RedOp};
use crate::driver::peer_reduce::{Mailboxes, SLOT_BYTES};
use crate::error::CommError;

/// `CUDA_GRAPH_PEER_ALL_REDUCE`: set to `0` when a communicator is made, its all-reduces all go
/// through NCCL (see the [module](self)).
pub const PEER_ALL_REDUCE_VAR: &str = "CUDA_GRAPH_PEER_ALL_REDUCE";

/// The most bytes a rank (times its peers less one) an all-reduce may have to take the peer
/// path.
pub const PEER_ALL_REDUCE_BYTES: usize = SLOT_BYTES;

/// What the ranks of one communicator made by this process share for the peer all-reduce: the
/// mailboxes, and each rank's health, so that an abort of one rank (which ends every rank's
/// waits) marks them all aborted.
pub(super) struct PeerGroup {
    boxes: Mailboxes,
    healths: Vec<Weak<Health>>,
}

/// The group of `comms` (every rank of a communicator, made over `ctxs`), unless the variable
/// turns the path off, or the devices lack peer access, or setting it up failed (the path is an
/// optimization: NCCL does every collective without it).
pub(super) fn group(ctxs: &[Arc<CudaContext>], comms: &[Communicator]) -> Option<Arc<PeerGroup>> {
    if std::env::var(PEER_ALL_REDUCE_VAR).is_ok_and(|v| v.trim() == "0") {
        return None;
    }
    let boxes = Mailboxes::new(ctxs).ok().flatten()?;
    let healths = comms.iter().map(|c| Arc::downgrade(&c.health)).collect();
    Some(Arc::new(PeerGroup { boxes, healths }))
}

/// What the peer path needs of `op`, if it may take it on a communicator of `world` ranks: the
/// reduction, the buffers and the count.
fn all_reduce(op: &RawOp, dtype: NcclDtype, world: usize) -> Option<(RedOp, u64, u64, usize)> {
    let RawOp::AllReduce {
        src,
        dst,
        count,
        op,
    } = *op
    else {
        return None;
    };
    let bytes = count.checked_mul(Mailboxes::elem_bytes(dtype.0))?;
    let fits = world >= 2 && bytes.checked_mul(world - 1)? <= SLOT_BYTES;
    (fits && op != RedOp::Avg).then_some((op, src, dst, count))
}

impl Communicator {
    /// Readies the peer path for `op` (its addresses aside) before it is captured: the kernel is
    /// compiled and loaded on every rank on first use. An error is why building it failed.
    pub(crate) fn prepare(&self, op: &RawOp, dtype: NcclDtype) -> Result<(), String> {
        if let Some(g) = &self.peer {
            if let Some((red, ..)) = all_reduce(op, dtype, g.boxes.world()) {
                g.boxes.ready(dtype.0, red, &self.ctx)?;
            }
        }
        Ok(())
    }

    /// Issues `op` on the peer path if it takes it (its kernel was readied by
    /// [`prepare`](Self::prepare)): `None` when NCCL is to issue it.
    pub(super) fn issue_peer(
        &self,
        op: &RawOp,
        dtype: NcclDtype,
        stream: &CudaStream,
    ) -> Option<Result<(), CommError>> {
        let boxes = &self.peer.as_ref()?.boxes;
        let (red, src, dst, count) = all_reduce(op, dtype, boxes.world())?;
        if !boxes.ready(dtype.0, red, &self.ctx).ok()? {
            return None;
        }
        let rank = self.rank as usize;
        Some(
            boxes
                .launch(rank, dtype.0, red, stream, src, dst, count)
                .map_err(|e| CommError::Driver {
                    call: e.call,
                    rank: self.rank,
                    source: e.code,
                }),
        )
    }

    /// Whether small all-reduces on this communicator take the peer path (see the
    /// [module](crate::comm::peer)): made by [`local`](Self::local) over two or more devices
    /// with peer access between all, and not turned off by [`PEER_ALL_REDUCE_VAR`].
    pub fn peer_all_reduce(&self) -> bool {
        self.peer.is_some()
    }

    /// Sends every collective of the communicator whose ranks are `comms` (all of them, rank
    /// `r` at `r`) through NCCL from now on: for a comparison, or to rule the peer path out.
    /// Before any graph captures a collective of it (the ranks are borrowed mutably here, which
    /// no graph holding them allows).
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use cuda_graph_runtime::comm::Communicator;
    /// # fn demo() -> Result<(), cuda_graph_runtime::Error> {
    /// let ctxs = [cuda_graph_runtime::context(0)?, cuda_graph_runtime::context(1)?];
    /// let mut comms = Communicator::local(&ctxs, Duration::from_secs(30))?;
    /// Communicator::nccl_only(&mut comms)?;
    /// assert!(!comms[0].peer_all_reduce());
    /// # Ok(()) }
    /// ```
    pub fn nccl_only(comms: &mut [Communicator]) -> Result<(), CommError> {
        let world = comms.len();
        for (r, c) in comms.iter().enumerate() {
            if (c.rank as usize, c.world as usize) != (r, world) {
                return Err(CommError::Invalid {
                    why: format!(
                        "rank {} of a communicator of {} is given as rank {r} of {world}; give every rank of one communicator, in order",
                        c.rank, c.world
                    ),
                });
            }
        }
        let same = comms.windows(2).all(|w| match (&w[0].peer, &w[1].peer) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        });
        if !same {
            return Err(CommError::Invalid {
                why: "the ranks given are not of one communicator made by `Communicator::local`; give that call's ranks".into(),
            });
        }
        for c in comms {
            c.peer = None;
        }
        Ok(())
    }

    /// Ends the peer path's waits on every rank (on an abort), and marks every rank aborted:
    /// a kernel whose wait ended leaves its output unwritten.
    pub(super) fn stop_peers(&self) {
        if let Some(g) = &self.peer {
            g.boxes.stop();
            for h in g.healths.iter().filter_map(Weak::upgrade) {
                h.alive.store(false, Ordering::Release);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::nccl::Dtype;

    fn ar(count: usize, op: RedOp) -> RawOp {
        RawOp::AllReduce {
            src: 16,
            dst: 32,
            count,
            op,
        }
    }

    #[test]
    fn small_all_reduces_of_two_or_more_ranks_take_the_peer_path() {
        let f32s = NcclDtype(Dtype::F32);
        let most = SLOT_BYTES / 4;
        assert_eq!(
            all_reduce(&ar(most, RedOp::Sum), f32s, 2),
            Some((RedOp::Sum, 16, 32, most))
        );
        assert_eq!(all_reduce(&ar(most + 1, RedOp::Sum), f32s, 2), None);
        // Each rank sends its part to every peer: the limit is over the peers.
        assert!(all_reduce(&ar(most / 2, RedOp::Max), f32s, 3).is_some());
        assert_eq!(all_reduce(&ar(most / 2 + 1, RedOp::Max), f32s, 3), None);
        assert!(all_reduce(&ar(1, RedOp::Min), NcclDtype(Dtype::Bf16), 8).is_some());
        // NCCL keeps the mean, one rank, and every other collective.
        assert_eq!(all_reduce(&ar(1, RedOp::Avg), f32s, 2), None);
        assert_eq!(all_reduce(&ar(1, RedOp::Sum), f32s, 1), None);
        let gather = RawOp::AllGather {
            src: 16,
            dst: 32,
            count: 1,
        };
        assert_eq!(all_reduce(&gather, f32s, 2), None);
        // A count whose bytes overflow is refused, not wrapped.
        assert_eq!(all_reduce(&ar(usize::MAX, RedOp::Sum), f32s, 2), None);
    }
}
