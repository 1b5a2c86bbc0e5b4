//! What the driver can tell before any graph exists: whether it is installed and new enough,
//! the device's launch limits, and a kernel's parameters and limits.

use std::ffi::c_void;
use std::sync::Mutex;

use cudarc::driver::sys::{self, CUdevice_attribute, CUfunction_attribute, CUresult};
use cudarc::driver::CudaFunction;

use super::{check, CallResult};

/// Every driver entry point the runtime may call. [`missing_symbol`] checks them all up front so
/// an old driver is reported as an error instead of a panic deep inside a later call.
const SYMBOLS: &[&str] = &[
    "cuGraphCreate",
    "cuGraphDestroy",
    "cuGraphAddEmptyNode",
    "cuGraphAddKernelNode_v2",
    "cuGraphAddMemsetNode",
    "cuGraphAddMemcpyNode",
    "cuGraphAddHostNode",
    "cuGraphAddChildGraphNode",
    "cuGraphAddEventRecordNode",
    "cuGraphAddEventWaitNode",
    "cuGraphAddNode_v2",
    "cuGraphAddMemAllocNode",
    "cuGraphAddMemFreeNode",
    "cuGraphMemAllocNodeGetParams",
    "cuStreamBeginCapture_v2",
    "cuStreamEndCapture",
    "cuGraphGetNodes",
    "cuGraphGetEdges_v2",
    "cuGraphNodeGetType",
    "cuGraphConditionalHandleCreate",
    "cuDriverGetVersion",
    "cuDeviceCanAccessPeer",
    "cuCtxEnablePeerAccess",
    "cuGraphAddDependencies",
    "cuGraphRemoveDependencies",
    "cuGraphKernelNodeSetParams_v2",
    "cuGraphMemsetNodeSetParams",
    "cuGraphMemcpyNodeSetParams",
    "cuGraphHostNodeSetParams",
    "cuGraphEventRecordNodeSetEvent",
    "cuGraphEventWaitNodeSetEvent",
    "cuGraphInstantiateWithParams",
    "cuGraphExecDestroy",
    "cuGraphExecKernelNodeSetParams_v2",
    "cuGraphExecMemsetNodeSetParams",
    "cuGraphExecMemcpyNodeSetParams",
    "cuGraphExecHostNodeSetParams",
    "cuGraphExecChildGraphNodeSetParams",
    "cuGraphExecEventRecordNodeSetEvent",
    "cuGraphExecEventWaitNodeSetEvent",
    "cuGraphNodeSetEnabled",
    "cuGraphExecUpdate_v2",
    "cuGraphLaunch",
    "cuGraphUpload",
    "cuGraphDebugDotPrint",
    "cuFuncGetParamInfo",
    "cuFuncGetAttribute",
    "cuDeviceGetAttribute",
];

/// Whether libcuda can be loaded. Every other driver call panics inside cudarc when it cannot.
pub(crate) fn driver_present() -> bool {
    // SAFETY: only tries to load the library; no driver call is made.
    unsafe { sys::is_culib_present() }
}

/// The driver's CUDA version, as `major * 1000 + minor * 10` (12080 for 12.8).
pub(crate) fn driver_version() -> CallResult<u32> {
    let mut v = 0;
    // SAFETY: `v` is a valid out-pointer; the call needs no context.
    check("cuDriverGetVersion", unsafe {
        sys::cuDriverGetVersion(&mut v)
    })?;
    Ok(v as u32)
}

/// Whether libnvrtc can be loaded.
/// The driver's "named symbol not found", for a kernel known to be missing without asking.
pub(crate) fn not_found() -> cudarc::driver::DriverError {
    cudarc::driver::DriverError(sys::CUresult::CUDA_ERROR_NOT_FOUND)
}

pub(crate) fn nvrtc_present() -> bool {
    // SAFETY: only tries to load the library.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// The first symbol of [`SYMBOLS`] that the loaded driver library lacks, or `None` when the
/// library cannot be loaded at all (ask [`driver_present`] first).
pub(crate) fn missing_symbol() -> Option<&'static str> {
    if !driver_present() {
        return None;
    }
    // SAFETY: the library is present (checked above); `culib` only returns the loaded handle.
    let lib = unsafe { sys::culib() };
    SYMBOLS.iter().copied().find(|name| {
        // SAFETY: the symbol is looked up, never called, so its type does not matter.
        unsafe { lib.get::<*const c_void>(name.as_bytes()) }.is_err()
    })
}

