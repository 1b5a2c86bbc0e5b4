//! Every rank's executable graph of one program, launched as one step (feature `nccl`).
//!
//! A multi-GPU step is one graph per device (each rank's, the same `cuda_graph!` program built
//! on its communicator's device), not one graph spanning devices: NCCL enters a graph only by
//! stream capture on its own device's stream, the per-rank form is also the one that works
//! with one process per GPU (and per host), and each rank keeps its typed setters. [`Ranks`]
//! makes them one thing to launch, wait for and edit.

use std::ops::DerefMut;
use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::CudaStream;

use super::GraphExec;
use crate::comm::{wait_all, Communicator};
use crate::error::{CommError, Error};

/// Every rank of one communicator driven by this process, each with its executable graph (a
/// `cuda_graph!` graph's, or a `&mut GraphExec`) and the stream it runs on: [`launch`](Self::launch) starts the step on every rank,
/// [`wait`](Self::wait) waits for all of them while watching NCCL's asynchronous errors, and
/// [`each`](Self::each) reaches every rank's setters.
///
/// ```no_run
/// # use std::time::Duration;
/// # fn demo<'c, 'a, 'e>(execs: Vec<&'e mut cuda_graph_runtime::GraphExec<'a>>,
/// #                 comms: &'c [cuda_graph_runtime::comm::Communicator])
/// #   -> cuda_graph_runtime::Result<()> {
/// use cuda_graph_runtime::exec::Ranks;
/// let streams = comms.iter().map(|c| c.context().new_stream()).collect::<Result<Vec<_>, _>>()?;
/// let mut step = Ranks::new(execs, comms.iter().collect(), streams)?;
/// step.launch()?;                               // every rank
/// step.wait(Duration::from_secs(10))?;          // all of them, or an error naming the rank
/// # Ok(()) }
/// ```
pub struct Ranks<'c, E> {
    execs: Vec<E>,
    comms: Vec<&'c Communicator>,
    streams: Vec<Arc<CudaStream>>,
}

impl<'c, 'a, E: DerefMut<Target = GraphExec<'a>>> Ranks<'c, E> {
    /// Rank `r`'s executable graph is `execs[r]`, run on `streams[r]`, with `comms[r]` its
    /// rank of the communicator. Checked: as many of each, the ranks of one communicator in
    /// order (rank `r` at `r`, every rank there), each graph on its rank's device.
    pub fn new(
        execs: Vec<E>,
        comms: Vec<&'c Communicator>,
        streams: Vec<Arc<CudaStream>>,
    ) -> Result<Self, CommError> {
        let world = comms.len();
        let invalid = |why: String| Err(CommError::Invalid { why });
        if world == 0 || execs.len() != world || streams.len() != world {
            return invalid(format!(
                "{} graphs, {world} communicators and {} streams; give one of each a rank",
                execs.len(),
                streams.len()
            ));
        }
        for (r, ((c, e), s)) in comms.iter().zip(&execs).zip(&streams).enumerate() {
            if (c.rank() as usize, c.world() as usize) != (r, world) {
                return invalid(format!(
                    "rank {} of a communicator of {} is given as rank {r} of {world}; give every rank of one communicator, in order",
                    c.rank(),
                    c.world()
                ));
            }
            let ctx = c.context().cu_ctx();
            if e.context().cu_ctx() != ctx || s.context().cu_ctx() != ctx {
                return invalid(format!(
                    "rank {r}'s graph or stream is not on its communicator's device {}; build and run each rank's graph on its communicator's device",
                    c.ordinal()
                ));
            }
        }
        Ok(Ranks {
            execs,
            comms,
            streams,
        })
    }

    /// The number of ranks.
    pub fn world(&self) -> usize {
        self.execs.len()
    }

    /// Launches every rank's graph on its stream (asynchronous). The first rank that cannot
    /// launch stops it; the ranks launched before it then wait for a peer that never comes
    /// until [`wait`](Self::wait) gives up.
    pub fn launch(&mut self) -> Result<(), Error> {
        for (e, s) in self.execs.iter_mut().zip(&self.streams) {
            e.launch(s)?;
        }
        Ok(())
    }

    /// Waits for every rank's work so far, watching NCCL's asynchronous errors: a rank that
    /// faults, or whose peers never issue their side of a collective, is an error after at
    /// most `timeout` (every communicator is then aborted, so nothing hangs).
    pub fn wait(&self, timeout: Duration) -> Result<(), CommError> {
        let ranks: Vec<(&Communicator, &Arc<CudaStream>)> =
            self.comms.iter().copied().zip(&self.streams).collect();
        wait_all(&ranks, timeout)
    }

    /// Runs `f` on every rank's executable graph (a setter, a view's setter), rank 0 first,
    /// and returns what each gave; the first error stops it (the ranks before it are edited).
    pub fn each<R>(
        &mut self,
        mut f: impl FnMut(usize, &mut E) -> Result<R, Error>,
    ) -> Result<Vec<R>, Error> {
        self.execs
            .iter_mut()
            .enumerate()
            .map(|(r, e)| f(r, e))
            .collect()
    }

    /// Every rank's executable graph, rank 0 first: to edit them at once (from a thread each,
    /// say; an executable graph is `Send`).
    pub fn ranks_mut(&mut self) -> &mut [E] {
        &mut self.execs
    }

    /// Rank `r`'s executable graph.
    pub fn rank(&mut self, r: usize) -> &mut E {
        &mut self.execs[r]
    }

    /// Rank `r`'s stream.
    pub fn stream(&self, r: usize) -> &Arc<CudaStream> {
        &self.streams[r]
    }

    /// Rank `r`'s communicator.
    pub fn comm(&self, r: usize) -> &'c Communicator {
        self.comms[r]
    }
}
