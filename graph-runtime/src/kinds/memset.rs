//! Memset nodes: fill a device buffer with a 1, 2 or 4-byte value, or an 8-byte one whose two
//! 4-byte halves are equal (`0.0f64`, `-1i64`): the driver fills at most 4 bytes at a time, so
//! such a value is a 4-byte fill over twice the elements.

use super::{kind, switchable, Children, Shadow, Switchable, Target};
use crate::bind::{Bindings, BufMut};
use crate::driver::{CallResult, Memset, RawGraph, RawNode};
use crate::error::{BuildError, EditError, MemsetHalves, Role};
use cuda_graph_topology::NodeKind;

kind!(
    /// A memset node filling elements of type `T`: made by
    /// [`Graph::add_memset`](crate::Graph::add_memset).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>, total: cuda_graph_runtime::buffer::BufMut<f32>)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// let clear: cuda_graph_runtime::node::MemsetNode<f32> = g.add_memset("clear", &[], total, 0.0)?;
    /// # let _ = clear; Ok(()) }
    /// ```
    handle MemsetNode<T>,
    /// Setters of a memset node of `T`.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         clear: cuda_graph_runtime::node::MemsetNode<f32>) -> cuda_graph_runtime::Result<()> {
    /// exec.node(clear)?.set_value(1.5)?;
    /// # Ok(()) }
    /// ```
    view MemsetMut,
    shadow MemsetShadow,
    kind Memset
);

/// An element type a memset node can write: 1, 2 or 4 bytes, or 8 bytes (`f64`, `i64`, `u64`)
/// for values whose two 4-byte halves are equal, such as `0.0` or `-1`.
#[diagnostic::on_unimplemented(
    message = "a memset node cannot fill elements of type `{Self}`",
    label = "a memset fills 1-, 2-, 4- or 8-byte integers and floats",
    note = "write the buffer with a kernel instead, or declare its elements as one of u8, i8, u16, i16, u32, i32, f32, u64, i64, f64"
)]
pub trait MemsetValue: Copy + std::fmt::Debug + super::sealed::Sealed + 'static {
    #[doc(hidden)]
    const SIZE: u32;
    /// The 1-, 2- or 4-byte pattern the driver repeats (in its low bits), or `None` for an
    /// 8-byte value whose halves differ.
    #[doc(hidden)]
    fn pattern(self) -> Option<u32>;
}

macro_rules! memset_value {
    ($($t:ty => $size:expr, $conv:expr);*) => {$(
        impl super::sealed::Sealed for $t {}
        impl MemsetValue for $t {
            const SIZE: u32 = $size;
            #[inline]
            fn pattern(self) -> Option<u32> {
                let f: fn($t) -> Option<u32> = $conv;
                f(self)
            }
        }
    )*};
}

/// The repeated 4-byte half of an 8-byte value.
#[inline]
fn halves(bits: u64) -> Option<u32> {
    let (lo, hi) = (bits as u32, (bits >> 32) as u32);
    (lo == hi).then_some(lo)
}

memset_value!(
    u8 => 1, |v| Some(v as u32);
    i8 => 1, |v| Some(v as u8 as u32);
    u16 => 2, |v| Some(v as u32);
    i16 => 2, |v| Some(v as u16 as u32);
    u32 => 4, Some;
    i32 => 4, |v| Some(v as u32);
    f32 => 4, |v| Some(v.to_bits());
    u64 => 8, halves;
    i64 => 8, |v| halves(v as u64);
    f64 => 8, |v| halves(v.to_bits())
);

/// The driver's element width for `T` (4 bytes for 8-byte elements) and how many of them one
/// `T` is.
fn width<T: MemsetValue>() -> (u32, usize) {
    if T::SIZE == 8 {
        (4, 2)
    } else {
        (T::SIZE, 1)
    }
}

/// `value`'s pattern, or the error naming node `node`.
fn pattern<T: MemsetValue>(node: &str, value: T) -> Result<u32, MemsetHalves> {
    value.pattern().ok_or_else(|| MemsetHalves {
        node: node.to_owned(),
        value: format!("{value:?}"),
        ty: std::any::type_name::<T>(),
    })
}

