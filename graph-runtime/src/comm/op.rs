//! What a collective node does: the operation, its buffers and count ([`Collective`]), its
//! reduction ([`ReduceOp`]) and the element types NCCL carries ([`NcclElem`]), checked and
//! turned into the raw call `Communicator::issue` makes.

use std::marker::PhantomData;

use crate::bind::{BufMut, BufferId, DeviceBuf};
use crate::driver::nccl::{Dtype, RawOp, RedOp};

/// A reduction of [`Collective::all_reduce`] and [`Collective::reduce_scatter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// The sum.
    Sum,
    /// The product.
    Prod,
    /// The largest.
    Max,
    /// The smallest.
    Min,
    /// The mean over the ranks.
    Avg,
}

impl ReduceOp {
    pub(crate) fn raw(self) -> RedOp {
        match self {
            ReduceOp::Sum => RedOp::Sum,
            ReduceOp::Prod => RedOp::Prod,
            ReduceOp::Max => RedOp::Max,
            ReduceOp::Min => RedOp::Min,
            ReduceOp::Avg => RedOp::Avg,
        }
    }
}

/// An element type NCCL carries.
pub trait NcclElem: Copy + Send + Sync + 'static {
    #[doc(hidden)]
    const DTYPE: NcclDtype;
}

/// NCCL's name for an element type (see [`NcclElem`]).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct NcclDtype(pub(crate) Dtype);

macro_rules! elems {
    ($($t:ty => $d:ident),* $(,)?) => {
        $(impl NcclElem for $t { const DTYPE: NcclDtype = NcclDtype(Dtype::$d); })*
    };
}
elems!(i8 => I8, u8 => U8, i32 => I32, u32 => U32, i64 => I64, u64 => U64, f32 => F32,
       f64 => F64, half::f16 => F16, half::bf16 => Bf16);

#[derive(Debug, Clone, Copy)]
pub(crate) enum Op {
    AllReduce(ReduceOp),
    AllGather,
    ReduceScatter(ReduceOp),
    Broadcast { root: usize },
    Send { peer: usize },
    Recv { peer: usize },
}

/// One NCCL collective on buffers of the graph, for
/// [`Graph::add_collective`](crate::Graph::add_collective). Counts are elements of `T` on each rank.
#[derive(Debug, Clone, Copy)]
pub struct Collective<T> {
    pub(crate) op: Op,
    pub(crate) src: Option<BufferId>,
    pub(crate) dst: Option<BufferId>,
    pub(crate) count: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: NcclElem> Collective<T> {
    fn new(op: Op, src: Option<BufferId>, dst: Option<BufferId>, count: usize) -> Self {
        Collective {
            op,
            src,
            dst,
            count,
            _t: PhantomData,
        }
    }

    /// `dst = op over the ranks of src` (`count` elements each; `src` and `dst` may be the same
    /// buffer).
    pub fn all_reduce(src: impl DeviceBuf<T>, dst: BufMut<T>, count: usize, op: ReduceOp) -> Self {
        Self::new(Op::AllReduce(op), Some(src.id()), Some(dst.id()), count)
    }

    /// `dst` = every rank's `count` elements of `src`, rank 0's first (`dst` holds `count *
    /// world`).
    pub fn all_gather(src: impl DeviceBuf<T>, dst: BufMut<T>, count: usize) -> Self {
        Self::new(Op::AllGather, Some(src.id()), Some(dst.id()), count)
    }

    /// `dst` = this rank's `count` elements of the reduction of `src` (`src` holds `count *
    /// world`).
    pub fn reduce_scatter(
        src: impl DeviceBuf<T>,
        dst: BufMut<T>,
        count: usize,
        op: ReduceOp,
    ) -> Self {
        Self::new(Op::ReduceScatter(op), Some(src.id()), Some(dst.id()), count)
    }

    /// `dst` = rank `root`'s `count` elements of `src`.
    pub fn broadcast(src: impl DeviceBuf<T>, dst: BufMut<T>, count: usize, root: usize) -> Self {
        Self::new(
            Op::Broadcast { root },
            Some(src.id()),
            Some(dst.id()),
            count,
        )
    }

    /// Sends `count` elements of `src` to rank `peer` (which must receive them).
    pub fn send(src: impl DeviceBuf<T>, count: usize, peer: usize) -> Self {
        Self::new(Op::Send { peer }, Some(src.id()), None, count)
    }

    /// Receives `count` elements from rank `peer` into `dst`.
    pub fn recv(dst: BufMut<T>, count: usize, peer: usize) -> Self {
        Self::new(Op::Recv { peer }, None, Some(dst.id()), count)
    }

    /// Elements `src` and `dst` must hold on a communicator of `world` ranks.
    pub(crate) fn needs(&self, world: usize) -> (usize, usize) {
        match self.op {
            Op::AllGather => (self.count, self.count * world),
            Op::ReduceScatter(_) => (self.count * world, self.count),
            _ => (self.count, self.count),
        }
    }

    /// The rank the collective names (a root or a peer), if any.
    pub(crate) fn names_rank(&self) -> Option<(&'static str, usize)> {
        match self.op {
            Op::Broadcast { root } => Some(("root", root)),
            Op::Send { peer } | Op::Recv { peer } => Some(("peer", peer)),
            _ => None,
        }
    }

    pub(crate) fn raw(&self, src: u64, dst: u64) -> RawOp {
        let count = self.count;
        match self.op {
            Op::AllReduce(op) => RawOp::AllReduce {
                src,
                dst,
                count,
                op: op.raw(),
            },
            Op::AllGather => RawOp::AllGather { src, dst, count },
            Op::ReduceScatter(op) => RawOp::ReduceScatter {
                src,
                dst,
                count,
                op: op.raw(),
            },
            Op::Broadcast { root } => RawOp::Broadcast {
                src,
                dst,
                count,
                root: root as i32,
            },
            Op::Send { peer } => RawOp::Send {
                src,
                count,
                peer: peer as i32,
            },
            Op::Recv { peer } => RawOp::Recv {
                dst,
                count,
                peer: peer as i32,
            },
        }
    }
}
