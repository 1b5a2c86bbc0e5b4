//! The argument block: a kernel node's argument bytes, laid out as the kernel reads them, and
//! the pointer array the driver reads them through.
//!
//! Besides the driver layer, the only module with `unsafe` code: writing and reading typed
//! values at computed offsets of a byte block.

use std::ffi::c_void;

/// Size and alignment of one argument as the kernel receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgLayout {
    /// Bytes.
    pub size: usize,
    /// Alignment in bytes.
    pub align: usize,
}

/// The most arguments a kernel node takes.
pub const MAX_ARGS: usize = 24;

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
/// driver reads (`kernelParams`) is made per call.
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

    /// Whether this block is laid out by `offsets`.
    #[inline]
    pub(crate) fn has_layout(&self, offsets: &ArgOffsets) -> bool {
        std::ptr::eq(self.offsets, offsets) || *self.offsets == *offsets
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The offsets of arguments of these sizes (each aligned to its size), kept for the test.
    fn offsets(sizes: &[usize]) -> &'static ArgOffsets {
        let layout: Vec<ArgLayout> = sizes
            .iter()
            .map(|&size| ArgLayout { size, align: size })
            .collect();
        Box::leak(Box::new(ArgOffsets::of(&layout)))
    }

    #[test]
    fn layout_aligns_each_argument() {
        let o = offsets(&[1, 8, 2, 4]);
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
        let mut a = ArgBlock::new(offsets(&[4, 8]));
        a.put(0, 7u32);
        a.put(1, 0x1122_3344_5566_7788u64);
        let b = a.clone();
        a.put(0, 8u32);
        let mut p = ArgPtrs::new();
        b.pointers(&mut p);
        // SAFETY: the pointers point at the values written, inside `b`, which is alive.
        let (x, y) = unsafe { (*(p.0[0] as *const u32), *(p.0[1] as *const u64)) };
        assert_eq!((x, y), (7, 0x1122_3344_5566_7788));
        let mut c = ArgBlock::new(offsets(&[4, 8]));
        c.assign(&a);
        assert_eq!(
            (c.get::<u32>(0), c.get::<u64>(1)),
            (8, 0x1122_3344_5566_7788)
        );
    }

    #[test]
    fn long_argument_lists_go_to_the_heap() {
        let mut a = ArgBlock::new(offsets(&[8; 9]));
        assert!(matches!(a.bytes, Bytes::Heap(_)));
        a.put(8, 99u64);
        let b = a.clone();
        assert_eq!(b.get::<u64>(8), 99);
        assert!(matches!(
            ArgBlock::new(offsets(&[8, 4])).bytes,
            Bytes::Inline(_)
        ));
    }
}
