//! Collective nodes (feature `nccl`): an NCCL collective captured into the graph on its
//! communicator's stream.

use std::time::Duration;

use cudarc::driver::{DevicePtr, DeviceSlice};

use super::Graph;
use crate::bind::BufferId;
use crate::comm::{Collective, Communicator, NcclElem};
use crate::error::{BuildError, Role};
use crate::id::Dep;
use crate::kinds::captured::CapturedNode;

/// What a captured node's work returns on failure.
type WorkError = Box<dyn std::error::Error + Send + Sync>;

/// How long capturing one collective may wait for NCCL to enqueue it.
const ENQUEUE_PATIENCE: Duration = Duration::from_secs(60);

impl<'a> Graph<'a> {
    /// Adds the collective `c` of `comm` (this rank), captured now on the communicator's
    /// stream. Checked first, each an error naming the node: the communicator is of this
    /// graph's device and alive, the count is not zero, a root or peer is a rank of it, and
    /// the buffers hold what the collective reads and writes on a communicator of its size.
    ///
    /// A small all-reduce on a communicator of one process runs as the
    /// [peer all-reduce](crate::comm::peer) (its kernel is built here on first use, and a
    /// failure to build it is an error naming the node).
    ///
    /// Every rank must add the same collectives in the same order (`cuda_graph!` proves that
    /// for its graphs): NCCL matches them by order, and a mismatch hangs. A graph whose
    /// collectives use a communicator that was later aborted refuses to launch.
    pub fn add_collective<T: NcclElem>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        comm: &'a Communicator,
        c: Collective<T>,
    ) -> Result<CapturedNode, BuildError> {
        let bad = |why: String| BuildError::Collective {
            node: name.to_owned(),
            why,
        };
        if comm.context().cu_ctx() != self.ctx.cu_ctx() {
            return Err(bad(format!(
                "the communicator is rank {} on device {}, but the graph is on device {}; build each rank's graph on its communicator's device",
                comm.rank(),
                comm.ordinal(),
                self.ctx.ordinal()
            )));
        }
        if !comm.is_alive() {
            return Err(bad(format!(
                "rank {}'s communicator was aborted after an earlier error; make a new one",
                comm.rank()
            )));
        }
        if self.raw.scope() != 0 && crate::comm::graph_mixing_on() {
            return Err(bad(format!(
                "a collective inside a conditional body needs NCCL's graph mixing off, but {} is set to `{}`; unset it (this crate then sets it to 0) or set it to 0",
                crate::comm::GRAPH_MIXING_VAR,
                std::env::var(crate::comm::GRAPH_MIXING_VAR).unwrap_or_default()
            )));
        }
        if c.count == 0 {
            return Err(bad(
                "the count is 0; a collective moves at least one element".into(),
            ));
        }
        let world = comm.world() as usize;
        if let Some((what, r)) = c.names_rank() {
            if r >= world {
                return Err(bad(format!(
                    "the {what} is rank {r}, but the communicator has {world} rank{}",
                    if world == 1 { "" } else { "s" }
                )));
            }
        }
        let (need_src, need_dst) = c.needs(world);
        for (id, role, needed) in [
            (c.src, Role::Source, need_src),
            (c.dst, Role::Destination, need_dst),
        ] {
            if let Some(id) = id {
                let len = self.bindings.get(id.graph, id.index)?.len;
                if len < needed {
                    return Err(BuildError::BufferTooShort {
                        node: name.to_owned(),
                        role,
                        len,
                        needed,
                    });
                }
            }
        }
        // The peer all-reduce's kernel is made before the capture, not during it.
        comm.prepare(&c.raw(0, 0), T::DTYPE).map_err(|e| {
            bad(format!(
                "{e}; set {}=0 before making the communicator to send every collective through NCCL",
                crate::comm::peer::PEER_ALL_REDUCE_VAR
            ))
        })?;
        let reads: Vec<BufferId> = c.src.into_iter().collect();
        let writes: Vec<BufferId> = c.dst.into_iter().collect();
        let (src, dst) = (c.src, c.dst);
        let node = name.to_owned();
        let added = self.add_captured(name, deps, comm.stream(), &reads, &writes, move |cx| {
            // Checked again here: a recapture may run after a buffer was swapped.
            let addr = |id: Option<BufferId>, needed: usize| -> Result<u64, WorkError> {
                let Some(id) = id else { return Ok(0) };
                let region = cx.region_of::<T>(id)?;
                if region.len() < needed {
                    return Err(format!(
                        "node `{node}`: a buffer holds {} elements but the collective needs {needed} on a communicator of {world} ranks",
                        region.len()
                    )
                    .into());
                }
                let at = region.device_ptr(cx.stream()).0;
                Ok(at)
            };
            let (s, d) = (addr(src, need_src)?, addr(dst, need_dst)?);
            comm.issue(c.raw(s, d), T::DTYPE, cx.stream(), ENQUEUE_PATIENCE)?;
            Ok(())
        });
        // NCCL may refuse the call only after it returned (an invalidated capture): its own
        // words say why.
        let node = match added {
            Ok(node) => node,
            Err(e) => {
                return Err(match comm.check() {
                    Err(nccl) => bad(format!("NCCL refused the collective: {nccl}")),
                    Ok(()) => e,
                })
            }
        };
        self.comms.push(comm.health());
        Ok(node)
    }
}
