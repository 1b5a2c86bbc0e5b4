//! What each node kind's driver calls are given, built from checked parts so the driver reads
//! only what is alive and in bounds: a kernel function with its checked argument layout, a
//! memset, a memcpy and its ends (host memory borrowed for the graph's lifetime), an event; and
//! the proof that an executable graph is idle, which reading host memory that memcpy nodes
//! write needs. Below the template (`graph.rs`), the executable graph (`exec.rs`) and the
//! calls that add and set nodes on both (`nodes.rs`).

use std::any::TypeId;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr;

use cudarc::driver::sys::{
    CUevent, CUfunction, CUmemorytype, CUDA_KERNEL_NODE_PARAMS, CUDA_MEMCPY3D,
    CUDA_MEMSET_NODE_PARAMS,
};
use cudarc::driver::{CudaEvent, LaunchConfig};

use crate::block::{ArgBlock, ArgLayout, ArgOffsets, ArgPtrs};

/// A kernel function kept by a [`RawGraph`](super::RawGraph) and the argument layout checked
/// against its parameter list: every argument block of this layout gives the driver exactly one
/// value of the right size per parameter.
///
/// Where the driver reported the kernel's parameter offsets and the block's are the same
/// (`packed`), the block goes to the driver whole, as the parameter buffer it already is
/// (`extra`, `CU_LAUNCH_PARAM_BUFFER_POINTER`): the driver copies one buffer instead of one
/// value per pointer, and no pointer array is built per call. Otherwise it gets one pointer
/// per argument (`kernelParams`).
#[derive(Clone, Copy, PartialEq)]
pub(crate) struct Launchable {
    func: CUfunction,
    offsets: &'static ArgOffsets,
    packed: bool,
}

/// How an argument list differs from a kernel's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mismatch {
    Count {
        expected: usize,
        given: usize,
    },
    Size {
        index: usize,
        expected: usize,
        given: usize,
    },
}

impl Launchable {
    /// Checks `layout` (the argument tuple's) against `sizes` (the kernel's parameters), whose
    /// offsets in the kernel's parameter buffer are `param_offsets` where the driver said.
    pub(super) fn new(
        func: CUfunction,
        sizes: &[usize],
        param_offsets: Option<&[usize]>,
        layout: &[ArgLayout],
        offsets: &'static ArgOffsets,
    ) -> Result<Self, Mismatch> {
        if sizes.len() != layout.len() || offsets.count != layout.len() {
            return Err(Mismatch::Count {
                expected: sizes.len(),
                given: layout.len(),
            });
        }
        for (index, (a, &size)) in layout.iter().zip(sizes).enumerate() {
            if a.size != size {
                return Err(Mismatch::Size {
                    index,
                    expected: size,
                    given: a.size,
                });
            }
        }
        // The whole block is the parameter buffer when every argument sits where the kernel
        // reads it (the sizes matched above, so the buffer's length is the block's).
        let packed =
            !sizes.is_empty() && param_offsets.is_some_and(|o| o == &offsets.at[..offsets.count]);
        Ok(Launchable {
            func,
            offsets,
            packed,
        })
    }

    /// The layout the launch was checked with: blocks made with this very reference pass
    /// [`ArgBlock::has_layout`](crate::block::ArgBlock::has_layout) by address.
    #[inline]
    pub(crate) fn offsets(&self) -> &'static ArgOffsets {
        self.offsets
    }

    /// The driver's parameter struct: it points into `args` and `ptrs`, so it is built right
    /// before the call that reads it.
    #[inline(always)]
    pub(super) fn params(
        &self,
        cfg: &LaunchConfig,
        args: &ArgBlock,
        ptrs: &mut ArgPtrs,
    ) -> CUDA_KERNEL_NODE_PARAMS {
        // A block of another layout would hand the driver the wrong number of arguments.
        assert!(
            args.has_layout(self.offsets),
            "an argument block is sent with the layout it was checked with"
        );
        let (kernel_params, extra) = if self.packed {
            (ptr::null_mut(), args.packed(ptrs))
        } else {
            args.pointers(ptrs);
            (ptrs.as_mut_ptr(), ptr::null_mut())
        };
        CUDA_KERNEL_NODE_PARAMS {
            func: self.func,
            gridDimX: cfg.grid_dim.0,
            gridDimY: cfg.grid_dim.1,
            gridDimZ: cfg.grid_dim.2,
            blockDimX: cfg.block_dim.0,
            blockDimY: cfg.block_dim.1,
            blockDimZ: cfg.block_dim.2,
            sharedMemBytes: cfg.shared_mem_bytes,
            kernelParams: kernel_params,
            extra,
            kern: ptr::null_mut(),
            ctx: ptr::null_mut(),
        }
    }
}

