//! The peer all-reduce's device side (feature `nccl`): a mailbox per rank in its device memory,
//! which every peer writes directly (peer access over NVLink or PCIe); a word of mapped host
//! memory that ends the kernels' wait for a peer once the communicator is aborted; and the
//! kernel (`peer_reduce.cu`, its protocol described there), compiled with NVRTC per element type
//! and reduction on first use, and launched on a stream being captured.
//!
//! Made only for ranks that one process drives (their mailboxes' addresses are plain pointers
//! then), and only where every pair of their devices has peer access.

use std::sync::{Arc, Mutex};

use cudarc::driver::sys;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use super::nccl::{Dtype, RedOp};
use super::{check, make_current_checked, CallError, CallResult};

/// The most ranks a mailbox has room for.
pub(crate) const MAX_RANKS: usize = 8;
/// The most blocks an all-reduce runs (each waits only for the same lines of its peers). Every
/// all-reduce of a communicator runs the same number, whatever its size (the blocks it does not
/// need only count it): so each block's count of all-reduces is the communicator's, and a line
/// last written by another block in another all-reduce never carries the number awaited.
const MAX_BLOCKS: usize = 64;
/// Bytes of one rank's part a mailbox holds per epoch parity: the largest all-reduce this path
/// takes.
pub(crate) const SLOT_BYTES: usize = 512 << 10;
/// Lines of a slot: each carries 8 bytes of a part and their epoch twice.
const SLOT_LINES: usize = SLOT_BYTES / 8;
/// Threads a block (`__launch_bounds__` in the kernel); each takes 8 bytes at a time.
const THREADS: u32 = 256;
/// Where the lines start: after the epochs (4 bytes a block).
const DATA_OFFSET: usize = (MAX_BLOCKS * 4).div_ceil(256) * 256;

/// Every rank's mailbox address: the kernel's `Peers`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
struct Peers([u64; MAX_RANKS]);

// SAFETY: plain bytes laid out as the kernel's `struct Peers { u64 box[MAX_RANKS]; }`.
unsafe impl DeviceRepr for Peers {}

/// The kernel's source: one program per element type and reduction ([`defines`]).
pub(crate) const SOURCE: &str = include_str!("peer_reduce.cu");

/// The element types and reductions the kernel is compiled for (`ELEM_<type>`, `OP_<op>`, as
/// `load` names them), for the check that compiles every program.
#[cfg(test)]
pub(crate) const ELEMS: &[&str] = &["F32", "F64", "F16", "BF16", "I32", "U32", "I64", "U64"];
#[cfg(test)]
pub(crate) const OPS: &[&str] = &["SUM", "PROD", "MAX", "MIN"];

/// The macros the program of element type `elem` and reduction `op` is compiled with.
pub(crate) fn defines(elem: &str, op: &str) -> Vec<(String, String)> {
    vec![
        (format!("ELEM_{elem}"), String::new()),
        (format!("OP_{op}"), String::new()),
        ("MAX_RANKS".to_owned(), MAX_RANKS.to_string()),
        ("DATA_OFFSET".to_owned(), DATA_OFFSET.to_string()),
        ("SLOT_LINES".to_owned(), SLOT_LINES.to_string()),
    ]
}

/// The word of mapped, portable page-locked host memory the kernels watch.
struct StopWord {
    _mem: PinnedHostSlice<u32>,
    host: *mut u32,
}

// SAFETY: `host` points into `_mem`, which lives as long as this; the word is only read and
// written whole (volatile, aligned 4 bytes), from any thread.
unsafe impl Send for StopWord {}
unsafe impl Sync for StopWord {}

/// The kernel for one element type and reduction on every rank; `None` where it cannot be had
/// here, an error where building it failed.
type Loaded = ((Dtype, RedOp), Result<Option<Vec<CudaFunction>>, String>);

/// One rank's mailbox.
struct RankBox {
    ctx: Arc<CudaContext>,
    _mem: CudaSlice<u8>,
    addr: u64,
    stop: u64,
}

/// Every rank's mailbox, the stop word, and the kernels loaded on every rank.
pub(crate) struct Mailboxes {
    ranks: Vec<RankBox>,
    peers: Peers,
    stop: StopWord,
    /// The fewest multiprocessors of the ranks' devices, up to [`MAX_BLOCKS`]: the blocks of
    /// every all-reduce on every rank.
    sms: usize,
    /// Per element type and reduction: the kernel on every rank, `None` where it cannot be had
    /// here (that collective then goes through NCCL on every rank), or why building it failed.
    kernels: Mutex<Vec<Loaded>>,
}

impl std::fmt::Debug for Mailboxes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailboxes")
            .field("ranks", &self.ranks.len())
            .finish()
    }
}

