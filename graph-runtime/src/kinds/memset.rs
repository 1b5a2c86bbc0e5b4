//! Memset nodes: fill a device buffer with a 1, 2 or 4-byte value.

use super::{kind, switchable, Children, Shadow, Store, Stores, Switchable, Target};
use crate::bind::{Bindings, BufMut};
use crate::driver::{CallResult, Memset, RawGraph, RawNode};
use crate::error::{BuildError, EditError, Role};
use cuda_graph_topology::NodeKind;

kind!(
    /// A memset node filling elements of type `T`: made by
    /// [`Graph::add_memset`](crate::Graph::add_memset).
    ///
    /// ```no_run
    /// # fn demo(g: &mut cuda_graph_runtime::Graph<'_>, total: cuda_graph_runtime::BufMut<f32>)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// let clear: cuda_graph_runtime::MemsetNode<f32> = g.add_memset("clear", &[], total, 0.0)?;
    /// # let _ = clear; Ok(()) }
    /// ```
    handle MemsetNode<T>,
    /// Setters of a memset node of `T`.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         clear: cuda_graph_runtime::MemsetNode<f32>) -> cuda_graph_runtime::Result<()> {
    /// exec.node(clear)?.set_value(1.5)?;
    /// # Ok(()) }
    /// ```
    view MemsetMut,
    shadow MemsetShadow,
    kind Memset
);

/// An element type a memset node can write: 1, 2 or 4 bytes.
pub trait MemsetValue: Copy + super::sealed::Sealed + 'static {
    #[doc(hidden)]
    const SIZE: u32;
    #[doc(hidden)]
    fn bits(self) -> u32;
}

macro_rules! memset_value {
    ($($t:ty => $size:expr, $conv:expr);*) => {$(
        impl super::sealed::Sealed for $t {}
        impl MemsetValue for $t {
            const SIZE: u32 = $size;
            #[inline]
            fn bits(self) -> u32 {
                let f: fn($t) -> u32 = $conv;
                f(self)
            }
        }
    )*};
}
memset_value!(
    u8 => 1, |v| v as u32;
    i8 => 1, |v| v as u8 as u32;
    u16 => 2, |v| v as u32;
    i16 => 2, |v| v as u16 as u32;
    u32 => 4, |v| v;
    i32 => 4, |v| v as u32;
    f32 => 4, |v| v.to_bits()
);

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
        Ok(MemsetShadow {
            m: Memset {
                dst: b.addr,
                bits: value.bits(),
                elem: T::SIZE,
                len: b.len,
            },
            enabled: true,
        })
    }
}

impl<'a> Shadow<'a> for MemsetShadow {
    const KIND: NodeKind = NodeKind::Memset;

    fn store<'s>(s: &'s Stores<'a>) -> &'s Store<Self> {
        &s.memset
    }

    fn store_mut<'s>(s: &'s mut Stores<'a>) -> &'s mut Store<Self> {
        &mut s.memset
    }

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
        self.cx.shadow.m.len
    }

    /// Whether the node fills no element (never: empty memsets are rejected when added).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Replaces the value written.
    pub fn set_value(&mut self, value: T) -> Result<(), EditError> {
        let mut m = self.cx.shadow.m;
        m.bits = value.bits();
        self.put(m)
    }

    /// Points the node at another buffer; it must hold at least [`len`](Self::len) elements.
    pub fn set_dst(&mut self, dst: BufMut<T>) -> Result<(), EditError> {
        let b = self.cx.bindings.get(dst.graph, dst.index)?;
        let mut m = self.cx.shadow.m;
        if b.len < m.len {
            return Err(EditError::BufferTooShort {
                node: self.cx.name().to_owned(),
                role: Role::Destination,
                len: b.len,
                needed: m.len,
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
