//! Shadow copies of node parameters.
//!
//! CUDA cannot read parameters back from an executable graph, so every node keeps its current
//! parameters here: once for the template and once for the executable graph. A setter edits a
//! copy, sends it to the driver, and keeps it only if the driver accepted it, so a failed edit
//! changes nothing.

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::CUmemorytype;
use cudarc::driver::LaunchConfig;

use crate::args::{ArgBlock, ArgPtrs};
use crate::driver::{
    self, CUcontext, CUevent, CUfunction, CUgraph, CUgraphExec, CUgraphNode, CallResult,
    KernelParams, MemcpyParams, MemsetParams,
};
use crate::host::HostSlot;

/// The driver's parameter struct for a kernel node. It points into `args` and `ptrs`: use it
/// before either moves.
#[inline]
fn kernel_params(
    func: CUfunction,
    cfg: &LaunchConfig,
    args: &ArgBlock,
    ptrs: &mut ArgPtrs,
) -> KernelParams {
    args.pointers(ptrs);
    KernelParams {
        func,
        gridDimX: cfg.grid_dim.0,
        gridDimY: cfg.grid_dim.1,
        gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0,
        blockDimY: cfg.block_dim.1,
        blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        kernelParams: ptrs.as_mut_ptr(),
        extra: ptr::null_mut(),
        kern: ptr::null_mut(),
        ctx: ptr::null_mut(),
    }
}

/// Where a setter sends parameters.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    /// The template graph's node.
    Template,
    /// The executable graph's node.
    Exec(CUgraphExec),
}

/// Limits of the device a graph was made for, read once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_block: [u32; 3],
    pub max_grid: [u32; 3],
    pub max_threads: u32,
}

pub(crate) struct KernelShadow {
    pub func: CUfunction,
    pub cfg: LaunchConfig,
    pub args: ArgBlock,
    /// Spare block of the same layout, made on the first whole-argument edit: edits are built
    /// here and swapped in on success.
    /// Boxed: most nodes never need one, and every shadow would carry its size.
    scratch: Option<Box<ArgBlock>>,
    pub enabled: bool,
    /// The function's own limits.
    pub max_threads: u32,
    pub max_dynamic_smem: u32,
}

impl KernelShadow {
    pub fn new(
        func: CUfunction,
        cfg: LaunchConfig,
        args: ArgBlock,
        max_threads: u32,
        max_dynamic_smem: u32,
    ) -> Self {
        KernelShadow {
            func,
            cfg,
            args,
            scratch: None,
            enabled: true,
            max_threads,
            max_dynamic_smem,
        }
    }

    /// Fills the spare argument block (same layout as `args`, made on first use) with `fill`
    /// and returns the parameters that would send it with launch configuration `cfg` (pointing
    /// into this shadow and `ptrs`: use them before either moves).
    pub fn stage<E>(
        &mut self,
        cfg: &LaunchConfig,
        ptrs: &mut ArgPtrs,
        fill: impl FnOnce(&mut ArgBlock) -> Result<(), E>,
    ) -> Result<KernelParams, E> {
        let args = &self.args;
        let scratch = self.scratch.get_or_insert_with(|| Box::new(args.clone()));
        fill(scratch)?;
        Ok(kernel_params(self.func, cfg, scratch, ptrs))
    }

    /// Makes the spare block the current arguments (after the driver accepted it).
    pub fn commit_scratch(&mut self) {
        if let Some(s) = self.scratch.as_mut() {
            std::mem::swap(&mut self.args, &mut **s);
        }
    }

    /// The parameters that send `args` with `cfg` (pointing into `args` and `ptrs`: use them
    /// before either moves).
    #[inline]
    pub fn params(&self, cfg: &LaunchConfig, args: &ArgBlock, ptrs: &mut ArgPtrs) -> KernelParams {
        kernel_params(self.func, cfg, args, ptrs)
    }

    /// Checks a launch configuration against the device's and the function's limits.
    pub fn check(&self, cfg: &LaunchConfig, lim: &Limits) -> Result<(), String> {
        let g = [cfg.grid_dim.0, cfg.grid_dim.1, cfg.grid_dim.2];
        let b = [cfg.block_dim.0, cfg.block_dim.1, cfg.block_dim.2];
        for (axis, i) in ["x", "y", "z"].iter().zip(0..3) {
            if g[i] == 0 || g[i] > lim.max_grid[i] {
                return Err(format!(
                    "grid {axis} is {}; it must be between 1 and {}",
                    g[i], lim.max_grid[i]
                ));
            }
            if b[i] == 0 || b[i] > lim.max_block[i] {
                return Err(format!(
                    "block {axis} is {}; it must be between 1 and {}",
                    b[i], lim.max_block[i]
                ));
            }
        }
        let threads = b.iter().map(|&v| v as u64).product::<u64>();
        let max = self.max_threads.min(lim.max_threads) as u64;
        if threads > max {
            return Err(format!(
                "block {:?} has {threads} threads; this kernel allows at most {max} per block",
                cfg.block_dim
            ));
        }
        if cfg.shared_mem_bytes > self.max_dynamic_smem {
            return Err(format!(
                "{} bytes of dynamic shared memory asked; this kernel allows at most {}",
                cfg.shared_mem_bytes, self.max_dynamic_smem
            ));
        }
        Ok(())
    }

