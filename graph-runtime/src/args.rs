//! Typed kernel arguments and the byte block the driver reads them from.
//!
//! A kernel node's arguments are a tuple, e.g. `(f32, Buf<f32>, BufMut<f32>, u32)`: by-value
//! scalars (anything cudarc calls [`DeviceRepr`]) and buffer handles, which reach the kernel as
//! device pointers. The node keeps the argument bytes (the shadow copy: CUDA has no getters for
//! an instantiated graph), so one argument can be changed and the rest resent.

use std::ffi::c_void;

use cudarc::driver::DeviceRepr;

use crate::bind::{Bindings, Buf, BufMut};
use crate::error::Result;

mod sealed {
    pub trait Sealed {}
}

/// One kernel argument: a by-value scalar or a device buffer handle.
pub trait KernelArg: Copy + Send + Sync + 'static {
    /// The value the kernel receives.
    #[doc(hidden)]
    type Raw: Copy;
    #[doc(hidden)]
    fn resolve(&self, b: &Bindings<'_>) -> Result<Self::Raw>;
}

impl<T: DeviceRepr + Copy + Send + Sync + 'static> KernelArg for T {
    type Raw = T;
    #[inline]
    fn resolve(&self, _: &Bindings<'_>) -> Result<T> {
        Ok(*self)
    }
}

impl<T: 'static> KernelArg for Buf<T> {
    type Raw = u64;
    #[inline]
    fn resolve(&self, b: &Bindings<'_>) -> Result<u64> {
        Ok(b.get(self.graph, self.index)?.addr)
    }
}

impl<T: 'static> KernelArg for BufMut<T> {
    type Raw = u64;
    #[inline]
    fn resolve(&self, b: &Bindings<'_>) -> Result<u64> {
        Ok(b.get(self.graph, self.index)?.addr)
    }
}

/// Size and alignment of one argument as the kernel receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgLayout {
    /// Bytes.
    pub size: usize,
    /// Alignment in bytes.
    pub align: usize,
}

/// The most arguments a kernel node takes.
pub const MAX_ARGS: usize = 16;

/// Where each argument of a tuple starts in its [`ArgBlock`], and the block's size.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgOffsets {
    /// Byte offset of each argument from the start of the argument bytes.
    pub at: [usize; MAX_ARGS],
    /// Number of arguments.
    pub count: usize,
    /// Bytes of arguments.
    pub bytes: usize,
}

impl ArgOffsets {
    /// Offsets of `layout`, each argument aligned (computed at compile time per tuple type).
    pub const fn of(layout: &[ArgLayout]) -> Self {
        let mut at = [0usize; MAX_ARGS];
        let mut end = 0usize;
        let mut i = 0;
        while i < layout.len() {
            let align = if layout[i].align == 0 {
                1
            } else if layout[i].align > 16 {
                16
            } else {
                layout[i].align
            };
            end = end.div_ceil(align) * align;
            at[i] = end;
            end += layout[i].size;
            i += 1;
        }
        ArgOffsets {
            at,
            count: layout.len(),
            bytes: end,
        }
    }
}

/// The full argument list of a kernel node: a tuple of [`KernelArg`]s, up to 16 long.
pub trait KernelArgs: Copy + Send + Sync + 'static + sealed::Sealed {
    /// Number of arguments.
    const COUNT: usize;
    /// Size and alignment of each argument.
    #[doc(hidden)]
    const LAYOUT: &'static [ArgLayout];
    /// Where each argument goes in the block.
    #[doc(hidden)]
    const OFFSETS: ArgOffsets;
    #[doc(hidden)]
    fn layout() -> Vec<ArgLayout> {
        Self::LAYOUT.to_vec()
    }
    #[doc(hidden)]
    fn write(&self, b: &Bindings<'_>, block: &mut ArgBlock) -> Result<()>;
}

/// Argument `I` of a kernel argument tuple: gives `set_arg::<I>` its type.
#[diagnostic::on_unimplemented(
    message = "this kernel node has no argument {I}: its arguments are `{Self}`",
    label = "no argument {I}",
    note = "arguments count from 0"
)]
pub trait ArgAt<const I: usize>: KernelArgs {
    /// The argument's type.
    type Arg: KernelArg;
}

/// Words of argument bytes a block keeps in place; longer argument lists go to the heap.
const INLINE_WORDS: usize = 4;

