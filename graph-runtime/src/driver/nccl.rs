//! NCCL calls (feature `nccl`): communicators made non-blocking (so a rank that never joins is
//! a time-out, not a hang), their asynchronous error, abort and destroy, and the collectives
//! issued on a stream (which `capture` turns into graph nodes).
//!
//! NCCL is loaded at run time (cudarc's `nccl` bindings, dynamic loading); [`present`] says
//! whether it can be.

use std::ffi::CStr;
use std::sync::Mutex;

use cudarc::driver::CudaStream;
use cudarc::nccl::sys::{self, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t};

/// A failed NCCL call: which entry point, its code and NCCL's words for it.
#[derive(Debug, Clone)]
pub(crate) struct NcclCall {
    pub call: &'static str,
    pub code: i32,
    pub message: String,
}

fn failure(call: &'static str, r: ncclResult_t, comm: ncclComm_t) -> NcclCall {
    // SAFETY: ncclGetErrorString returns a static string for any code; ncclGetLastError takes
    // a live communicator or null and returns a string NCCL owns.
    let mut message = unsafe { CStr::from_ptr(sys::ncclGetErrorString(r)) }
        .to_string_lossy()
        .into_owned();
    let last = unsafe { sys::ncclGetLastError(comm) };
    if !last.is_null() {
        let last = unsafe { CStr::from_ptr(last) }.to_string_lossy();
        if !last.is_empty() {
            message = format!("{message} ({last})");
        }
    }
    NcclCall {
        call,
        code: r as i32,
        message,
    }
}

fn check(call: &'static str, r: ncclResult_t, comm: ncclComm_t) -> Result<(), NcclCall> {
    match r {
        ncclResult_t::ncclSuccess | ncclResult_t::ncclInProgress => Ok(()),
        _ => Err(failure(call, r, comm)),
    }
}

/// Whether the NCCL library can be loaded.
pub(crate) fn present() -> bool {
    // SAFETY: only tries to open the library.
    unsafe { sys::is_culib_present() }
}

/// A new unique id (rank 0 makes it and hands it to the other ranks).
pub(crate) fn unique_id() -> Result<[u8; 128], NcclCall> {
    let mut id = sys::ncclUniqueId { internal: [0; 128] };
    // SAFETY: `id` is a valid out-pointer.
    check(
        "ncclGetUniqueId",
        unsafe { sys::ncclGetUniqueId(&mut id) },
        std::ptr::null_mut(),
    )?;
    Ok(id.internal.map(|c| c as u8))
}

/// Where a non-blocking call stands.
pub(crate) enum Progress {
    Done,
    Pending,
    Failed(NcclCall),
}

/// A communicator. Every call on it goes through the lock: NCCL forbids concurrent calls on one
/// communicator.
pub(crate) struct RawComm {
    comm: Mutex<ncclComm_t>,
}

// SAFETY: a communicator may be used from any thread, one call at a time (the mutex).
unsafe impl Send for RawComm {}
unsafe impl Sync for RawComm {}

/// NCCL's element types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dtype {
    I8,
    U8,
    I32,
    U32,
    I64,
    U64,
    F16,
    F32,
    F64,
    Bf16,
}

impl Dtype {
    fn raw(self) -> ncclDataType_t {
        use ncclDataType_t::*;
        match self {
            Dtype::I8 => ncclInt8,
            Dtype::U8 => ncclUint8,
            Dtype::I32 => ncclInt32,
            Dtype::U32 => ncclUint32,
            Dtype::I64 => ncclInt64,
            Dtype::U64 => ncclUint64,
            Dtype::F16 => ncclFloat16,
            Dtype::F32 => ncclFloat32,
            Dtype::F64 => ncclFloat64,
            Dtype::Bf16 => ncclBfloat16,
        }
    }
}

/// NCCL's reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedOp {
    Sum,
    Prod,
    Max,
    Min,
    Avg,
}