    pub fn apply(&self, t: Target, n: CUgraphNode) -> CallResult<()> {
        let mut ptrs = ArgPtrs::new();
        let p = self.params(&self.cfg, &self.args, &mut ptrs);
        // SAFETY: `func` is kept alive by the graph's borrow of its `CudaFunction`; `args`
        // holds one value per parameter (checked against the function when the node was added).
        unsafe {
            match t {
                Target::Template => driver::kernel_set(n, &p),
                Target::Exec(e) => driver::exec_kernel_set(e, n, &p),
            }
        }
    }
}

impl Clone for KernelShadow {
    fn clone(&self) -> Self {
        KernelShadow {
            func: self.func,
            cfg: self.cfg,
            args: self.args.clone(),
            // A copy builds its own spare block when it first needs one.
            scratch: None,
            enabled: self.enabled,
            max_threads: self.max_threads,
            max_dynamic_smem: self.max_dynamic_smem,
        }
    }

    /// Reuses the argument blocks' storage (no allocation when the layouts match).
    fn clone_from(&mut self, source: &Self) {
        self.func = source.func;
        self.cfg = source.cfg;
        self.args.assign(&source.args);
        self.enabled = source.enabled;
        self.max_threads = source.max_threads;
        self.max_dynamic_smem = source.max_dynamic_smem;
    }
}

#[derive(Clone, Copy)]
pub(crate) struct MemsetShadow {
    pub dst: u64,
    pub bits: u32,
    pub elem: u32,
    pub len: usize,
    pub enabled: bool,
}

impl MemsetShadow {
    pub fn params(&self) -> MemsetParams {
        MemsetParams {
            dst: self.dst,
            pitch: 0,
            value: self.bits,
            elementSize: self.elem,
            width: self.len,
            height: 1,
        }
    }

    pub fn apply(&self, t: Target, n: CUgraphNode, ctx: CUcontext) -> CallResult<()> {
        let p = self.params();
        // SAFETY: `dst` is a bound buffer of the graph's context holding at least `len`
        // elements (checked by the setters), borrowed for the graph's life.
        unsafe {
            match t {
                Target::Template => driver::memset_set(n, &p),
                Target::Exec(e) => driver::exec_memset_set(e, n, &p, ctx),
            }
        }
    }
}

/// One end of a memcpy.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub host: bool,
    pub addr: u64,
}

#[derive(Clone, Copy)]
pub(crate) struct MemcpyShadow {
    pub src: Endpoint,
    pub dst: Endpoint,
    pub bytes: usize,
    pub enabled: bool,
}

impl MemcpyShadow {
    pub fn params(&self) -> MemcpyParams {
        let kind = |e: Endpoint| {
            if e.host {
                CUmemorytype::CU_MEMORYTYPE_HOST
            } else {
                CUmemorytype::CU_MEMORYTYPE_DEVICE
            }
        };
        let host = |e: Endpoint| {
            if e.host {
                e.addr as *mut c_void
            } else {
                ptr::null_mut()
            }
        };
        let device = |e: Endpoint| if e.host { 0 } else { e.addr };
        MemcpyParams {
            srcXInBytes: 0,
            srcY: 0,
            srcZ: 0,
            srcLOD: 0,
            srcMemoryType: kind(self.src),
            srcHost: host(self.src),
            srcDevice: device(self.src),
            srcArray: ptr::null_mut(),
            reserved0: ptr::null_mut(),
            srcPitch: 0,
            srcHeight: 0,
            dstXInBytes: 0,
            dstY: 0,
            dstZ: 0,
            dstLOD: 0,
            dstMemoryType: kind(self.dst),
            dstHost: host(self.dst),
            dstDevice: device(self.dst),
            dstArray: ptr::null_mut(),
            reserved1: ptr::null_mut(),
            dstPitch: 0,
            dstHeight: 0,
            WidthInBytes: self.bytes,
            Height: 1,
            Depth: 1,
        }
    }

