//! CUDA's vector types (`float2`, `float4`, `int4`, `__half2`, ...) as `#[repr(C)]` Rust types
//! with the same size and alignment, usable as buffer elements and by-value kernel arguments.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use half::{bf16, f16};

macro_rules! vectors {
    ($($(#[$doc:meta])* $name:ident($t:ty; $($f:ident),+) align $a:literal;)*) => {$(
        $(#[$doc])*
        #[repr(C, align($a))]
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        pub struct $name {
            $(#[allow(missing_docs)] pub $f: $t,)+
        }

        impl $name {
            /// The vector of these components.
            pub const fn new($($f: $t),+) -> Self {
                Self { $($f),+ }
            }
        }

        // SAFETY: `#[repr(C)]` plain data with the C type's size and alignment (checked by
        // the tests below), every bit pattern of its fields valid, all zeros included.
        unsafe impl DeviceRepr for $name {}
        // SAFETY: as above: all-zero bits are a valid value of every field.
        unsafe impl ValidAsZeroBits for $name {}
    )*};
}

vectors! {
    /// `float2`.
    Float2(f32; x, y) align 8;
    /// `float3` (12 bytes, 4-byte aligned).
    Float3(f32; x, y, z) align 4;
    /// `float4`.
    Float4(f32; x, y, z, w) align 16;
    /// `double2`.
    Double2(f64; x, y) align 16;
    /// `int2`.
    Int2(i32; x, y) align 8;
    /// `int3`.
    Int3(i32; x, y, z) align 4;
    /// `int4`.
    Int4(i32; x, y, z, w) align 16;
    /// `uint2`.
    UInt2(u32; x, y) align 8;
    /// `uint3`.
    UInt3(u32; x, y, z) align 4;
    /// `uint4`.
    UInt4(u32; x, y, z, w) align 16;
    /// `char4`.
    Char4(i8; x, y, z, w) align 4;
    /// `uchar4`.
    UChar4(u8; x, y, z, w) align 4;
    /// `short2`.
    Short2(i16; x, y) align 4;
    /// `ushort2`.
    UShort2(u16; x, y) align 4;
    /// `longlong2`.
    LongLong2(i64; x, y) align 16;
    /// `ulonglong2`.
    ULongLong2(u64; x, y) align 16;
    /// `__half2`.
    Half2(f16; x, y) align 4;
    /// `__nv_bfloat162`.
    BFloat162(bf16; x, y) align 4;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, size_of};

    /// Sizes and alignments as CUDA's `vector_types.h` (and `cuda_fp16.h`) lay them out.
    #[test]
    fn layouts_are_cudas() {
        let cases = [
            (size_of::<Float2>(), align_of::<Float2>(), 8, 8),
            (size_of::<Float3>(), align_of::<Float3>(), 12, 4),
            (size_of::<Float4>(), align_of::<Float4>(), 16, 16),
            (size_of::<Double2>(), align_of::<Double2>(), 16, 16),
            (size_of::<Int2>(), align_of::<Int2>(), 8, 8),
            (size_of::<Int3>(), align_of::<Int3>(), 12, 4),
            (size_of::<Int4>(), align_of::<Int4>(), 16, 16),
            (size_of::<UInt4>(), align_of::<UInt4>(), 16, 16),
            (size_of::<UChar4>(), align_of::<UChar4>(), 4, 4),
            (size_of::<Short2>(), align_of::<Short2>(), 4, 4),
            (size_of::<LongLong2>(), align_of::<LongLong2>(), 16, 16),
            (size_of::<Half2>(), align_of::<Half2>(), 4, 4),
            (size_of::<BFloat162>(), align_of::<BFloat162>(), 4, 4),
        ];
        for (k, (s, a, cs, ca)) in cases.into_iter().enumerate() {
            assert_eq!((s, a), (cs, ca), "case {k}");
        }
        assert_eq!(Float4::new(1.0, 2.0, 3.0, 4.0).w, 4.0);
    }
}
