//! Memcpy nodes: a 1-D copy between device buffers and host slices.

use super::{kind, switchable, Children, Shadow, Switchable, Target};
use crate::bind::{Bindings, Buf, BufMut, HostBuf, HostBufMut, PeerBuf, PeerBufMut};
use crate::driver::{CallResult, End, Memcpy, RawGraph, RawNode};
use crate::error::{BuildError, EditError, Role};
use crate::id::GraphId;
use cuda_graph_topology::NodeKind;

kind!(
    /// A 1-D memcpy node of elements `T`, from a `Src` ([`Device`] or [`Host`]) to a `D`: made
    /// by [`Graph::add_memcpy`](crate::Graph::add_memcpy).
    ///
    /// ```no_run
    /// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, d: cuda_graph_runtime::buffer::BufMut<u32>,
    /// #             input: &'a [u32]) -> cuda_graph_runtime::Result<()> {
    /// use cuda_graph_runtime::{memcpy::{Device, Host}, node::MemcpyNode};
    /// let src = g.bind_host(input);
    /// let up: MemcpyNode<u32, Device, Host> = g.add_memcpy("up", &[], d, src)?;
    /// # let _ = up; Ok(()) }
    /// ```
    handle MemcpyNode<T, D, Src>,
    /// Setters of a memcpy node of `T` from a `Src` location to a `Dst` location.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         up: cuda_graph_runtime::node::MemcpyNode<u32, cuda_graph_runtime::memcpy::Device, cuda_graph_runtime::memcpy::Device>,
    /// #         other: cuda_graph_runtime::buffer::Buf<u32>) -> cuda_graph_runtime::Result<()> {
    /// exec.node(up)?.set_src(other)?;   // as long as the node copies, or it is refused
    /// # Ok(()) }
    /// ```
    view MemcpyMut,
    shadow MemcpyShadow<'a>,
    kind Memcpy
);

/// Memory on the device (a memcpy end).
#[derive(Debug)]
pub enum Device {}
/// Memory on the host (a memcpy end).
#[derive(Debug)]
pub enum Host {}

/// Where a memcpy end lives: [`Device`] or [`Host`]. A memcpy node's ends cannot move between
/// the two after it is made (the driver forbids it), so the location is part of its type.
pub trait Location: super::sealed::Sealed + 'static {
    #[doc(hidden)]
    const HOST: bool;
}
impl super::sealed::Sealed for Device {}
impl super::sealed::Sealed for Host {}
impl Location for Device {
    const HOST: bool = false;
}
impl Location for Host {
    const HOST: bool = true;
}

/// A buffer a memcpy can read: [`Buf`], [`BufMut`], [`HostBuf`], [`HostBufMut`], or a buffer
/// of another device ([`PeerBuf`], [`PeerBufMut`]).
pub trait MemcpySrc<T>: Copy + super::sealed::Sealed {
    /// Where it lives.
    type Loc: Location;
    #[doc(hidden)]
    fn binding(&self) -> (GraphId, u32);
}

/// A buffer a memcpy can write: [`BufMut`], [`HostBufMut`] or [`PeerBufMut`].
pub trait MemcpyDst<T>: Copy + super::sealed::Sealed {
    /// Where it lives.
    type Loc: Location;
    #[doc(hidden)]
    fn binding(&self) -> (GraphId, u32);
}

macro_rules! ends {
    ($($h:ident: $loc:ident $(, $dst:ident)?);*) => {$(
        impl<T> super::sealed::Sealed for $h<T> {}
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
ends!(Buf: Device; BufMut: Device, MemcpyDst; HostBuf: Host; HostBufMut: Host, MemcpyDst;
      PeerBuf: Device; PeerBufMut: Device, MemcpyDst);

#[derive(Clone, Copy)]
pub(crate) struct MemcpyShadow<'a> {
    m: Memcpy<'a>,
    enabled: bool,
}

/// A bound buffer as a memcpy end, and its length in elements.
fn end<'a>(
    bindings: &Bindings<'a>,
    (graph, index): (GraphId, u32),
) -> Result<(End<'a>, usize), crate::error::HandleError> {
    let b = bindings.get(graph, index)?;
    Ok((b.end(), b.len))
}

impl<'a> MemcpyShadow<'a> {
    /// A copy of the first `len` elements of `src` into `dst`, for node `node`.
    pub fn new<T, D: MemcpyDst<T>, S: MemcpySrc<T>>(
        bindings: &Bindings<'a>,
        node: &str,
        dst: D,
        src: S,
        len: usize,
    ) -> Result<Self, BuildError> {
        let check = |(e, have): (End<'a>, usize), role| {
            if have == 0 || len == 0 {
                return Err(BuildError::EmptyBuffer {
                    node: node.to_owned(),
                    role,
                });
            }
            if have < len {
                return Err(BuildError::BufferTooShort {
                    node: node.to_owned(),
                    role,
                    len: have,
                    needed: len,
                });
            }
            Ok(e)
        };
        let s = check(end(bindings, src.binding())?, Role::Source)?;
        let d = check(end(bindings, dst.binding())?, Role::Destination)?;
        let bytes = len * std::mem::size_of::<T>();
        if bytes == 0 {
            return Err(BuildError::ZeroSizedElement {
                node: node.to_owned(),
            });
        }
        let m = Memcpy::new(s, d, bytes).expect("both ends were checked to hold `len` elements");
        Ok(MemcpyShadow { m, enabled: true })
    }
}

fn send<'a>(t: &mut Target<'_, 'a>, n: RawNode, m: &Memcpy<'a>) -> CallResult<()> {
    match t {
        Target::Template(g) => g.set_memcpy(n, m),
        Target::Exec(e) => e.set_memcpy(n, m),
    }
}