    pub fn apply(&self, t: Target, n: CUgraphNode, ctx: CUcontext) -> CallResult<()> {
        let p = self.params();
        // SAFETY: both ends are bound buffers holding at least `bytes` bytes (checked by the
        // setters), borrowed for the graph's life.
        unsafe {
            match t {
                Target::Template => driver::memcpy_set(n, &p),
                Target::Exec(e) => driver::exec_memcpy_set(e, n, &p, ctx),
            }
        }
    }
}

#[derive(Clone)]
pub(crate) struct HostShadow<'a> {
    pub slot: Arc<HostSlot<'a>>,
}

impl HostShadow<'_> {
    pub fn apply(&self, t: Target, n: CUgraphNode) -> CallResult<()> {
        let p = self.slot.params();
        // SAFETY: the slot is an `Arc` held by this shadow, and retired (not freed) while a
        // launch may still call it.
        unsafe {
            match t {
                Target::Template => driver::host_set(n, &p),
                Target::Exec(e) => driver::exec_host_set(e, n, &p),
            }
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct ChildShadow {
    /// Index into the graph's table of child graphs: the one this side runs.
    pub child: u32,
    /// The child the template node embeds (a driver clone made when the node was added).
    pub embedded: u32,
    pub raw: CUgraph,
}

#[derive(Clone, Copy)]
pub(crate) struct EventShadow {
    pub event: CUevent,
}

impl EventShadow {
    pub fn apply(&self, t: Target, n: CUgraphNode, record: bool) -> CallResult<()> {
        // SAFETY: the event is borrowed by the graph for its whole life.
        unsafe {
            match (t, record) {
                (Target::Template, true) => driver::event_record_set(n, self.event),
                (Target::Template, false) => driver::event_wait_set(n, self.event),
                (Target::Exec(e), true) => driver::exec_event_record_set(e, n, self.event),
                (Target::Exec(e), false) => driver::exec_event_wait_set(e, n, self.event),
            }
        }
    }
}

/// The parameters of one node.
#[derive(Clone)]
pub(crate) enum Shadow<'a> {
    Empty,
    Kernel(KernelShadow),
    Memset(MemsetShadow),
    Memcpy(MemcpyShadow),
    Host(HostShadow<'a>),
    Child(ChildShadow),
    EventRecord(EventShadow),
    EventWait(EventShadow),
}

impl Shadow<'_> {
    /// Sends these parameters to node `n` of the target. Child nodes are left alone: the
    /// template has no setter for them (see `GraphExec::update`).
    pub fn apply(&self, t: Target, n: CUgraphNode, ctx: CUcontext) -> CallResult<()> {
        match self {
            Shadow::Empty | Shadow::Child(_) => Ok(()),
            Shadow::Kernel(k) => k.apply(t, n),
            Shadow::Memset(m) => m.apply(t, n, ctx),
            Shadow::Memcpy(m) => m.apply(t, n, ctx),
            Shadow::Host(h) => h.apply(t, n),
            Shadow::EventRecord(e) => e.apply(t, n, true),
            Shadow::EventWait(e) => e.apply(t, n, false),
        }
    }

    /// Whether the node is enabled (only kernel, memset and memcpy nodes can be disabled).
    pub fn enabled(&self) -> bool {
        match self {
            Shadow::Kernel(k) => k.enabled,
            Shadow::Memset(m) => m.enabled,
            Shadow::Memcpy(m) => m.enabled,
            _ => true,
        }
    }

    pub fn set_enabled(&mut self, on: bool) {
        match self {
            Shadow::Kernel(k) => k.enabled = on,
            Shadow::Memset(m) => m.enabled = on,
            Shadow::Memcpy(m) => m.enabled = on,
            _ => unreachable!("only kernel, memset and memcpy nodes have an enabled state"),
        }
    }
}

macro_rules! accessor {
    ($name:ident, $variant:ident, $ty:ty) => {
        impl<'a> Shadow<'a> {
            #[inline]
            pub fn $name(&mut self) -> &mut $ty {
                match self {
                    Shadow::$variant(x) => x,
                    _ => unreachable!("a node handle's type fixes its kind"),
                }
            }
        }
    };
}
accessor!(kernel, Kernel, KernelShadow);
accessor!(memset, Memset, MemsetShadow);
accessor!(memcpy, Memcpy, MemcpyShadow);
accessor!(host, Host, HostShadow<'a>);
accessor!(child, Child, ChildShadow);

impl Shadow<'_> {
    #[inline]
    pub fn event(&mut self) -> &mut EventShadow {
        match self {
            Shadow::EventRecord(e) | Shadow::EventWait(e) => e,
            _ => unreachable!("a node handle's type fixes its kind"),
        }
    }
}
