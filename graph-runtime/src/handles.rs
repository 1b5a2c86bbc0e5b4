//! Typed node handles: small `Copy` ids whose type says what kind of node they name, so only
//! the setters that kind allows can be reached through them.

use std::marker::PhantomData;

use crate::bind::{Buf, BufMut, HostBuf, HostBufMut};
use crate::graph::GraphId;
use crate::topology::NodeKind;
use crate::views::{
    ChildMut, EmptyMut, EventRecordMut, EventWaitMut, HostMut, KernelMut, MemcpyMut, MemsetMut,
    NodeAccess, OnExec, OnTemplate,
};

/// The identity of a node: which graph, which node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId {
    pub(crate) graph: GraphId,
    pub(crate) index: u32,
}

impl NodeId {
    /// The node's position in its graph (the order nodes were added).
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// Anything that names a node: a [`NodeId`] or any typed handle. Dependencies are given as
/// `&[&dyn Dep]`, e.g. `&[&load, &clear]`.
pub trait Dep {
    /// The node named.
    fn node_id(&self) -> NodeId;
}

impl Dep for NodeId {
    fn node_id(&self) -> NodeId {
        *self
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A typed node handle. [`Graph::node`](crate::Graph::node) and
/// [`GraphExec::node`](crate::GraphExec::node) turn it into the setter view of its kind.
pub trait NodeHandle: Dep + Copy + sealed::Sealed {
    /// The setter view on the template graph.
    type OnTemplate<'v, 'a: 'v>;
    /// The setter view on the executable graph.
    type OnExec<'v, 'a: 'v>;
    /// The kind of node this handle names.
    const KIND: NodeKind;
    #[doc(hidden)]
    fn on_template<'v, 'a: 'v>(acc: NodeAccess<'v, 'a>) -> Self::OnTemplate<'v, 'a>;
    #[doc(hidden)]
    fn on_exec<'v, 'a: 'v>(acc: NodeAccess<'v, 'a>) -> Self::OnExec<'v, 'a>;
}

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident<$($p:ident),*>, $kind:ident, $view:ident) => {
        $(#[$doc])*
        pub struct $name<$($p),*> {
            pub(crate) id: NodeId,
            _t: PhantomData<fn() -> ($($p,)*)>,
        }
        impl<$($p),*> $name<$($p),*> {
            pub(crate) fn new(id: NodeId) -> Self {
                Self { id, _t: PhantomData }
            }
            /// The node's identity.
            pub fn id(&self) -> NodeId {
                self.id
            }
        }
        impl<$($p),*> Clone for $name<$($p),*> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($p),*> Copy for $name<$($p),*> {}
        impl<$($p),*> std::fmt::Debug for $name<$($p),*> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}#{}", stringify!($name), self.id.index)
            }
        }
        impl<$($p),*> Dep for $name<$($p),*> {
            fn node_id(&self) -> NodeId {
                self.id
            }
        }
        impl<$($p),*> From<$name<$($p),*>> for NodeId {
            fn from(h: $name<$($p),*>) -> NodeId {
                h.id
            }
        }
        impl<$($p),*> sealed::Sealed for $name<$($p),*> {}
        impl<$($p: 'static),*> NodeHandle for $name<$($p),*> {
            type OnTemplate<'v, 'a: 'v> = $view<'v, 'a, $($p,)* OnTemplate>;
            type OnExec<'v, 'a: 'v> = $view<'v, 'a, $($p,)* OnExec>;
            const KIND: NodeKind = NodeKind::$kind;
            fn on_template<'v, 'a: 'v>(acc: NodeAccess<'v, 'a>) -> Self::OnTemplate<'v, 'a> {
                $view::new(acc)
            }
            fn on_exec<'v, 'a: 'v>(acc: NodeAccess<'v, 'a>) -> Self::OnExec<'v, 'a> {
                $view::new(acc)
            }
        }
    };
}

handle!(
    /// An empty node: orders its dependencies before its dependents.
    EmptyNode<>, Empty, EmptyMut
);
handle!(
    /// A kernel node whose arguments have the tuple type `A`.
    KernelNode<A>, Kernel, KernelMut
);
handle!(
    /// A memset node filling elements of type `T`.
    MemsetNode<T>, Memset, MemsetMut
);
handle!(
    /// A 1-D memcpy node of elements `T`, from a `S` ([`Device`] or [`Host`]) to a `D`.
    MemcpyNode<T, D, S>, Memcpy, MemcpyMut
);
handle!(
    /// A host callback node.
    HostNode<>, Host, HostMut
);
handle!(
    /// A child graph node.
    ChildNode<>, Child, ChildMut
);
handle!(
    /// An event record node.
    EventRecordNode<>, EventRecord, EventRecordMut
);
handle!(
    /// An event wait node.
    EventWaitNode<>, EventWait, EventWaitMut
);

/// Memory on the device (a memcpy end).
#[derive(Debug)]
pub enum Device {}
/// Memory on the host (a memcpy end).
#[derive(Debug)]
pub enum Host {}

/// Where a memcpy end lives: [`Device`] or [`Host`]. A memcpy node's ends cannot move between
/// the two after it is made (the driver forbids it), so the location is part of its type.
pub trait Location: sealed::Sealed + 'static {
    #[doc(hidden)]
    const HOST: bool;
}
impl sealed::Sealed for Device {}
impl sealed::Sealed for Host {}
impl Location for Device {
    const HOST: bool = false;
}
impl Location for Host {
    const HOST: bool = true;
}

/// A buffer a memcpy can read: [`Buf`], [`BufMut`], [`HostBuf`] or [`HostBufMut`].
pub trait MemcpySrc<T>: Copy + sealed::Sealed {
    /// Where it lives.
    type Loc: Location;
    #[doc(hidden)]
    fn binding(&self) -> (GraphId, u32);
}

/// A buffer a memcpy can write: [`BufMut`] or [`HostBufMut`].
pub trait MemcpyDst<T>: Copy + sealed::Sealed {
    /// Where it lives.
    type Loc: Location;
    #[doc(hidden)]
    fn binding(&self) -> (GraphId, u32);
}

macro_rules! ends {
    ($($h:ident: $loc:ident $(, $dst:ident)?);*) => {$(
        impl<T> sealed::Sealed for $h<T> {}
        impl<T> MemcpySrc<T> for $h<T> {
            type Loc = $loc;
            fn binding(&self) -> (GraphId, u32) {
                (self.graph, self.index)
            }
        }
        $(
            impl<T> $dst<T> for $h<T> {
                type Loc = $loc;
                fn binding(&self) -> (GraphId, u32) {
                    (self.graph, self.index)
                }
            }
        )?
    )*};
}
ends!(Buf: Device; BufMut: Device, MemcpyDst; HostBuf: Host; HostBufMut: Host, MemcpyDst);

/// An element type a memset node can write: 1, 2 or 4 bytes.
pub trait MemsetValue: Copy + sealed::Sealed + 'static {
    #[doc(hidden)]
    const SIZE: u32;
    #[doc(hidden)]
    fn bits(self) -> u32;
}

macro_rules! memset_value {
    ($($t:ty => $size:expr, $conv:expr);*) => {$(
        impl sealed::Sealed for $t {}
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