/// A memset of `len` elements of `elem` bytes (1, 2 or 4) at device address `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Memset {
    pub dst: u64,
    pub bits: u32,
    pub elem: u32,
    pub len: usize,
}

impl Memset {
    pub(super) fn params(&self) -> CUDA_MEMSET_NODE_PARAMS {
        CUDA_MEMSET_NODE_PARAMS {
            dst: self.dst,
            pitch: 0,
            value: self.bits,
            elementSize: self.elem,
            width: self.len,
            height: 1,
        }
    }
}

/// Host memory borrowed for `'a`: a slice's address and length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HostPtr<'a> {
    addr: usize,
    bytes: usize,
    /// Borrowed mutably: a memcpy may write it.
    writable: bool,
    _borrow: PhantomData<&'a [u8]>,
}

impl<'a> HostPtr<'a> {
    /// A slice the driver may read.
    pub fn of<T: Copy>(s: &'a [T]) -> Self {
        HostPtr {
            addr: s.as_ptr() as usize,
            bytes: std::mem::size_of_val(s),
            writable: false,
            _borrow: PhantomData,
        }
    }

    /// A slice the driver may write; [`HostPtrMut::slice_mut`] gives it back.
    pub fn of_mut<T: Copy + 'static>(s: &'a mut [T]) -> HostPtrMut<'a> {
        HostPtrMut {
            ptr: HostPtr {
                addr: s.as_mut_ptr() as usize,
                bytes: std::mem::size_of_val(s),
                writable: true,
                _borrow: PhantomData,
            },
            elem: TypeId::of::<T>(),
        }
    }
}

/// Host memory borrowed mutably for `'a`, which only memcpy nodes write, and the type of its
/// elements.
pub(crate) struct HostPtrMut<'a> {
    ptr: HostPtr<'a>,
    elem: TypeId,
}

impl<'a> HostPtrMut<'a> {
    /// The address, for memcpy destinations.
    pub fn ptr(&self) -> HostPtr<'a> {
        self.ptr
    }

    /// The memory as `&[T]`, or `None` if it was not bound as a slice of `T`. `idle` shows
    /// that no launch is writing it.
    pub fn slice<T: Copy + 'static>(&self, idle: &Idle<'_>) -> Option<&[T]> {
        let _ = idle;
        (self.elem == TypeId::of::<T>()).then(|| {
            // SAFETY: address and length came from a `&'a mut [T]` of this very `T` (checked
            // above), held by this value for `'a`; `idle` borrows the executable graph
            // mutably, so no launch that could write the memory is in flight or can start.
            unsafe { std::slice::from_raw_parts(self.ptr.addr as *const T, self.len::<T>()) }
        })
    }

    /// The memory as `&mut [T]`; as [`slice`](Self::slice), and `&mut self` makes this the
    /// only access from Rust.
    pub fn slice_mut<T: Copy + 'static>(&mut self, idle: &Idle<'_>) -> Option<&mut [T]> {
        let _ = idle;
        (self.elem == TypeId::of::<T>()).then(|| {
            // SAFETY: as in `slice`, exclusive.
            unsafe { std::slice::from_raw_parts_mut(self.ptr.addr as *mut T, self.len::<T>()) }
        })
    }

    fn len<T>(&self) -> usize {
        self.ptr.bytes / std::mem::size_of::<T>().max(1)
    }
}

/// Proof that no launch of an executable graph is in flight: made by
/// [`RawExec::wait`](super::RawExec::wait), which it borrows mutably so no launch can start.
pub(crate) struct Idle<'e>(pub(super) PhantomData<&'e mut ()>);

/// One end of a memcpy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End<'a> {
    Device(u64),
    /// Memory of another device (peer access enabled): given to the driver as a unified
    /// address, which it resolves to that device (a memcpy node refuses a device address of
    /// another device's memory).
    Peer(u64),
    Host(HostPtr<'a>),
}

/// A 1-D copy of `bytes` bytes; host ends are known to hold at least that many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Memcpy<'a> {
    src: End<'a>,
    dst: End<'a>,
    bytes: usize,
}

