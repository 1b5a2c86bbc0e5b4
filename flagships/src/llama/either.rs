//! The executable graphs of either element type: `either_exec!` makes an enum of a graph's
//! `f32` and `bf16` executables that dereferences to the [`GraphExec`](cuda_graph::GraphExec)
//! both are, and `on_either!` runs code on whichever it holds. The single-GPU step and
//! generation graphs' ([`Exec`], [`GenExec`]) are here; the tensor-parallel ones are made the
//! same way in `tp` and `tp_loop`.

use super::graph::{StepBf16Exec, StepF32Exec};
use super::loop_graph::{GenBf16Exec, GenF32Exec};

/// An executable graph of either element type: `$name<'a>` with variants `F32` and `Bf16`,
/// dereferencing to the [`GraphExec`](cuda_graph::GraphExec) both are (launch, wait, edit the
/// same way whichever).
macro_rules! either_exec {
    ($(#[$doc:meta])* $name:ident, $f32:ident, $bf16:ident) => {
        $(#[$doc])*
        #[doc(hidden)]
        pub enum $name<'a> {
            F32($f32<'a>),
            Bf16($bf16<'a>),
        }

        impl<'a> std::ops::Deref for $name<'a> {
            type Target = cuda_graph::GraphExec<'a>;
            fn deref(&self) -> &cuda_graph::GraphExec<'a> {
                match self {
                    $name::F32(e) => e,
                    $name::Bf16(e) => e,
                }
            }
        }

        impl<'a> std::ops::DerefMut for $name<'a> {
            fn deref_mut(&mut self) -> &mut cuda_graph::GraphExec<'a> {
                match self {
                    $name::F32(e) => e,
                    $name::Bf16(e) => e,
                }
            }
        }
    };
}

pub(crate) use either_exec;

/// Runs `$body` with `$e` bound to the executable graph inside `$exec` (an [`either_exec!`]
/// enum `$ty`), whichever its element type.
macro_rules! on_either {
    ($exec:expr, $ty:ident, $e:ident => $body:expr) => {
        match $exec {
            $ty::F32($e) => $body,
            $ty::Bf16($e) => $body,
        }
    };
}

pub(crate) use on_either;

either_exec! {
    /// A step graph of either element type, executable.
    Exec, StepF32Exec, StepBf16Exec
}

either_exec! {
    /// A generation graph of either element type, executable.
    GenExec, GenF32Exec, GenBf16Exec
}