impl Mailboxes {
    /// Mailboxes for ranks on the devices of `ctxs` (rank `r` on `ctxs[r]`), with peer access
    /// enabled between every pair; `None` where some pair has none (or there are more ranks
    /// than a mailbox has room for). The calling thread's context is the first's afterwards.
    pub(crate) fn new(ctxs: &[Arc<CudaContext>]) -> CallResult<Option<Mailboxes>> {
        if ctxs.len() < 2 || ctxs.len() > MAX_RANKS {
            return Ok(None);
        }
        for a in ctxs {
            for b in ctxs {
                if !super::enable_peer_access(a, b)? {
                    return Ok(None);
                }
            }
        }
        let driver = |call| move |code| CallError { call, code };
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: the word is written below before any kernel can read it.
        let mut mem = unsafe { ctxs[0].alloc_pinned_with_flags::<u32>(1, flags) }
            .map_err(driver("cuMemHostAlloc"))?;
        let host = mem.as_mut_ptr().map_err(driver("cuEventSynchronize"))?;
        let stop = StopWord { _mem: mem, host };
        stop.set(0);
        let bytes = DATA_OFFSET + 2 * ctxs.len() * SLOT_LINES * 16;
        let mut ranks = Vec::with_capacity(ctxs.len());
        let mut sms = usize::MAX;
        for ctx in ctxs {
            make_current_checked(ctx.cu_ctx())?;
            let n = ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(driver("cuDeviceGetAttribute"))?;
            sms = sms.min(n.max(1) as usize).min(MAX_BLOCKS);
            let s = ctx.default_stream();
            let mem = s.alloc_zeros::<u8>(bytes).map_err(driver("cuMemAlloc"))?;
            let addr = mem.device_ptr(&s).0;
            let mut at = 0;
            // SAFETY: `host` is a live DEVICEMAP|PORTABLE allocation, mapped in every context;
            // `at` is a valid out-pointer.
            check("cuMemHostGetDevicePointer", unsafe {
                sys::cuMemHostGetDevicePointer_v2(&mut at, stop.host.cast(), 0)
            })?;
            ranks.push(RankBox {
                ctx: ctx.clone(),
                _mem: mem,
                addr,
                stop: at,
            });
        }
        let mut peers = Peers([0; MAX_RANKS]);
        for (p, r) in peers.0.iter_mut().zip(&ranks) {
            *p = r.addr;
        }
        for r in &ranks {
            r.ctx
                .default_stream()
                .synchronize()
                .map_err(driver("cuStreamSynchronize"))?;
        }
        make_current_checked(ctxs[0].cu_ctx())?;
        Ok(Some(Mailboxes {
            ranks,
            peers,
            stop,
            sms,
            kernels: Mutex::new(Vec::new()),
        }))
    }

    /// Ends every kernel's wait for a peer, for good (the communicator is aborted).
    pub(crate) fn stop(&self) {
        self.stop.set(1);
    }

