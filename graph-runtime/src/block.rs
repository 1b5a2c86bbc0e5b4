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

/// The most arguments a kernel node takes (the bit masks that note edited arguments have room
/// for 63).
pub const MAX_ARGS: usize = 40;

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
    /// More than `INLINE_WORDS` words (see `ArgBlock::new`): every block has at least as many
    /// words as one kept in place, which `in_bounds` relies on.
    Heap(Box<[u128]>),
}

/// A kernel node's argument bytes, laid out as the kernel reads them. Up to 64 bytes live in
/// the block itself, so a node's shadow needs no allocation of its own; the pointer array the
/// driver reads (`kernelParams`) is made per call.
#[derive(Clone)]
#[repr(C)]
pub struct ArgBlock {
    offsets: &'static ArgOffsets,
    bytes: Bytes,
}

/// Whether `size` bytes at byte `off` lie inside a block of `words` words of 16 bytes (no
/// overflow). Every block has at least `INLINE_WORDS` words (a longer list than that goes to
/// the heap, see `ArgBlock::new`), so a value inside the first 64 bytes is in bounds whatever
/// the length: with a constant offset and size, as a tuple's own are, the check folds away.
#[inline(always)]
fn in_bounds(off: usize, size: usize, words: usize) -> bool {
    debug_assert!(words >= INLINE_WORDS);
    off.checked_add(size)
        .is_some_and(|end| end <= INLINE_WORDS * 16 || end <= words * 16)
}

/// The bytes of one [`ArgBlock`], written argument by argument at given offsets.
pub(crate) struct ArgWriter<'b>(&'b mut [u128]);

impl ArgWriter<'_> {
    /// Writes `value` at byte `off`.
    #[inline(always)]
    pub(crate) fn put<R: Copy>(&mut self, off: usize, value: R) {
        assert!(in_bounds(off, std::mem::size_of::<R>(), self.0.len()));
        // SAFETY: in bounds (asserted above: the offsets are the block's layout's, made from
        // the types written, so this never fires); `write_unaligned` needs no alignment.
        unsafe {
            std::ptr::write_unaligned((self.0.as_mut_ptr() as *mut u8).add(off) as *mut R, value)
        }
    }
}

/// The `kernelParams` array of one driver call: one pointer to each argument of a block. Only
/// the block's arguments are written ([`ArgBlock::pointers`]): the driver reads as many as the
/// kernel has parameters, which the block's layout was checked to match, so the rest of the
/// array is left as it is rather than cleared on every call.
pub(crate) struct ArgPtrs([std::mem::MaybeUninit<*mut c_void>; MAX_ARGS]);

impl ArgPtrs {
    #[inline]
    pub(crate) fn new() -> Self {
        ArgPtrs([std::mem::MaybeUninit::uninit(); MAX_ARGS])
    }

    /// The array the driver reads: call [`ArgBlock::pointers`] on it first.
    #[inline]
    pub(crate) fn as_mut_ptr(&mut self) -> *mut *mut c_void {
        self.0.as_mut_ptr() as *mut *mut c_void
    }
}

impl ArgBlock {
    /// A zeroed block laid out by `offsets`.
    #[inline]
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
    #[cfg(test)]
    pub(crate) fn put<R: Copy>(&mut self, i: usize, value: R) {
        debug_assert!(i < self.offsets.count);
        self.put_at(self.offsets.at[i], value)
    }

    /// Writes the argument at byte `off` of this block's layout (a constant where the
    /// argument tuple's type is known: its `KernelArgs::OFFSETS`).
    #[inline(always)]
    pub(crate) fn put_at<R: Copy>(&mut self, off: usize, value: R) {
        debug_assert!(self.offsets.at[..self.offsets.count].contains(&off));
        let words = self.words_mut();
        assert!(in_bounds(off, std::mem::size_of::<R>(), words.len()));
        // SAFETY: in bounds (asserted above: `KernelArgs::write` puts argument `i` with the type
        // its layout was made from, so this never fires); `write_unaligned` needs no alignment.
        unsafe {
            std::ptr::write_unaligned((words.as_mut_ptr() as *mut u8).add(off) as *mut R, value)
        }
    }