impl<'a> Shadow<'a> for MemcpyShadow<'a> {
    const KIND: NodeKind = NodeKind::Memcpy;

    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_memcpy(deps, &self.m)
    }

    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()> {
        send(t, n, &self.m)
    }

    fn enabled(&self) -> bool {
        self.enabled
    }
}

impl Switchable for MemcpyShadow<'_> {
    fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
    }
}

switchable!(MemcpyMut<T, D, Src>);

impl<'a, T, D: Location, Src: Location, S> MemcpyMut<'_, 'a, T, D, Src, S> {
    /// Number of elements the node copies.
    pub fn len(&self) -> usize {
        self.cx.shadow.m.bytes() / std::mem::size_of::<T>().max(1)
    }

    /// Whether the node copies no element (never: empty copies are rejected when added).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads from another buffer; it must hold at least [`len`](Self::len) elements. A too
    /// short buffer is rejected here, before any driver call.
    pub fn set_src(&mut self, src: impl MemcpySrc<T, Loc = Src>) -> Result<(), EditError> {
        self.edit_end(src.binding(), Role::Source)
    }

    /// Writes to another buffer; it must hold at least [`len`](Self::len) elements.
    pub fn set_dst(&mut self, dst: impl MemcpyDst<T, Loc = D>) -> Result<(), EditError> {
        self.edit_end(dst.binding(), Role::Destination)
    }

    /// Replaces both ends at once (one driver call); each must hold at least
    /// [`len`](Self::len) elements.
    pub fn set(
        &mut self,
        dst: impl MemcpyDst<T, Loc = D>,
        src: impl MemcpySrc<T, Loc = Src>,
    ) -> Result<(), EditError> {
        let needed = self.len();
        let old = self.cx.shadow.m;
        let (d, dh) = end(self.cx.bindings, dst.binding())?;
        let (s, sh) = end(self.cx.bindings, src.binding())?;
        let short = [(Role::Source, sh), (Role::Destination, dh)]
            .into_iter()
            .find(|&(_, have)| have < needed);
        let m = match (short, Memcpy::new(s, d, old.bytes())) {
            (None, Some(m)) => m,
            (Some((role, len)), _) => return Err(self.too_short(role, len)),
            (None, None) => return Err(self.too_short(Role::Source, sh)),
        };
        self.put(m)
    }

    fn too_short(&self, role: Role, len: usize) -> EditError {
        EditError::BufferTooShort {
            node: self.cx.name().to_owned(),
            role,
            len,
            needed: self.len(),
        }
    }

    fn edit_end(&mut self, at: (GraphId, u32), role: Role) -> Result<(), EditError> {
        let needed = self.len();
        let (e, have) = end(self.cx.bindings, at)?;
        let old = self.cx.shadow.m;
        let (src, dst) = match role {
            Role::Source => (e, old.dst()),
            Role::Destination => (old.src(), e),
        };
        let m = Memcpy::new(src, dst, old.bytes())
            .filter(|_| have >= needed)
            .ok_or_else(|| self.too_short(role, have))?;
        self.put(m)
    }

    /// Sends `m`, and keeps it once the driver accepted it.
    fn put(&mut self, m: Memcpy<'a>) -> Result<(), EditError> {
        let node = self.cx.node;
        self.cx.send(|t| send(t, node, &m))?;
        self.cx.shadow.m = m;
        self.cx.mirror(|s| s.m = m);
        Ok(())
    }
}

impl<T, D: Location, S: Location, Dh, Sh> super::SendAgain<(Dh, Sh)>
    for MemcpyMut<'_, '_, T, D, S, super::OnExec>
where
    Dh: MemcpyDst<T, Loc = D>,
    Sh: MemcpySrc<T, Loc = S>,
{
    fn send_again(&mut self, (d, s): (Dh, Sh), which: u64) -> Result<(), EditError> {
        match which & 3 {
            1 => self.set_dst(d),
            2 => self.set_src(s),
            _ => self.set(d, s),
        }
    }
}