    /// Whether the kernel for `dtype` and `op` is loaded on every rank: compiled and loaded on
    /// first asking. `Ok(false)` where it cannot be had here (no NVRTC, a device older than
    /// compute capability 7.0, a type or reduction it does not take); an error where building
    /// it failed (NVRTC's log). The answer is the same for every rank (one decision for all), so
    /// every rank issues the same collectives. The calling thread's context is `current`'s
    /// afterwards.
    pub(crate) fn ready(
        &self,
        dtype: Dtype,
        op: RedOp,
        current: &CudaContext,
    ) -> Result<bool, String> {
        let mut known = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, k)) = known.iter().find(|(key, _)| *key == (dtype, op)) {
            return k.as_ref().map(Option::is_some).map_err(Clone::clone);
        }
        let loaded = self.load(dtype, op);
        let _ = make_current_checked(current.cu_ctx());
        let answer = loaded.as_ref().map(Option::is_some).map_err(Clone::clone);
        known.push(((dtype, op), loaded));
        answer
    }

    fn load(&self, dtype: Dtype, op: RedOp) -> Result<Option<Vec<CudaFunction>>, String> {
        let elem = match dtype {
            Dtype::F32 => "F32",
            Dtype::F64 => "F64",
            Dtype::F16 => "F16",
            Dtype::Bf16 => "BF16",
            Dtype::I32 => "I32",
            Dtype::U32 => "U32",
            Dtype::I64 => "I64",
            Dtype::U64 => "U64",
            Dtype::I8 | Dtype::U8 => return Ok(None),
        };
        let op = match op {
            RedOp::Sum => "SUM",
            RedOp::Prod => "PROD",
            RedOp::Max => "MAX",
            RedOp::Min => "MIN",
            RedOp::Avg => return Ok(None),
        };
        if !super::nvrtc_present() {
            return Ok(None);
        }
        let mut compiled: Vec<((i32, i32), String)> = Vec::new();
        let mut out = Vec::with_capacity(self.ranks.len());
        for (rank, r) in self.ranks.iter().enumerate() {
            let failed = |what: &str, e: &dyn std::fmt::Display| {
                format!("{what} the peer all-reduce's kernel on rank {rank} failed: {e}")
            };
            let cc = r
                .ctx
                .compute_capability()
                .map_err(|e| failed("asking the device for", &e))?;
            if cc.0 < 7 {
                return Ok(None);
            }
            let ptx = match compiled.iter().find(|(c, _)| *c == cc) {
                Some((_, p)) => p.clone(),
                None => {
                    let mut options = vec![format!("--gpu-architecture=compute_{}{}", cc.0, cc.1)];
                    options.extend(defines(elem, op).into_iter().map(|(n, v)| {
                        if v.is_empty() {
                            format!("-D{n}")
                        } else {
                            format!("-D{n}={v}")
                        }
                    }));
                    let p =
                        super::nvrtc::compile(SOURCE, "peer_reduce.cu", &[], &options, &[], false)
                            .map_err(|f| failed("compiling", &f.log))?
                            .ptx;
                    compiled.push((cc, p.clone()));
                    p
                }
            };
            let m = r
                .ctx
                .load_module(Ptx::from_src(ptx))
                .map_err(|e| failed("loading", &e))?;
            let f = m
                .load_function("peer_all_reduce")
                .map_err(|e| failed("finding", &e))?;
            out.push(f);
        }
        Ok(Some(out))
    }

    /// The size of one element of `dtype`.
    pub(crate) fn elem_bytes(dtype: Dtype) -> usize {
        match dtype {
            Dtype::I8 | Dtype::U8 => 1,
            Dtype::F16 | Dtype::Bf16 => 2,
            Dtype::I32 | Dtype::U32 | Dtype::F32 => 4,
            Dtype::I64 | Dtype::U64 | Dtype::F64 => 8,
        }
    }

    /// The number of ranks.
    pub(crate) fn world(&self) -> usize {
        self.ranks.len()
    }

    /// Launches rank `rank`'s part of an all-reduce (`op`) of `count` elements of `dtype` from
    /// `src` into `dst` (device addresses on its device) on `stream`. The kernel must be
    /// [`ready`](Self::ready), and the elements at most [`SLOT_BYTES`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch(
        &self,
        rank: usize,
        dtype: Dtype,
        op: RedOp,
        stream: &CudaStream,
        src: u64,
        dst: u64,
        count: usize,
    ) -> CallResult<()> {
        let bytes = count * Self::elem_bytes(dtype);
        assert!(bytes <= SLOT_BYTES, "the caller keeps larger ones on NCCL");
        let func = {
            let known = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
            known
                .iter()
                .find(|(key, _)| *key == (dtype, op))
                .and_then(|(_, k)| k.as_ref().ok()?.as_ref())
                .map(|k| k[rank].clone())
                .expect("the caller asked `ready` first")
        };
        let r = &self.ranks[rank];
        let blocks = self.sms as u32;
        let aligned = u32::from(src.is_multiple_of(8) && dst.is_multiple_of(8));
        let (n, rank32, world) = (count as u64, rank as u32, self.ranks.len() as u32);
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = stream.launch_builder(&func);
        b.arg(&src)
            .arg(&dst)
            .arg(&n)
            .arg(&self.peers)
            .arg(&r.stop)
            .arg(&rank32)
            .arg(&world)
            .arg(&aligned);
        // SAFETY: the arguments match `peer_all_reduce`'s parameters in order and size (two
        // pointers and a count as 8 bytes, the mailboxes' addresses, the stop word's, then
        // three 4-byte words); `src` and `dst` hold
        // `count` elements (the caller checked the buffers), the mailbox and the stop word
        // live as long as the communicator, which outlives the graphs that launch this.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(|code| CallError {
                call: "cuLaunchKernel",
                code,
            })
    }
}

impl Drop for Mailboxes {
    fn drop(&mut self) {
        // A kernel may still be in flight (the graphs that launched it are gone, not its
        // launch): end its wait for a peer, let every rank's work finish, then free the memory
        // it writes (the frees are not ordered after the streams that launched it). A device
        // that faulted answers at once.
        self.stop();
        for r in &self.ranks {
            if make_current_checked(r.ctx.cu_ctx()).is_ok() {
                // SAFETY: the context is current (above); no arguments.
                let _ = check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() });
            }
        }
    }
}

impl StopWord {
    fn set(&self, v: u32) {
        // SAFETY: see the `Send`/`Sync` impls: an aligned word of a live allocation.
        unsafe { self.host.write_volatile(v) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }
}
