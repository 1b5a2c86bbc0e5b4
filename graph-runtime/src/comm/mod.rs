//! NCCL communicators and collectives as graph nodes (feature `nccl`).
//!
//! A [`Communicator`] is one rank of an NCCL communicator, on one device. Two ways to make
//! them:
//!
//! - [`Communicator::local`]: one process drives every GPU of the communicator (one rank per
//!   context given);
//! - [`Communicator::from_id`]: one process per GPU (the path to several hosts): rank 0 makes a
//!   [`UniqueId`], hands its bytes to every other process (a file, a socket, an environment
//!   variable: the caller's choice), and each process joins with its rank.
//!
//! Both join without blocking and give up after the caller's time-out (a rank that never joins
//! is a [`CommError::Timeout`], and the communicator is aborted): nothing hangs.
//!
//! A collective becomes a node of a graph with
//! [`Graph::add_collective`](crate::Graph::add_collective) (or a `cuda_graph!` node such as
//! `ar = all_reduce(part -> y, n, sum) on tp;`): NCCL enters graphs by stream capture, on the
//! communicator's own stream. Every rank builds its own graph on its own device (the same
//! program, instantiated per rank) and launches it; [`Communicator::wait`] then waits for the
//! launch while watching NCCL's asynchronous error, and aborts the communicator after the
//! time-out instead of hanging when a peer never issues its side.
//!
//! On a communicator made by [`Communicator::local`] over devices with peer access, a small
//! all-reduce is one kernel of this crate rather than NCCL's: the [`peer`] all-reduce.
//!
//! ```no_run
//! # use std::time::Duration;
//! # use cuda_graph_runtime::comm::Communicator;
//! # fn demo() -> Result<(), cuda_graph_runtime::Error> {
//! let ctx = cuda_graph_runtime::context(0)?;
//! // World size 1: one rank on GPU 0.
//! let comms = Communicator::local(&[ctx.clone()], Duration::from_secs(30))?;
//! assert_eq!((comms[0].rank(), comms[0].world()), (0, 1));
//! # Ok(()) }
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaStream, DevicePtr};

use crate::driver::nccl::{self, Dtype, NcclCall, Progress, RawComm, RawOp, RedOp};
use crate::error::CommError;

mod op;
pub mod peer;
mod wait;

pub use op::{Collective, NcclDtype, NcclElem, ReduceOp};
pub use wait::wait_all;

/// The id every rank of one communicator joins with: made once (by rank 0), its bytes handed
/// to the other processes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId([u8; 128]);

impl UniqueId {
    /// A new id (NCCL's `ncclGetUniqueId`; it opens the bootstrap socket of rank 0).
    pub fn new() -> Result<Self, CommError> {
        if !nccl::present() {
            return Err(CommError::NcclNotFound);
        }
        nccl::unique_id()
            .map(UniqueId)
            .map_err(|e| nccl_error(e, 0))
    }

    /// Its bytes, to send to the other ranks.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.0
    }

    /// The id from the bytes rank 0 sent.
    pub fn from_bytes(bytes: [u8; 128]) -> Self {
        UniqueId(bytes)
    }
}

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UniqueId(..)")
    }
}

fn nccl_error(e: NcclCall, rank: u32) -> CommError {
    CommError::Nccl {
        call: e.call,
        rank,
        code: e.code,
        message: e.message,
    }
}

/// Whether a communicator is still usable: graphs whose collectives use it check it before
/// each launch.
#[derive(Debug)]
pub(crate) struct Health {
    pub alive: AtomicBool,
    pub rank: u32,
}

/// One rank of an NCCL communicator, on one device. Dropping it finalizes and destroys it.
pub struct Communicator {
    raw: Mutex<Option<RawComm>>,
    /// The thread an abort runs on while graphs hold the communicator (see [`abort`](Self::abort)).
    aborting: Mutex<Option<std::thread::JoinHandle<()>>>,
    health: Arc<Health>,
    /// The peer all-reduce's mailboxes, shared by this process's ranks ([`peer`]).
    peer: Option<Arc<peer::PeerGroup>>,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    rank: u32,
    world: u32,
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("rank", &self.rank)
            .field("world", &self.world)
            .field("device", &self.ctx.ordinal())
            .field("alive", &self.health.alive.load(Ordering::Acquire))
            .finish()
    }
}

