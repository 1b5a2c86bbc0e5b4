//! Kernel argument and buffer element types for C types with no Rust counterpart: the tensor
//! map (TMA) descriptor `CUtensorMap`, the standard library's empty tag types
//! (`std::bool_constant<B>`, `std::integral_constant<T, v>`), and a device address (an element
//! of the array a `float**` parameter points at).

use std::fmt;
use std::marker::PhantomData;

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

/// C `CUtensorMap`: a tensor-map (TMA) descriptor, 128 opaque bytes that `cuTensorMapEncode*`
/// fills, passed to a kernel by value (`const __grid_constant__ CUtensorMap map`) or kept in a
/// buffer of them. 64-byte aligned, as CUDA 12's `cuda.h` declares it (CUDA 13 aligns it to
/// 128 bytes; a kernel receives the same 128 bytes either way).
///
/// ```
/// use cuda_graph_runtime::kernel::TensorMap;
/// assert_eq!((std::mem::size_of::<TensorMap>(), std::mem::align_of::<TensorMap>()), (128, 64));
/// let raw = cuda_graph_runtime::cudarc::driver::sys::CUtensorMap { opaque: [7; 16] };
/// assert_eq!(TensorMap::from(raw).words()[0], 7);
/// ```
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TensorMap {
    opaque: [u64; 16],
}

impl TensorMap {
    /// The descriptor of these 16 words (as `cuTensorMapEncodeTiled` wrote them).
    pub const fn from_words(words: [u64; 16]) -> Self {
        TensorMap { opaque: words }
    }

    /// Its 16 words.
    pub const fn words(&self) -> [u64; 16] {
        self.opaque
    }
}

impl From<cudarc::driver::sys::CUtensorMap> for TensorMap {
    fn from(m: cudarc::driver::sys::CUtensorMap) -> Self {
        TensorMap { opaque: m.opaque }
    }
}

impl fmt::Debug for TensorMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorMap").finish_non_exhaustive()
    }
}

// SAFETY: `#[repr(C)]` plain data of CUtensorMap's size (128 bytes, asserted below), every bit
// pattern valid on the host, all zeros included.
unsafe impl DeviceRepr for TensorMap {}
// SAFETY: as above.
unsafe impl ValidAsZeroBits for TensorMap {}

/// An empty tag type passed by value (`std::bool_constant<B>`, `std::integral_constant<T, v>`,
/// `std::true_type`): C++ gives it one byte, which the kernel never reads; its meaning is its
/// type, fixed by the template instance.
///
/// ```
/// use cuda_graph_runtime::kernel::Tag;
/// assert_eq!(std::mem::size_of::<Tag>(), 1);
/// let _t = Tag::new();
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tag {
    byte: u8,
}

impl Tag {
    /// The tag (its one byte zero).
    pub const fn new() -> Self {
        Tag { byte: 0 }
    }
}

// SAFETY: `#[repr(C)]` one byte, every value valid.
unsafe impl DeviceRepr for Tag {}
// SAFETY: as above.
unsafe impl ValidAsZeroBits for Tag {}

/// A device address of a `T` (an element of the array a `float**` or `const float* const*`
/// parameter points at): 8 bytes, as C's pointers. The graph tracks the buffer of addresses
/// it is given, not the memory the addresses point at: the race check does not see what a
/// kernel does through them, and in a graph where a kernel takes one (or a [`TensorMap`],
/// whose stores are as unseen) no kernel may read a buffer before its programmatic wait.
///
/// ```
/// use cuda_graph_runtime::buffer::Addr;
/// let a = Addr::<f32>::from_raw(0x7f00_0000_1000);
/// assert_eq!(a.raw(), 0x7f00_0000_1000);
/// assert_eq!(std::mem::size_of::<Addr<f32>>(), 8);
/// assert!(Addr::<f32>::null().is_null());
/// ```
#[repr(transparent)]
pub struct Addr<T> {
    raw: u64,
    _to: PhantomData<fn() -> T>,
}

impl<T> Addr<T> {
    /// The address `raw` (a `CUdeviceptr`).
    pub const fn from_raw(raw: u64) -> Self {
        Addr {
            raw,
            _to: PhantomData,
        }
    }

    /// The null address.
    pub const fn null() -> Self {
        Self::from_raw(0)
    }

    /// The address (a `CUdeviceptr`).
    pub const fn raw(&self) -> u64 {
        self.raw
    }

    /// Whether it is null.
    pub const fn is_null(&self) -> bool {
        self.raw == 0
    }
}

impl<T> Clone for Addr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Addr<T> {}

impl<T> PartialEq for Addr<T> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl<T> Eq for Addr<T> {}

impl<T> Default for Addr<T> {
    fn default() -> Self {
        Self::null()
    }
}

impl<T> fmt::Debug for Addr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Addr({:#x})", self.raw)
    }
}

// SAFETY: `#[repr(transparent)]` over a `u64`, every value valid on the host (the device reads
// it as a pointer; what it points at is the kernel's business, as for any integer argument).
unsafe impl<T> DeviceRepr for Addr<T> {}
// SAFETY: as above; zero is the null address.
unsafe impl<T> ValidAsZeroBits for Addr<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, size_of};

    #[test]
    fn layouts_are_cs() {
        assert_eq!((size_of::<TensorMap>(), align_of::<TensorMap>()), (128, 64));
        assert_eq!(
            size_of::<TensorMap>(),
            size_of::<cudarc::driver::sys::CUtensorMap>()
        );
        assert_eq!((size_of::<Tag>(), align_of::<Tag>()), (1, 1));
        assert_eq!((size_of::<Addr<f64>>(), align_of::<Addr<f64>>()), (8, 8));
    }
}