#[derive(Clone)]
enum Bytes {
    /// Up to 64 bytes of arguments, inside the block (no allocation).
    Inline([u128; INLINE_WORDS]),
    Heap(Box<[u128]>),
}

/// A kernel node's argument bytes, laid out as the kernel reads them. Up to 64 bytes live in
/// the block itself, so a node's shadow needs no allocation of its own; the pointer array the
/// driver reads (`kernelParams`) is made per call ([`ArgPtrs`]).
#[derive(Clone)]
pub struct ArgBlock {
    bytes: Bytes,
    offsets: &'static ArgOffsets,
}

/// The `kernelParams` array of one driver call: one pointer to each argument of a block.
pub(crate) struct ArgPtrs([*mut c_void; MAX_ARGS]);

impl ArgPtrs {
    #[inline]
    pub(crate) fn new() -> Self {
        ArgPtrs([std::ptr::null_mut(); MAX_ARGS])
    }

    #[inline]
    pub(crate) fn as_mut_ptr(&mut self) -> *mut *mut c_void {
        self.0.as_mut_ptr()
    }
}

impl ArgBlock {
    /// A zeroed block laid out by `offsets`.
    pub(crate) fn new(offsets: &'static ArgOffsets) -> Self {
        let words = offsets.bytes.div_ceil(16).max(1);
        let bytes = if words <= INLINE_WORDS {
            Bytes::Inline([0; INLINE_WORDS])
        } else {
            Bytes::Heap(vec![0u128; words].into_boxed_slice())
        };
        ArgBlock { bytes, offsets }
    }

    #[inline]
    fn words(&self) -> &[u128] {
        match &self.bytes {
            Bytes::Inline(w) => w,
            Bytes::Heap(w) => w,
        }
    }

    #[inline]
    fn words_mut(&mut self) -> &mut [u128] {
        match &mut self.bytes {
            Bytes::Inline(w) => w,
            Bytes::Heap(w) => w,
        }
    }

    /// Writes argument `i`.
    #[inline]
    pub(crate) fn put<R: Copy>(&mut self, i: usize, value: R) {
        debug_assert!(i < self.offsets.count);
        let off = self.offsets.at[i];
        let words = self.words_mut();
        assert!(off + std::mem::size_of::<R>() <= words.len() * 16);
        // SAFETY: in bounds (asserted above: `KernelArgs::write` puts argument `i` with the type
        // its layout was made from, so this never fires); `write_unaligned` needs no alignment.
        unsafe {
            std::ptr::write_unaligned((words.as_mut_ptr() as *mut u8).add(off) as *mut R, value)
        }
    }

    /// Reads argument `i` (as written by [`put`](Self::put) with the same type).
    #[inline]
    pub(crate) fn get<R: Copy>(&self, i: usize) -> R {
        debug_assert!(i < self.offsets.count);
        let off = self.offsets.at[i];
        let words = self.words();
        assert!(off + std::mem::size_of::<R>() <= words.len() * 16);
        // SAFETY: in bounds (asserted above); the bytes were written as an `R` by `put` (or are
        // zero, and the `R`s used here are plain scalars and device pointers).
        unsafe { std::ptr::read_unaligned((words.as_ptr() as *const u8).add(off) as *const R) }
    }

    /// Copies `source` into this block, reusing its storage when the layouts match.
    pub(crate) fn assign(&mut self, source: &Self) {
        if std::ptr::eq(self.offsets, source.offsets) || self.offsets == source.offsets {
            self.words_mut().copy_from_slice(source.words());
        } else {
            *self = source.clone();
        }
    }

    /// Points `ptrs` at each argument of this block. The pointers are valid while the block is
    /// neither moved nor dropped: build them right before the driver call that reads them.
    #[inline]
    pub(crate) fn pointers(&self, ptrs: &mut ArgPtrs) {
        let base = self.words().as_ptr() as *mut u8;
        for i in 0..self.offsets.count {
            // SAFETY: every offset lies inside the block (see `ArgOffsets::of` and `new`).
            ptrs.0[i] = unsafe { base.add(self.offsets.at[i]) } as *mut c_void;
        }
    }
}