impl Communicator {
    /// One communicator over the devices of `ctxs` driven by this process: rank `r` on
    /// `ctxs[r]`. Waits at most `timeout` for every rank to join.
    pub fn local(ctxs: &[Arc<CudaContext>], timeout: Duration) -> Result<Vec<Self>, CommError> {
        if ctxs.is_empty() {
            return Err(CommError::Invalid {
                why: "no device given; pass one context a rank".into(),
            });
        }
        let mut seen = Vec::new();
        for c in ctxs {
            if seen.contains(&c.ordinal()) {
                return Err(CommError::Invalid {
                    why: format!(
                        "device {} is given twice; NCCL needs one rank a device in a process",
                        c.ordinal()
                    ),
                });
            }
            seen.push(c.ordinal());
        }
        let id = UniqueId::new()?;
        let world = ctxs.len() as u32;
        nccl::group_start().map_err(|e| nccl_error(e, 0))?;
        let mut made = Vec::new();
        let mut failed = None;
        for (r, ctx) in ctxs.iter().enumerate() {
            match Self::start(ctx, r as u32, world, &id) {
                Ok(c) => made.push(c),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let end = nccl::group_end().map_err(|e| nccl_error(e, 0));
        if let Some(e) = failed.or(end.err()) {
            for c in made {
                c.abort();
            }
            return Err(e);
        }
        let deadline = Instant::now() + timeout;
        let ready = made
            .iter()
            .try_for_each(|c| c.joined(deadline, timeout))
            .and_then(|()| Self::warm(&made, deadline));
        if let Err(e) = ready {
            for c in &made {
                c.abort();
            }
            return Err(e);
        }
        let group = peer::group(ctxs, &made);
        for c in &mut made {
            c.peer = group.clone();
        }
        Ok(made)
    }

    /// Rank `rank` of a communicator of `world` ranks joined through `id` (one process per
    /// GPU), on the device of `ctx`. Waits at most `timeout` for every rank to join; a rank that
    /// never joins is a [`CommError::Timeout`] here, not a hang.
    pub fn from_id(
        ctx: &Arc<CudaContext>,
        rank: u32,
        world: u32,
        id: &UniqueId,
        timeout: Duration,
    ) -> Result<Self, CommError> {
        if world == 0 || rank >= world {
            return Err(CommError::Invalid {
                why: format!(
                    "rank {rank} of {world}: the rank must be below the world size, which must be at least 1"
                ),
            });
        }
        if !nccl::present() {
            return Err(CommError::NcclNotFound);
        }
        let c = Self::start(ctx, rank, world, id)?;
        let deadline = Instant::now() + timeout;
        c.joined(deadline, timeout)?;
        let c = [c];
        Self::warm(&c, deadline)?;
        let [c] = c;
        Ok(c)
    }

    fn start(
        ctx: &Arc<CudaContext>,
        rank: u32,
        world: u32,
        id: &UniqueId,
    ) -> Result<Self, CommError> {
        graph_mixing_off();
        let driver = |call, source| CommError::Driver { call, rank, source };
        ctx.bind_to_thread()
            .map_err(|e| driver("cuCtxSetCurrent", e))?;
        let stream = ctx.new_stream().map_err(|e| driver("cuStreamCreate", e))?;
        let raw =
            nccl::init_rank(world as i32, &id.0, rank as i32).map_err(|e| nccl_error(e, rank))?;
        Ok(Communicator {
            raw: Mutex::new(Some(raw)),
            aborting: Mutex::new(None),
            health: Arc::new(Health {
                alive: AtomicBool::new(true),
                rank,
            }),
            peer: None,
            ctx: ctx.clone(),
            stream,
            rank,
            world,
        })
    }

    /// Polls until joining finished; aborts after `deadline`.
    fn joined(&self, deadline: Instant, timeout: Duration) -> Result<(), CommError> {
        self.settle(deadline, timeout, "joining the communicator")
    }

    /// Runs one all-reduce of one element on every rank of `comms` (this process's ranks of
    /// one communicator) outside any capture: NCCL sets up its connections on a
    /// communicator's first collectives, and a graph captures the later ones.
    fn warm(comms: &[Communicator], deadline: Instant) -> Result<(), CommError> {
        let mut ones = Vec::new();
        for c in comms {
            let one = c
                .stream
                .alloc_zeros::<f32>(1)
                .map_err(|source| CommError::Driver {
                    call: "cuMemAlloc",
                    rank: c.rank,
                    source,
                })?;
            ones.push(one);
        }
        let grouped = comms.len() > 1;
        if grouped {
            nccl::group_start().map_err(|e| nccl_error(e, 0))?;
        }
        let mut issued = Ok(());
        for (c, one) in comms.iter().zip(&ones) {
            let addr = one.device_ptr(&c.stream).0;
            let op = RawOp::AllReduce {
                src: addr,
                dst: addr,
                count: 1,
                op: RedOp::Sum,
            };
            let g = c.lock();
            let raw = g.as_ref().ok_or_else(|| c.aborted())?;
            issued = raw
                .issue(op, Dtype::F32, &c.stream)
                .map_err(|e| nccl_error(e, c.rank));
            if issued.is_err() {
                break;
            }
        }
        if grouped {
            let end = nccl::group_end().map_err(|e| nccl_error(e, 0));
            issued = issued.and(end);
        }
        issued?;
        let patience = deadline.saturating_duration_since(Instant::now());
        for c in comms {
            c.settle(deadline, patience, "the first collective")?;
            c.wait(
                &c.stream,
                deadline.saturating_duration_since(Instant::now()),
            )?;
        }
        Ok(())
    }

    fn settle(
        &self,
        deadline: Instant,
        timeout: Duration,
        what: &'static str,
    ) -> Result<(), CommError> {
        loop {
            match self.progress()? {
                Progress::Done => return Ok(()),
                Progress::Pending if Instant::now() < deadline => std::thread::yield_now(),
                Progress::Pending => {
                    self.abort();
                    return Err(self.timeout(what, timeout));
                }
                Progress::Failed(e) => {
                    self.abort();
                    return Err(self.async_error(e));
                }
            }
        }
    }

    fn progress(&self) -> Result<Progress, CommError> {
        let g = self.lock();
        match g.as_ref() {
            Some(raw) => Ok(raw.progress()),
            None => Err(self.aborted()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<RawComm>> {
        self.raw.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn timeout(&self, what: &'static str, timeout: Duration) -> CommError {
        CommError::Timeout {
            rank: self.rank,
            world: self.world,
            what,
            timeout,
        }
    }

    fn async_error(&self, e: NcclCall) -> CommError {
        CommError::Async {
            rank: self.rank,
            world: self.world,
            message: format!("{}: {}", e.call, e.message),
        }
    }

    fn aborted(&self) -> CommError {
        CommError::Aborted {
            rank: self.rank,
            world: self.world,
        }
    }

    /// This rank, from 0.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The number of ranks.
    pub fn world(&self) -> u32 {
        self.world
    }

    /// The context of this rank's device.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// Whether the communicator can still be used (it was not aborted).
    pub fn is_alive(&self) -> bool {
        self.health.alive.load(Ordering::Acquire)
    }

    /// NCCL's asynchronous error now: `Ok` while none; after one the communicator is aborted.
    /// An error too once the communicator was aborted (a rank of the same [`peer`] all-reduce
    /// aborted ends this rank's waits as well, so its last results are not whole).
    pub fn check(&self) -> Result<(), CommError> {
        if !self.is_alive() {
            return Err(self.aborted());
        }
        match self.progress()? {
            Progress::Done | Progress::Pending => Ok(()),
            Progress::Failed(e) => {
                self.abort();
                Err(self.async_error(e))
            }
        }
    }

    /// Waits for the work on `stream` so far (a launch of a graph running this communicator's
    /// collectives) while watching NCCL's asynchronous error. After `timeout`, or on an error,
    /// the communicator is aborted (its kernels return, so the stream drains) and the error
    /// says why: a peer that never issued its side of a collective is a time-out, not a hang.
    pub fn wait(&self, stream: &Arc<CudaStream>, timeout: Duration) -> Result<(), CommError> {
        wait_all(&[(self, stream)], timeout)
    }

    /// Aborts the communicator: NCCL kernels in flight return and it cannot be used again
    /// (graphs whose collectives use it refuse to launch). Nothing if already aborted.
    ///
    /// NCCL releases an aborted communicator only once every graph that captured its
    /// collectives is destroyed, and its abort call waits for that. While such a graph is alive
    /// the abort runs on a thread of its own, so this returns at once: the flag that makes the
    /// kernels in flight return is set first, and the rest completes when the graphs are
    /// dropped.
    pub fn abort(&self) {
        self.stop_peers();
        let raw = self.lock().take();
        self.health.alive.store(false, Ordering::Release);
        let Some(raw) = raw else { return };
        if Arc::strong_count(&self.health) == 1 {
            raw.abort();
            return;
        }
        let ctx = self.ctx.clone();
        let slot = Arc::new(Mutex::new(Some(raw)));
        let theirs = slot.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("nccl-abort-rank-{}", self.rank))
            .spawn(move || {
                let _ = ctx.bind_to_thread();
                let raw = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(raw) = raw {
                    raw.abort();
                }
            });
        match spawned {
            Ok(handle) => {
                *self.aborting.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
            }
            Err(_) => {
                // No thread to be had: abort here (it may wait for the graphs).
                let raw = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(raw) = raw {
                    raw.abort();
                }
            }
        }
    }

    pub(crate) fn health(&self) -> Arc<Health> {
        self.health.clone()
    }

    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Issues `op` on `stream` (being captured): on the [`peer`] path if it takes it, else
    /// through NCCL, waiting for NCCL to take it (a non-blocking communicator may still be
    /// enqueuing when the call returns).
    pub(crate) fn issue(
        &self,
        op: RawOp,
        dtype: NcclDtype,
        stream: &CudaStream,
        patience: Duration,
    ) -> Result<(), CommError> {
        if let Some(issued) = self.issue_peer(&op, dtype, stream) {
            return issued;
        }
        {
            let g = self.lock();
            let raw = g.as_ref().ok_or_else(|| self.aborted())?;
            raw.issue(op, dtype.0, stream)
                .map_err(|e| nccl_error(e, self.rank))?;
        }
        self.settle(
            Instant::now() + patience,
            patience,
            "enqueuing a collective",
        )
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        // An abort on its own thread finishes once the graphs that used the communicator are
        // gone, which they are now (they borrowed it): wait for it, a bounded time (a device
        // that faulted may never let NCCL finish), so the process does not end inside NCCL.
        let aborting = self
            .aborting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(handle) = aborting {
            let start = Instant::now();
            while !handle.is_finished() && start.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(1));
            }
            if handle.is_finished() {
                let _ = handle.join();
            }
        }
        let raw = self.lock().take();
        if let Some(raw) = raw {
            // Outstanding work is finished first; a peer that is gone cannot hold this up for
            // more than the patience.
            let _ = self.ctx.bind_to_thread();
            raw.destroy(Duration::from_secs(10));
        }
    }
}

/// `NCCL_GRAPH_MIXING_SUPPORT`: NCCL's support for launching a communicator's collectives from
/// several graphs at once, or from a graph and outside one. It puts event nodes into every
/// captured collective, which CUDA refuses inside conditional bodies. This crate turns it off
/// (`0`) before the first communicator is made unless the variable is set: every collective
/// here is captured, and the graphs of one communicator are launched one after the other on
/// its rank's stream ([`crate::exec::Ranks`] does). NCCL reads it once, at its first use.
pub const GRAPH_MIXING_VAR: &str = "NCCL_GRAPH_MIXING_SUPPORT";

fn graph_mixing_off() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os(GRAPH_MIXING_VAR).is_none() {
            std::env::set_var(GRAPH_MIXING_VAR, "0");
        }
    });
}

/// Whether NCCL's graph mixing is on (the variable set to anything but `0`): collectives
/// cannot then go into a conditional body.
pub(crate) fn graph_mixing_on() -> bool {
    std::env::var(GRAPH_MIXING_VAR).is_ok_and(|v| v.trim() != "0")
}