impl RedOp {
    fn raw(self) -> ncclRedOp_t {
        match self {
            RedOp::Sum => ncclRedOp_t::ncclSum,
            RedOp::Prod => ncclRedOp_t::ncclProd,
            RedOp::Max => ncclRedOp_t::ncclMax,
            RedOp::Min => ncclRedOp_t::ncclMin,
            RedOp::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}

/// One collective, on device addresses already checked against the counts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RawOp {
    AllReduce {
        src: u64,
        dst: u64,
        count: usize,
        op: RedOp,
    },
    AllGather {
        src: u64,
        dst: u64,
        count: usize,
    },
    ReduceScatter {
        src: u64,
        dst: u64,
        count: usize,
        op: RedOp,
    },
    Broadcast {
        src: u64,
        dst: u64,
        count: usize,
        root: i32,
    },
    Send {
        src: u64,
        count: usize,
        peer: i32,
    },
    Recv {
        dst: u64,
        count: usize,
        peer: i32,
    },
}

fn config() -> sys::ncclConfig_t {
    const UNDEF: i32 = i32::MIN;
    sys::ncclConfig_t {
        size: std::mem::size_of::<sys::ncclConfig_t>(),
        magic: 0xcafe_beef,
        // NCCL_VERSION(2, 28, 0): the layout of these bindings.
        version: 22800,
        blocking: 0,
        cgaClusterSize: UNDEF,
        minCTAs: UNDEF,
        maxCTAs: UNDEF,
        netName: std::ptr::null(),
        splitShare: UNDEF,
        trafficClass: UNDEF,
        commName: std::ptr::null(),
        collnetEnable: UNDEF,
        CTAPolicy: UNDEF,
        shrinkShare: UNDEF,
        nvlsCTAs: UNDEF,
        nChannelsPerNetPeer: UNDEF,
        nvlinkCentricSched: UNDEF,
    }
}

/// Starts joining rank `rank` of `world` to the communicator of `id`, non-blocking, on the
/// device of the current context (the caller binds it). Poll [`RawComm::progress`] until done.
/// Called between [`group_start`] and [`group_end`] for several ranks from one thread.
pub(crate) fn init_rank(world: i32, id: &[u8; 128], rank: i32) -> Result<RawComm, NcclCall> {
    let mut comm: ncclComm_t = std::ptr::null_mut();
    let id = sys::ncclUniqueId {
        internal: id.map(|b| b as std::ffi::c_char),
    };
    let mut cfg = config();
    // SAFETY: `comm` and `cfg` are valid for the call; NCCL copies the config.
    let r = unsafe { sys::ncclCommInitRankConfig(&mut comm, world, id, rank, &mut cfg) };
    if comm.is_null() {
        return Err(failure("ncclCommInitRankConfig", r, comm));
    }
    let raw = RawComm {
        comm: Mutex::new(comm),
    };
    check("ncclCommInitRankConfig", r, comm)?;
    Ok(raw)
}

/// `ncclGroupStart`.
pub(crate) fn group_start() -> Result<(), NcclCall> {
    // SAFETY: no arguments.
    check(
        "ncclGroupStart",
        unsafe { sys::ncclGroupStart() },
        std::ptr::null_mut(),
    )
}

/// `ncclGroupEnd`.
pub(crate) fn group_end() -> Result<(), NcclCall> {
    // SAFETY: no arguments.
    check(
        "ncclGroupEnd",
        unsafe { sys::ncclGroupEnd() },
        std::ptr::null_mut(),
    )
}

impl RawComm {
    fn lock(&self) -> std::sync::MutexGuard<'_, ncclComm_t> {
        self.comm.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the communicator's last non-blocking call stands, or its asynchronous error.
    pub(crate) fn progress(&self) -> Progress {
        let c = self.lock();
        let mut state = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator and a valid out-pointer.
        let r = unsafe { sys::ncclCommGetAsyncError(*c, &mut state) };
        if r != ncclResult_t::ncclSuccess {
            return Progress::Failed(failure("ncclCommGetAsyncError", r, *c));
        }
        match state {
            ncclResult_t::ncclSuccess => Progress::Done,
            ncclResult_t::ncclInProgress => Progress::Pending,
            e => Progress::Failed(failure("ncclCommGetAsyncError", e, *c)),
        }
    }

    /// Issues `op` on `stream` (the stream being captured). Non-blocking: poll
    /// [`progress`](Self::progress) before the next call.
    pub(crate) fn issue(
        &self,
        op: RawOp,
        dtype: Dtype,
        stream: &CudaStream,
    ) -> Result<(), NcclCall> {
        let c = self.lock();
        let s = stream.cu_stream() as sys::cudaStream_t;
        let t = dtype.raw();
        let p = |a: u64| a as *mut std::ffi::c_void;
        // SAFETY: the addresses are device memory of the communicator's device holding the
        // counts the caller checked; the stream is live.
        let (call, r) = unsafe {
            match op {
                RawOp::AllReduce {
                    src,
                    dst,
                    count,
                    op,
                } => (
                    "ncclAllReduce",
                    sys::ncclAllReduce(p(src), p(dst), count, t, op.raw(), *c, s),
                ),
                RawOp::AllGather { src, dst, count } => (
                    "ncclAllGather",
                    sys::ncclAllGather(p(src), p(dst), count, t, *c, s),
                ),
                RawOp::ReduceScatter {
                    src,
                    dst,
                    count,
                    op,
                } => (
                    "ncclReduceScatter",
                    sys::ncclReduceScatter(p(src), p(dst), count, t, op.raw(), *c, s),
                ),
                RawOp::Broadcast {
                    src,
                    dst,
                    count,
                    root,
                } => (
                    "ncclBroadcast",
                    sys::ncclBroadcast(p(src), p(dst), count, t, root, *c, s),
                ),
                RawOp::Send { src, count, peer } => {
                    ("ncclSend", sys::ncclSend(p(src), count, t, peer, *c, s))
                }
                RawOp::Recv { dst, count, peer } => {
                    ("ncclRecv", sys::ncclRecv(p(dst), count, t, peer, *c, s))
                }
            }
        };
        check(call, r, *c)
    }

    /// Aborts the communicator's work: NCCL kernels in flight return, the streams they ran on
    /// drain. The communicator is destroyed with it.
    pub(crate) fn abort(self) {
        let c = self.lock();
        // SAFETY: a live communicator, not used after this.
        unsafe {
            sys::ncclCommAbort(*c);
        }
    }

    /// Finalizes then destroys the communicator; aborts it when finalizing fails or does not
    /// finish within `patience`.
    pub(crate) fn destroy(self, patience: std::time::Duration) {
        {
            let c = self.lock();
            // SAFETY: a live communicator.
            let r = unsafe { sys::ncclCommFinalize(*c) };
            if check("ncclCommFinalize", r, *c).is_err() {
                drop(c);
                return self.abort();
            }
        }
        let start = std::time::Instant::now();
        loop {
            match self.progress() {
                Progress::Done => break,
                Progress::Pending if start.elapsed() < patience => std::thread::yield_now(),
                _ => return self.abort(),
            }
        }
        let c = self.lock();
        // SAFETY: a finalized communicator, not used after this.
        unsafe {
            sys::ncclCommDestroy(*c);
        }
    }
}