    /// A writer of arguments by byte offset: the bytes are found once for all the arguments
    /// written (what `KernelArgs` writes through, with its layout's offsets as constants).
    #[inline(always)]
    pub(crate) fn writer(&mut self) -> ArgWriter<'_> {
        debug_assert!(self.offsets.count <= MAX_ARGS);
        ArgWriter(self.words_mut())
    }

    /// Reads argument `i` (as written by [`put`](Self::put) with the same type).
    #[cfg(test)]
    pub(crate) fn get<R: Copy>(&self, i: usize) -> R {
        debug_assert!(i < self.offsets.count);
        self.get_at(self.offsets.at[i])
    }

    /// Reads the argument at byte `off` of this block's layout (see [`put_at`](Self::put_at)).
    #[inline(always)]
    pub(crate) fn get_at<R: Copy>(&self, off: usize) -> R {
        debug_assert!(self.offsets.at[..self.offsets.count].contains(&off));
        let words = self.words();
        assert!(in_bounds(off, std::mem::size_of::<R>(), words.len()));
        // SAFETY: in bounds (asserted above); the bytes were written as an `R` by `put` (or are
        // zero, and the `R`s used here are plain scalars and device pointers).
        unsafe { std::ptr::read_unaligned((words.as_ptr() as *const u8).add(off) as *const R) }
    }

    /// Whether this block is laid out by `offsets`.
    #[inline]
    pub(crate) fn has_layout(&self, offsets: &ArgOffsets) -> bool {
        std::ptr::eq(self.offsets, offsets) || Self::same_layout(self.offsets, offsets)
    }

    /// Two layouts at different addresses compared field by field (kept out of line: a block
    /// is sent with the very layout its launch was checked with, which the address shows).
    #[cold]
    #[inline(never)]
    fn same_layout(a: &ArgOffsets, b: &ArgOffsets) -> bool {
        *a == *b
    }

    /// A copy of the bytes of a block kept in place (64 bytes or less), to give back to
    /// [`set_inline`](Self::set_inline); `None` for a longer block.
    #[inline]
    pub(crate) fn inline_copy(&self) -> Option<[u128; INLINE_WORDS]> {
        match &self.bytes {
            Bytes::Inline(w) => Some(*w),
            Bytes::Heap(_) => None,
        }
    }

    /// Puts back bytes taken by [`inline_copy`](Self::inline_copy) from this block.
    #[inline]
    pub(crate) fn set_inline(&mut self, words: [u128; INLINE_WORDS]) {
        if let Bytes::Inline(w) = &mut self.bytes {
            *w = words;
        }
    }

    /// Copies argument `i` of `source`, a block of the same layout, into this block.
    pub(crate) fn copy_arg(&mut self, i: usize, source: &Self) {
        if i >= self.offsets.count || !self.has_layout(source.offsets) {
            return;
        }
        let start = self.offsets.at[i];
        let end = if i + 1 < self.offsets.count {
            self.offsets.at[i + 1]
        } else {
            self.offsets.bytes
        };
        let (src, dst) = (source.words(), self.words_mut());
        assert!(start <= end && end <= src.len() * 16 && end <= dst.len() * 16);
        // SAFETY: both ranges lie inside their blocks (asserted above), and the blocks are
        // distinct objects (`&mut self` and `&source`), so they do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (src.as_ptr() as *const u8).add(start),
                (dst.as_mut_ptr() as *mut u8).add(start),
                end - start,
            )
        }
    }

    /// Copies `source` into this block, reusing its storage when the layouts match.
    #[inline(always)]
    pub(crate) fn assign(&mut self, source: &Self) {
        // The usual case, inlined: one layout, both blocks in place (a fixed-size copy).
        if std::ptr::eq(self.offsets, source.offsets) {
            if let (Bytes::Inline(mine), Bytes::Inline(theirs)) = (&mut self.bytes, &source.bytes) {
                *mine = *theirs;
                return;
            }
        }
        self.assign_other(source)
    }

    /// [`assign`](Self::assign) of a long block, or of another layout.
    #[inline(never)]
    fn assign_other(&mut self, source: &Self) {
        if std::ptr::eq(self.offsets, source.offsets) || self.offsets == source.offsets {
            match (&mut self.bytes, &source.bytes) {
                // A fixed-size copy: no call.
                (Bytes::Inline(mine), Bytes::Inline(theirs)) => *mine = *theirs,
                _ => self.words_mut().copy_from_slice(source.words()),
            }
        } else {
            *self = source.clone();
        }
    }

    /// Points `ptrs` at each argument of this block. The pointers are valid while the block is
    /// neither moved nor dropped: build them right before the driver call that reads them.
    /// Kept out of line: most launches hand the driver the block whole (`packed`), and the loop
    /// inlined would sit in the middle of every setter's path.
    #[inline(never)]
    pub(crate) fn pointers(&self, ptrs: &mut ArgPtrs) {
        let base = self.words().as_ptr() as *mut u8;
        let o = self.offsets;
        for (p, &at) in ptrs.0.iter_mut().zip(&o.at[..o.count.min(MAX_ARGS)]) {
            // SAFETY: every offset lies inside the block (see `ArgOffsets::of` and `new`).
            p.write(unsafe { base.add(at) } as *mut c_void);
        }
    }

    /// The driver's `extra` array that hands it this block whole, as the kernel's parameter
    /// buffer (`CU_LAUNCH_PARAM_BUFFER_POINTER`, then its length in bytes), written into
    /// `ptrs`. Only for a block whose offsets are the kernel's own (`Launchable`'s `packed`).
    #[inline]
    pub(crate) fn packed(&self, ptrs: &mut ArgPtrs) -> *mut *mut c_void {
        // The driver's markers: CU_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE and _END.
        const POINTER: usize = 1;
        const SIZE: usize = 2;
        let base = self.words().as_ptr() as *mut c_void;
        // The length lives in the layout, which is `'static`: it outlives the call.
        let len = &self.offsets.bytes as *const usize as *mut c_void;
        let p = &mut ptrs.0;
        p[0].write(std::ptr::without_provenance_mut(POINTER));
        p[1].write(base);
        p[2].write(std::ptr::without_provenance_mut(SIZE));
        p[3].write(len);
        p[4].write(std::ptr::null_mut());
        ptrs.as_mut_ptr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write's bounds: inside the block's bytes, never wrapping past the end of memory.
    #[test]
    fn bounds_hold_at_the_edge_and_do_not_wrap() {
        assert!(in_bounds(56, 8, 4));
        assert!(!in_bounds(57, 8, 4));
        assert!(!in_bounds(usize::MAX - 3, 8, 4));
        assert!(in_bounds(0, 0, 4));
        assert!(in_bounds(72, 8, 5));
        assert!(!in_bounds(73, 8, 5));
    }

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
        // SAFETY: `pointers` wrote the first four.
        let got: Vec<usize> = p.0[..4]
            .iter()
            .map(|q| unsafe { q.assume_init() } as usize - base)
            .collect();
        assert_eq!(got, vec![0, 8, 16, 20]);
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
        // SAFETY: `pointers` wrote both; they point at the values written, inside `b`, which
        // is alive.
        let (x, y) = unsafe {
            (
                *(p.0[0].assume_init() as *const u32),
                *(p.0[1].assume_init() as *const u64),
            )
        };
        assert_eq!((x, y), (7, 0x1122_3344_5566_7788));
        let mut c = ArgBlock::new(offsets(&[4, 8]));
        c.assign(&a);
        assert_eq!(
            (c.get::<u32>(0), c.get::<u64>(1)),
            (8, 0x1122_3344_5566_7788)
        );
    }

    #[test]
    fn one_argument_copies_alone_and_inline_bytes_come_back() {
        let o = offsets(&[4, 8, 2]);
        let (mut a, mut b) = (ArgBlock::new(o), ArgBlock::new(o));
        a.put(0, 1u32);
        a.put(1, 2u64);
        a.put(2, 3u16);
        b.put(0, 7u32);
        b.put(2, 9u16);
        b.copy_arg(1, &a);
        assert_eq!(
            (b.get::<u32>(0), b.get::<u64>(1), b.get::<u16>(2)),
            (7, 2, 9)
        );
        b.copy_arg(2, &a);
        assert_eq!(
            (b.get::<u32>(0), b.get::<u64>(1), b.get::<u16>(2)),
            (7, 2, 3)
        );
        let saved = b.inline_copy().expect("14 bytes stay in place");
        b.put(0, 100u32);
        b.set_inline(saved);
        assert_eq!(b.get::<u32>(0), 7);
        assert!(ArgBlock::new(offsets(&[8; 9])).inline_copy().is_none());
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

    #[test]
    fn every_block_has_the_inline_words_so_the_short_bounds_check_is_the_full_one() {
        // The check's shortcut (inside the first 64 bytes) stands on this.
        for n in 0..=MAX_ARGS {
            for size in [1, 2, 4, 8, 16] {
                let b = ArgBlock::new(offsets(&vec![size; n]));
                assert!(
                    b.words().len() >= INLINE_WORDS,
                    "{n} arguments of {size} bytes"
                );
            }
        }
        for words in INLINE_WORDS..12 {
            for off in 0..words * 16 + 24 {
                for size in [0, 1, 2, 4, 8, 16, usize::MAX - off] {
                    let full = off.checked_add(size).is_some_and(|e| e <= words * 16);
                    assert_eq!(in_bounds(off, size, words), full, "{off} {size} {words}");
                }
            }
        }
    }
}