/// Whether `e` is a "sticky" error: a kernel fault after which the context is unusable and
/// every later call in it fails with the same code.
pub(crate) fn context_lost(e: cudarc::driver::DriverError) -> bool {
    use CUresult::*;
    matches!(
        e.0,
        CUDA_ERROR_ASSERT
            | CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

/// Limits of the device a graph is made for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_block: [u32; 3],
    pub max_grid: [u32; 3],
    pub max_threads: u32,
}

/// The device's launch limits, read once per device. The thread's last answer is kept beside
/// the process's list, so a thread that builds graphs for one device takes no lock.
pub(crate) fn device_limits(dev: sys::CUdevice) -> CallResult<Limits> {
    thread_local! {
        static LAST: std::cell::Cell<Option<(sys::CUdevice, Limits)>> =
            const { std::cell::Cell::new(None) };
    }
    if let Some((d, l)) = LAST.with(|c| c.get()) {
        if d == dev {
            return Ok(l);
        }
    }
    let limits = device_limits_locked(dev)?;
    LAST.with(|c| c.set(Some((dev, limits))));
    Ok(limits)
}

/// [`device_limits`] from the process's list, read from the driver the first time.
fn device_limits_locked(dev: sys::CUdevice) -> CallResult<Limits> {
    static KNOWN: Mutex<Vec<(sys::CUdevice, Limits)>> = Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&(_, l)) = known.iter().find(|(d, _)| *d == dev) {
        return Ok(l);
    }
    let attr = |a| {
        let mut v = 0;
        // SAFETY: `v` is a valid out-pointer; `dev` came from a live context.
        check("cuDeviceGetAttribute", unsafe {
            sys::cuDeviceGetAttribute(&mut v, a, dev)
        })
        .map(|()| v.max(0) as u32)
    };
    use CUdevice_attribute::*;
    let limits = Limits {
        max_block: [
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ],
        max_grid: [
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ],
        max_threads: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
    };
    known.push((dev, limits));
    Ok(limits)
}

/// A kernel's parameter sizes and offsets, and its launch limits.
pub(crate) struct FuncInfo {
    pub sizes: Vec<usize>,
    /// Where each parameter starts in the kernel's parameter buffer, as the driver says; `None`
    /// where the driver cannot say (then nodes send one pointer per argument).
    pub offsets: Option<Vec<usize>>,
    pub max_threads: u32,
    pub max_dynamic_smem: u32,
}

/// Offset and size of parameter `index` of `raw`, or the driver's refusal (an index past the
/// last parameter is `CUDA_ERROR_INVALID_VALUE`).
fn param_info(raw: sys::CUfunction, index: usize) -> CallResult<(usize, usize)> {
    let (mut offset, mut size) = (0usize, 0usize);
    // SAFETY: `raw` is a live function (the caller's `CudaFunction` keeps its module loaded);
    // both out-pointers are valid.
    let r = unsafe { sys::cuFuncGetParamInfo(raw, index, &mut offset, &mut size) };
    check("cuFuncGetParamInfo", r).map(|()| (offset, size))
}

/// Parameter sizes (`known`, from PTX, else probed) and offsets, and launch limits of `f`. The
/// caller makes `f`'s context current.
pub(crate) fn func_info(f: &CudaFunction, known: Option<&[usize]>) -> CallResult<FuncInfo> {
    let raw = f.cu_function();
    let (sizes, offsets) = match known {
        // The offsets are asked for the known parameters only (no probe past the end); a
        // driver that cannot say leaves them unknown.
        Some(p) => {
            let offsets = (0..p.len())
                .map(|i| param_info(raw, i).map(|(o, _)| o))
                .collect::<CallResult<Vec<_>>>()
                .ok();
            (p.to_vec(), offsets)
        }
        None => {
            // Probe until the driver says the index is past the end.
            let (mut sizes, mut offsets) = (Vec::new(), Vec::new());
            loop {
                match param_info(raw, sizes.len()) {
                    Ok((offset, size)) => {
                        sizes.push(size);
                        offsets.push(offset);
                    }
                    Err(e) if e.code.0 == CUresult::CUDA_ERROR_INVALID_VALUE => {
                        break (sizes, Some(offsets));
                    }
                    Err(e) => return Err(e),
                }
            }
        }
    };
    let attr = |a| {
        let mut v = 0;
        // SAFETY: as above; `v` is a valid out-pointer.
        check("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(&mut v, a, raw)
        })
        .map(|()| v.max(0) as u32)
    };
    Ok(FuncInfo {
        sizes,
        offsets,
        max_threads: attr(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_dynamic_smem: attr(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        )?,
    })
}