#[derive(Clone, Copy)]
pub(crate) struct MemsetShadow {
    m: Memset,
    enabled: bool,
}

impl MemsetShadow {
    /// A memset of every element of `dst` to `value`, for node `node`.
    pub fn new<T: MemsetValue>(
        bindings: &Bindings<'_>,
        node: &str,
        dst: BufMut<T>,
        value: T,
    ) -> Result<Self, BuildError> {
        let b = bindings.get(dst.graph, dst.index)?;
        if b.len == 0 {
            return Err(BuildError::EmptyBuffer {
                node: node.to_owned(),
                role: Role::Destination,
            });
        }
        let (elem, per) = width::<T>();
        Ok(MemsetShadow {
            m: Memset {
                dst: b.addr,
                bits: pattern(node, value)?,
                elem,
                len: b.len * per,
            },
            enabled: true,
        })
    }
}

impl<'a> Shadow<'a> for MemsetShadow {
    const KIND: NodeKind = NodeKind::Memset;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_memset(deps, &self.m)
    }

    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()> {
        send(t, n, &self.m)
    }

    fn enabled(&self) -> bool {
        self.enabled
    }
}

fn send(t: &mut Target<'_, '_>, n: RawNode, m: &Memset) -> CallResult<()> {
    match t {
        Target::Template(g) => g.set_memset(n, m),
        Target::Exec(e) => e.set_memset(n, m),
    }
}

impl Switchable for MemsetShadow {
    fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
    }
}

switchable!(MemsetMut<T>);

impl<T: MemsetValue, S> MemsetMut<'_, '_, T, S> {
    /// Number of elements the node fills.
    pub fn len(&self) -> usize {
        self.cx.shadow.m.len / width::<T>().1
    }

    /// Whether the node fills no element (never: empty memsets are rejected when added).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Replaces the value written. An 8-byte value must have equal halves (see
    /// [`MemsetValue`]); otherwise nothing changes and the error says so.
    pub fn set_value(&mut self, value: T) -> Result<(), EditError> {
        let mut m = self.cx.shadow.m;
        m.bits = pattern(self.cx.name(), value)?;
        self.put(m)
    }

    /// Points the node at another buffer; it must hold at least [`len`](Self::len) elements.
    pub fn set_dst(&mut self, dst: BufMut<T>) -> Result<(), EditError> {
        let value = self.cx.shadow.m.bits;
        self.retarget(dst, value)
    }

    /// Replaces the buffer and the value at once (one driver call).
    pub fn set(&mut self, dst: BufMut<T>, value: T) -> Result<(), EditError> {
        let bits = pattern(self.cx.name(), value)?;
        self.retarget(dst, bits)
    }

    fn retarget(&mut self, dst: BufMut<T>, bits: u32) -> Result<(), EditError> {
        let b = self.cx.bindings.get(dst.graph, dst.index)?;
        let mut m = self.cx.shadow.m;
        m.bits = bits;
        if b.len < self.len() {
            return Err(EditError::BufferTooShort {
                node: self.cx.name().to_owned(),
                role: Role::Destination,
                len: b.len,
                needed: self.len(),
            });
        }
        m.dst = b.addr;
        self.put(m)
    }

    /// Sends `m`, and keeps it once the driver accepted it.
    fn put(&mut self, m: Memset) -> Result<(), EditError> {
        let node = self.cx.node;
        self.cx.send(|t| send(t, node, &m))?;
        self.cx.shadow.m = m;
        self.cx.mirror(|s| s.m = m);
        Ok(())
    }
}

impl<T: MemsetValue> super::SendAgain<(BufMut<T>, T)> for MemsetMut<'_, '_, T, super::OnExec> {
    fn send_again(&mut self, (d, v): (BufMut<T>, T), which: u64) -> Result<(), EditError> {
        match which & 3 {
            1 => self.set_dst(d),
            2 => self.set_value(v),
            _ => self.set(d, v),
        }
    }
}