impl<'a> Memcpy<'a> {
    /// `None` if a host end is shorter than `bytes`, or the destination is host memory that
    /// was not borrowed mutably.
    pub fn new(src: End<'a>, dst: End<'a>, bytes: usize) -> Option<Self> {
        let fits = |e: End<'_>| match e {
            End::Device(_) | End::Peer(_) => true,
            End::Host(h) => h.bytes >= bytes,
        };
        let writable = match dst {
            End::Device(_) | End::Peer(_) => true,
            End::Host(h) => h.writable,
        };
        (fits(src) && fits(dst) && writable).then_some(Memcpy { src, dst, bytes })
    }

    pub fn src(&self) -> End<'a> {
        self.src
    }

    pub fn dst(&self) -> End<'a> {
        self.dst
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub(super) fn params(&self) -> CUDA_MEMCPY3D {
        let kind = |e: End<'_>| match e {
            End::Host(_) => CUmemorytype::CU_MEMORYTYPE_HOST,
            End::Device(_) => CUmemorytype::CU_MEMORYTYPE_DEVICE,
            End::Peer(_) => CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        };
        let host = |e: End<'_>| match e {
            End::Host(h) => h.addr as *mut c_void,
            End::Device(_) | End::Peer(_) => ptr::null_mut(),
        };
        let device = |e: End<'_>| match e {
            End::Host(_) => 0,
            End::Device(a) | End::Peer(a) => a,
        };
        CUDA_MEMCPY3D {
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
}

/// An event borrowed for `'a`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventRef<'a> {
    raw: CUevent,
    _borrow: PhantomData<&'a CudaEvent>,
}

impl<'a> EventRef<'a> {
    pub fn of(e: &'a CudaEvent) -> Self {
        EventRef {
            raw: e.cu_event(),
            _borrow: PhantomData,
        }
    }

    pub(super) fn raw(&self) -> CUevent {
        self.raw
    }
}

// SAFETY: an event handle is an identifier the driver lets any thread use; the event itself is
// borrowed for `'a` as `&CudaEvent`, which is `Sync`.
unsafe impl Send for EventRef<'_> {}
// SAFETY: as above.
unsafe impl Sync for EventRef<'_> {}
// SAFETY: a function handle is an identifier the driver lets any thread use; the graph that
// made the `Launchable` keeps the `CudaFunction` (which is `Send + Sync`).
unsafe impl Send for Launchable {}
// SAFETY: as above.
unsafe impl Sync for Launchable {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout of `(u64, u8, f64, u16, u32)`.
    const fn arg(size: usize) -> ArgLayout {
        ArgLayout { size, align: size }
    }
    static LAYOUT: [ArgLayout; 5] = [arg(8), arg(1), arg(8), arg(2), arg(4)];
    static OFFSETS: ArgOffsets = ArgOffsets::of(&LAYOUT);

    fn launch(sizes: &[usize], offsets: Option<&[usize]>) -> Result<Launchable, Mismatch> {
        Launchable::new(ptr::null_mut(), sizes, offsets, &LAYOUT, &OFFSETS)
    }

    /// A block goes whole only where every argument sits where the driver says the kernel
    /// reads it; else (offsets unknown, or another padding) one pointer per argument.
    #[test]
    fn blocks_go_whole_only_where_the_offsets_are_the_kernels() {
        let sizes = [8, 1, 8, 2, 4];
        let theirs = [0, 8, 16, 24, 28];
        assert_eq!(&OFFSETS.at[..5], &theirs);
        assert!(launch(&sizes, Some(&theirs)).unwrap().packed);
        assert!(!launch(&sizes, None).unwrap().packed);
        assert!(!launch(&sizes, Some(&[0, 8, 16, 24, 32])).unwrap().packed);
        assert!(!launch(&sizes, Some(&[0, 8, 16, 24])).unwrap().packed);
        // A size mismatch is still refused, whatever the offsets.
        assert!(launch(&[8, 1, 8, 2, 8], Some(&theirs)).is_err());
    }

    /// The `extra` array hands the driver the block's first byte and its length, which stay
    /// valid after the array is built; a pointer array points at each argument.
    #[test]
    fn the_packed_array_names_the_block_and_its_length() {
        let mut block = ArgBlock::new(&OFFSETS);
        block.put(2, 2.5f64);
        let mut ptrs = ArgPtrs::new();
        let packed = launch(&[8, 1, 8, 2, 4], Some(&[0, 8, 16, 24, 28])).unwrap();
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        let p = packed.params(&cfg, &block, &mut ptrs);
        assert!(p.kernelParams.is_null());
        // SAFETY: `params` wrote five entries into `ptrs`, which is alive; the block's bytes
        // and the layout's length outlive these reads.
        unsafe {
            let e = std::slice::from_raw_parts(p.extra, 5);
            assert_eq!(e[0] as usize, 1);
            assert_eq!(e[2] as usize, 2);
            assert!(e[4].is_null());
            assert_eq!(*(e[3] as *const usize), 32);
            assert_eq!(*((e[1] as *const u8).add(16) as *const f64), 2.5);
        }
        let plain = launch(&[8, 1, 8, 2, 4], None).unwrap();
        let p = plain.params(&cfg, &block, &mut ptrs);
        assert!(p.extra.is_null());
        // SAFETY: as above, five pointers into the live block.
        unsafe {
            let k = std::slice::from_raw_parts(p.kernelParams, 5);
            assert_eq!(*(k[2] as *const f64), 2.5);
        }
    }
}
