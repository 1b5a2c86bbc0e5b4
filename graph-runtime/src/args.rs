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

/// The full argument list of a kernel node: a tuple of [`KernelArg`]s, up to 16 long.
pub trait KernelArgs: Copy + Send + Sync + 'static + sealed::Sealed {
    /// Number of arguments.
    const COUNT: usize;
    #[doc(hidden)]
    fn layout() -> Vec<ArgLayout>;
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

/// The bytes of a kernel node's arguments and the pointer array the driver reads.
///
/// The storage is 16-byte aligned `u128` words, so moving the block never moves the bytes the
/// pointers point at.
pub struct ArgBlock {
    words: Box<[u128]>,
    offsets: Box<[usize]>,
    ptrs: Box<[*mut c_void]>,
}

// SAFETY: `ptrs` only ever points into `words`, which the block owns; no sharing escapes.
unsafe impl Send for ArgBlock {}
// SAFETY: `&ArgBlock` only reads.
unsafe impl Sync for ArgBlock {}

impl ArgBlock {
    /// A zeroed block laid out for `layout`.
    pub(crate) fn new(layout: &[ArgLayout]) -> Self {
        let mut offsets = Vec::with_capacity(layout.len());
        let mut end = 0usize;
        for a in layout {
            let align = a.align.clamp(1, 16);
            end = end.div_ceil(align) * align;
            offsets.push(end);
            end += a.size;
        }
        let words = vec![0u128; end.div_ceil(16).max(1)].into_boxed_slice();
        let mut block = ArgBlock {
            words,
            offsets: offsets.into_boxed_slice(),
            ptrs: vec![std::ptr::null_mut(); layout.len()].into_boxed_slice(),
        };
        block.fix_pointers();
        block
    }

    fn fix_pointers(&mut self) {
        let base = self.words.as_mut_ptr() as *mut u8;
        for (p, &off) in self.ptrs.iter_mut().zip(self.offsets.iter()) {
            // SAFETY: every offset plus its argument's size lies inside `words` (see `new`).
            *p = unsafe { base.add(off) } as *mut c_void;
        }
    }

    /// Writes argument `i`.
    #[inline]
    pub(crate) fn put<R: Copy>(&mut self, i: usize, value: R) {
        let off = self.offsets[i];
        assert!(off + std::mem::size_of::<R>() <= self.words.len() * 16);
        // SAFETY: in bounds (asserted above: `KernelArgs::write` puts argument `i` with the type
        // its layout was made from, so this never fires); `write_unaligned` needs no alignment.
        unsafe {
            std::ptr::write_unaligned(
                (self.words.as_mut_ptr() as *mut u8).add(off) as *mut R,
                value,
            )
        }
    }

    /// Copies the bytes of another block of the same layout.
    #[inline]
    pub(crate) fn copy_from(&mut self, other: &ArgBlock) {
        self.words.copy_from_slice(&other.words);
    }

    /// The pointer array for `CUDA_KERNEL_NODE_PARAMS::kernelParams`.
    #[inline]
    pub(crate) fn ptrs(&self) -> *mut *mut c_void {
        self.ptrs.as_ptr() as *mut *mut c_void
    }
}

impl Clone for ArgBlock {
    fn clone(&self) -> Self {
        let mut b = ArgBlock {
            words: self.words.clone(),
            offsets: self.offsets.clone(),
            ptrs: self.ptrs.clone(),
        };
        b.fix_pointers();
        b
    }

    fn clone_from(&mut self, source: &Self) {
        if self.words.len() == source.words.len() && self.offsets == source.offsets {
            self.words.copy_from_slice(&source.words);
        } else {
            *self = source.clone();
        }
    }
}

macro_rules! tuple_args {
    ($count:expr; $gens:tt; $($i:tt $t:ident),*) => {
        impl<$($t: KernelArg),*> sealed::Sealed for ($($t,)*) {}
        impl<$($t: KernelArg),*> KernelArgs for ($($t,)*) {
            const COUNT: usize = $count;
            fn layout() -> Vec<ArgLayout> {
                vec![$(ArgLayout {
                    size: std::mem::size_of::<$t::Raw>(),
                    align: std::mem::align_of::<$t::Raw>(),
                }),*]
            }
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

    #[test]
    fn layout_aligns_each_argument() {
        let l = <(u8, f64, u16, u32) as KernelArgs>::layout();
        let b = ArgBlock::new(&l);
        assert_eq!(&*b.offsets, &[0, 8, 16, 20]);
        let base = b.words.as_ptr() as usize;
        let got: Vec<usize> = b.ptrs.iter().map(|p| *p as usize - base).collect();
        assert_eq!(got, vec![0, 8, 16, 20]);
    }

    #[test]
    fn clone_repoints_into_its_own_storage() {
        let l = <(u32, u64) as KernelArgs>::layout();
        let mut a = ArgBlock::new(&l);
        a.put(0, 7u32);
        a.put(1, 0x1122_3344_5566_7788u64);
        let b = a.clone();
        let base = b.words.as_ptr() as usize;
        assert!(b
            .ptrs
            .iter()
            .all(|p| (*p as usize) >= base && (*p as usize) < base + 32));
        // SAFETY: the pointers point at the values just written, inside `b`.
        let (x, y) = unsafe { (*(b.ptrs[0] as *const u32), *(b.ptrs[1] as *const u64)) };
        assert_eq!((x, y), (7, 0x1122_3344_5566_7788));
    }
}