macro_rules! tuple_args {
    ($count:expr; $gens:tt; $($i:tt $t:ident),*) => {
        impl<$($t: KernelArg),*> sealed::Sealed for ($($t,)*) {}
        impl<$($t: KernelArg),*> KernelArgs for ($($t,)*) {
            const COUNT: usize = $count;
            const LAYOUT: &'static [ArgLayout] = &[$(ArgLayout {
                size: std::mem::size_of::<$t::Raw>(),
                align: std::mem::align_of::<$t::Raw>(),
            }),*];
            const OFFSETS: ArgOffsets = ArgOffsets::of(Self::LAYOUT);
            #[allow(unused_variables)]
            #[inline]
            fn write(&self, b: &Bindings<'_>, block: &mut ArgBlock) -> Result<()> {
                $(block.put($i, self.$i.resolve(b)?);)*
                Ok(())
            }
        }
        $(tuple_args!(@at $gens; $i $t);)*
    };
    (@at [$($g:ident),*]; $i:tt $t:ident) => {
        impl<$($g: KernelArg),*> ArgAt<$i> for ($($g,)*) {
            type Arg = $t;
        }
    };
}

tuple_args!(0; []; );
tuple_args!(1; [A0]; 0 A0);
tuple_args!(2; [A0, A1]; 0 A0, 1 A1);
tuple_args!(3; [A0, A1, A2]; 0 A0, 1 A1, 2 A2);
tuple_args!(4; [A0, A1, A2, A3]; 0 A0, 1 A1, 2 A2, 3 A3);
tuple_args!(5; [A0, A1, A2, A3, A4]; 0 A0, 1 A1, 2 A2, 3 A3, 4 A4);
tuple_args!(6; [A0, A1, A2, A3, A4, A5]; 0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5);
tuple_args!(7; [A0, A1, A2, A3, A4, A5, A6]; 0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6);
tuple_args!(8; [A0, A1, A2, A3, A4, A5, A6, A7];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7);
tuple_args!(9; [A0, A1, A2, A3, A4, A5, A6, A7, A8];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8);
tuple_args!(10; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9);
tuple_args!(11; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10);
tuple_args!(12; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11);
tuple_args!(13; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12);
tuple_args!(14; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13);
tuple_args!(15; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13,
    14 A14);
tuple_args!(16; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13,
    14 A14, 15 A15);

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets<A: KernelArgs>() -> &'static ArgOffsets {
        &A::OFFSETS
    }

    #[test]
    fn layout_aligns_each_argument() {
        let o = offsets::<(u8, f64, u16, u32)>();
        assert_eq!((&o.at[..4], o.count, o.bytes), (&[0, 8, 16, 20][..], 4, 24));
        let b = ArgBlock::new(o);
        let mut p = ArgPtrs::new();
        b.pointers(&mut p);
        let base = b.words().as_ptr() as usize;
        let got: Vec<usize> = p.0[..4].iter().map(|&q| q as usize - base).collect();
        assert_eq!(got, vec![0, 8, 16, 20]);
        assert!(p.0[4..].iter().all(|q| q.is_null()));
    }

    #[test]
    fn pointers_reach_the_values_written_and_copies_hold_their_own() {
        let mut a = ArgBlock::new(offsets::<(u32, u64)>());
        a.put(0, 7u32);
        a.put(1, 0x1122_3344_5566_7788u64);
        let b = a.clone();
        a.put(0, 8u32);
        let mut p = ArgPtrs::new();
        b.pointers(&mut p);
        // SAFETY: the pointers point at the values written, inside `b`, which is alive.
        let (x, y) = unsafe { (*(p.0[0] as *const u32), *(p.0[1] as *const u64)) };
        assert_eq!((x, y), (7, 0x1122_3344_5566_7788));
        let mut c = ArgBlock::new(offsets::<(u32, u64)>());
        c.assign(&a);
        assert_eq!(
            (c.get::<u32>(0), c.get::<u64>(1)),
            (8, 0x1122_3344_5566_7788)
        );
    }

    #[test]
    fn long_argument_lists_go_to_the_heap() {
        type Long = (u64, u64, u64, u64, u64, u64, u64, u64, u64);
        let mut a = ArgBlock::new(offsets::<Long>());
        assert!(matches!(a.bytes, Bytes::Heap(_)));
        a.put(8, 99u64);
        let b = a.clone();
        assert_eq!(b.get::<u64>(8), 99);
        assert!(matches!(
            ArgBlock::new(offsets::<(u64, u32)>()).bytes,
            Bytes::Inline(_)
        ));
    }
}
