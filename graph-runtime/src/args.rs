//! Typed kernel arguments.
//!
//! A kernel node's arguments are a tuple, e.g. `(f32, Buf<f32>, BufMut<f32>, u32)`: by-value
//! scalars (anything cudarc calls [`DeviceRepr`]) and buffer handles, which reach the kernel as
//! device pointers. The node keeps the argument bytes in an [`ArgBlock`] (the shadow copy: CUDA
//! has no getters for an instantiated graph), so one argument can be changed and the rest
//! resent.

use cudarc::driver::DeviceRepr;

use crate::bind::{Bindings, Buf, BufMut};
use crate::block::{ArgBlock, ArgLayout, ArgOffsets};
use crate::error::HandleError;

mod sealed {
    pub trait Sealed {}
}

/// One kernel argument: a by-value scalar or a device buffer handle.
pub trait KernelArg: Copy + Send + Sync + 'static {
    /// The value the kernel receives.
    #[doc(hidden)]
    type Raw: Copy;
    #[doc(hidden)]
    fn resolve(&self, b: &Bindings<'_>) -> Result<Self::Raw, HandleError>;
}

impl<T: DeviceRepr + Copy + Send + Sync + 'static> KernelArg for T {
    type Raw = T;
    #[inline]
    fn resolve(&self, _: &Bindings<'_>) -> Result<T, HandleError> {
        Ok(*self)
    }
}

impl<T: 'static> KernelArg for Buf<T> {
    type Raw = u64;
    #[inline]
    fn resolve(&self, b: &Bindings<'_>) -> Result<u64, HandleError> {
        Ok(b.get(self.graph, self.index)?.addr)
    }
}

impl<T: 'static> KernelArg for BufMut<T> {
    type Raw = u64;
    #[inline]
    fn resolve(&self, b: &Bindings<'_>) -> Result<u64, HandleError> {
        Ok(b.get(self.graph, self.index)?.addr)
    }
}

/// A condition handle: what a conditional node (IF, IF/ELSE, WHILE, SWITCH) of the graph that
/// made it ([`Graph::add_condition`](crate::Graph::add_condition)) decides on. Pass it to a
/// kernel as an argument of C type `cudaGraphConditionalHandle` (or `unsigned long long`); the
/// kernel sets it with `cudaGraphSetConditional(handle, value)`. Every launch of the graph
/// starts it at its default value.
///
/// A handle belongs to one graph: a kernel node of another graph (a child graph included)
/// that is given it is refused when it is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cond {
    pub(crate) graph: crate::id::GraphId,
    pub(crate) raw: u64,
    pub(crate) scope: u32,
    pub(crate) default: u32,
}

impl Cond {
    /// A handle of no graph, which every graph refuses (what `cuda_graph!` holds until `build`
    /// makes the real one).
    #[doc(hidden)]
    pub fn unset() -> Self {
        Cond {
            graph: crate::id::GraphId::none(),
            raw: 0,
            scope: 0,
            default: 0,
        }
    }

    /// The value the handle takes when a launch starts.
    pub fn default_value(&self) -> u32 {
        self.default
    }

    /// The driver's handle (a `CUgraphConditionalHandle`).
    pub fn raw(&self) -> u64 {
        self.raw
    }
}

impl KernelArg for Cond {
    type Raw = u64;
    #[inline]
    fn resolve(&self, b: &Bindings<'_>) -> Result<u64, HandleError> {
        if self.graph == b.owner {
            Ok(self.raw)
        } else {
            Err(HandleError::Foreign { what: "condition" })
        }
    }
}

/// The full argument list of a kernel node: a tuple of [`KernelArg`]s, up to 40 long.
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
    fn write(&self, b: &Bindings<'_>, block: &mut ArgBlock) -> Result<(), HandleError>;
    /// Writes the arguments whose bit is set in `which` (argument `i`: bit `i`).
    #[doc(hidden)]
    fn write_where(
        &self,
        b: &Bindings<'_>,
        block: &mut ArgBlock,
        which: u64,
    ) -> Result<(), HandleError>;
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
            #[allow(unused_variables, unused_mut)]
            #[inline]
            fn write(&self, b: &Bindings<'_>, block: &mut ArgBlock) -> Result<(), HandleError> {
                // Every block of a node of this tuple is laid out by `OFFSETS` (the launch
                // check made it so): its offsets are constants here.
                debug_assert!(block.has_layout(&Self::OFFSETS));
                let mut w = block.writer();
                $(w.put(Self::OFFSETS.at[$i], self.$i.resolve(b)?);)*
                Ok(())
            }
            #[allow(unused_variables, unused_mut)]
            #[inline]
            fn write_where(
                &self,
                b: &Bindings<'_>,
                block: &mut ArgBlock,
                which: u64,
            ) -> Result<(), HandleError> {
                debug_assert!(block.has_layout(&Self::OFFSETS));
                let mut w = block.writer();
                $(if which >> $i & 1 != 0 {
                    w.put(Self::OFFSETS.at[$i], self.$i.resolve(b)?);
                })*
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
tuple_args!(17; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16);
tuple_args!(18; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17);
tuple_args!(19; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18);
tuple_args!(20; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19);
tuple_args!(21; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20);
tuple_args!(22; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21);
tuple_args!(23; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22);
tuple_args!(24; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23);
tuple_args!(25; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24);
tuple_args!(26; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25);
tuple_args!(27; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26);
tuple_args!(28; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27);
tuple_args!(29; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28);
tuple_args!(30; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29);
tuple_args!(31; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30);
tuple_args!(32; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31);
tuple_args!(33; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32);
tuple_args!(34; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32, A33];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32, 33 A33);
tuple_args!(35; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32, A33, A34];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32, 33 A33, 34 A34);
tuple_args!(36; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32, A33, A34, A35];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32, 33 A33, 34 A34, 35 A35);
tuple_args!(37; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32, A33, A34, A35, A36];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32, 33 A33, 34 A34, 35 A35, 36 A36);
tuple_args!(38; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32, A33, A34, A35, A36, A37];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32, 33 A33, 34 A34, 35 A35, 36 A36, 37 A37);
tuple_args!(39; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32, A33, A34, A35, A36, A37, A38];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32, 33 A33, 34 A34, 35 A35, 36 A36, 37 A37, 38 A38);
tuple_args!(40; [A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22, A23, A24, A25, A26, A27, A28, A29, A30, A31, A32, A33, A34, A35, A36, A37, A38, A39];
    0 A0, 1 A1, 2 A2, 3 A3, 4 A4, 5 A5, 6 A6, 7 A7, 8 A8, 9 A9, 10 A10, 11 A11, 12 A12, 13 A13, 14 A14, 15 A15, 16 A16, 17 A17, 18 A18, 19 A19, 20 A20, 21 A21, 22 A22, 23 A23, 24 A24, 25 A25, 26 A26, 27 A27, 28 A28, 29 A29, 30 A30, 31 A31, 32 A32, 33 A33, 34 A34, 35 A35, 36 A36, 37 A37, 38 A38, 39 A39);
