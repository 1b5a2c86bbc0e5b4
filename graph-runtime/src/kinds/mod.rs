//! Node kinds, one module each: its typed handle, its shadow (the node's parameters as the
//! driver takes them), how it is added and sent to the driver, and its setter view.
//!
//! CUDA cannot read parameters back from an executable graph, so every node keeps a shadow copy
//! of them: once for the template, once for the executable graph. A setter edits a copy, sends
//! it with one driver call, and keeps it only if the driver accepted it, so a failed edit
//! changes nothing. An edit made on an executable graph reaches the template too, so an update
//! never undoes it, but lazily: kernel setters only note which parts they changed (`Pending`),
//! and the template's shadow takes them when the template is next needed (`graph_mut`,
//! `update`, `into_graph`); other kinds write the template's shadow at once. Either way the
//! template's driver graph is sent the change only before a whole-graph update (`flush`).
//!
//! Everything an update does beyond the driver's call is paid per node edited, not per node of
//! the graph: the template lists the nodes it holds edits of (`Graph::marked`), and the
//! executable graph the nodes whose state an update does not carry over (`Pending::sticky`).
//!
//! Shadows live in [`Stores`], one typed store per kind; a handle carries its node's slot in
//! its kind's store, so a view reaches its shadow without asking which kind it is.

pub(crate) mod captured;
pub(crate) mod child;
pub(crate) mod cond;
mod cx;
pub(crate) mod empty;
pub(crate) mod event;
pub(crate) mod host;
pub(crate) mod kernel;
pub(crate) mod limits;
pub(crate) mod mem;
pub(crate) mod memcpy;
pub(crate) mod memset;
mod store;

/// Node handles and their setter views, one pair per kind (each kind's names are listed here,
/// beside its module) (a kernel node is a
/// [`KernelNode`](node::KernelNode), its view on an executable graph a
/// [`KernelMut`](node::KernelMut)), and what all handles share.
///
/// ```no_run
/// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
/// #         step: cuda_graph_runtime::node::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
/// use cuda_graph_runtime::node::{KernelMut, OnExec};
/// let mut view: KernelMut<'_, '_, (f32, u32), OnExec> = exec.node(step)?;
/// view.set_arg::<0>(2.0)?;
/// # Ok(()) }
/// ```
pub mod node {
    pub use super::captured::{CapturedMut, CapturedNode};
    pub use super::child::{ChildMut, ChildNode, ChildTemplate};
    pub use super::cond::{Body, CondMut, CondNode};
    pub use super::empty::{EmptyMut, EmptyNode};
    pub use super::event::{EventRecordMut, EventRecordNode, EventWaitMut, EventWaitNode};
    pub use super::host::{HostMut, HostNode};
    pub use super::kernel::{KernelMut, KernelNode};
    pub use super::mem::{MemAllocMut, MemAllocNode, MemFreeMut, MemFreeNode};
    pub use super::memcpy::{MemcpyMut, MemcpyNode};
    pub use super::memset::{MemsetMut, MemsetNode, MemsetValue};
    pub use super::{ChildGraph, IntoChild, NodeHandle, OnExec, OnTemplate, Side};
    #[doc(hidden)]
    pub use super::{Parts, SendAgain, CONFIG};
    pub use crate::id::{Dep, GraphId, NodeId};
}

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use crate::bind::{Bindings, Tracking};
use crate::driver::{CallResult, Limits, RawExec, RawGraph, RawNode};
use crate::error::{HandleError, LaunchError};
use crate::id::{Dep, NodeId};
use cuda_graph_topology::{NodeKind, Topology};

pub(crate) use cx::{Mirror, NodeCtx, NodeRec, Pending};
use host::Panics;
pub(crate) use store::{Store, Stored, Stores};

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Which graph a view edits.
pub trait Side: sealed::Sealed + 'static {}
/// A view of a node of the template graph.
#[derive(Debug)]
pub enum OnTemplate {}
/// A view of a node of the executable graph.
#[derive(Debug)]
pub enum OnExec {}
impl sealed::Sealed for OnTemplate {}
impl sealed::Sealed for OnExec {}
impl Side for OnTemplate {}
impl Side for OnExec {}

/// Where parameters are sent: the template's driver graph or the executable graph.
pub(crate) enum Target<'v, 'a> {
    Template(&'v mut RawGraph<'a>),
    Exec(&'v mut RawExec<'a>),
}

/// The parameters of one node of a kind, as the driver takes them.
pub(crate) trait Shadow<'a>: Clone + Send + Sync + Sized + Stored<'a> {
    const KIND: NodeKind;
    /// Adds a node with these parameters to `g`, after `deps`.
    fn add(
        &self,
        g: &mut RawGraph<'a>,
        deps: &[RawNode],
        children: &Children<'a>,
    ) -> CallResult<RawNode>;
    /// Sends these parameters to node `n` of the target.
    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()>;
    /// Whether the node runs (kernel, memset and memcpy nodes can be disabled on an
    /// executable graph).
    fn enabled(&self) -> bool {
        true
    }
    /// Whether instantiation and whole-graph update leave out part of these parameters, which
    /// [`reapply`](Self::reapply) sends again: a disabled node (and, for child nodes, a child
    /// graph swapped on it or edited).
    fn needs_reapply(&self) -> bool {
        !self.enabled()
    }
    /// What instantiation and whole-graph update do not carry over to an executable graph: a
    /// disabled node (and, for child nodes, a child graph swapped on it).
    fn reapply(&self, e: &mut RawExec<'a>, n: RawNode, _children: &Children<'a>) -> CallResult<()> {
        if self.enabled() {
            Ok(())
        } else {
            e.set_enabled(n, false)
        }
    }
}

/// How a node of a kind is sent again, with one driver call, from what a `cuda_graph!` node
/// function made of the graph's current inputs (a kernel's launch configuration and
/// arguments, a memset's buffer and value, ...). For generated code.
#[doc(hidden)]
pub trait SendAgain<M> {
    /// Sends the parts of the node's parameters that `which` names again (bit `i`: a kernel's
    /// argument `i`; a memset's or memcpy's destination, bit 0, and value or source, bit 1;
    /// [`CONFIG`]: a kernel's launch configuration), keeping
    /// the others as they are, so edits through the node's view stay.
    fn send_again(&mut self, made: M, which: u64) -> Result<(), crate::error::EditError>;
}

/// The bit of [`SendAgain::send_again`]'s `which` that names a kernel's launch configuration.
#[doc(hidden)]
pub const CONFIG: u64 = 1 << 63;

/// What a parent graph needs of a child graph.
pub(crate) trait Subgraph<'a>: Send + Sync {
    fn raw(&self) -> &RawGraph<'a>;
    fn topology(&self) -> &Topology;
    fn context(&self) -> &Arc<CudaContext>;
    /// The first host-callback panic of the child (or its children) since the last report.
    fn take_panic(&self) -> Option<LaunchError>;
    /// Runs `f` (a launch) with cudarc's stream-ordering events kept for the child's buffers.
    fn tracked(&mut self, stream: &CudaStream, f: &mut dyn FnMut() -> Tracking) -> Tracking;
    /// Whether the child is a template with typed nodes (not captured work).
    fn editable(&self) -> bool;
    /// What a template-side view of node `id` of the child borrows (none for captured work,
    /// which has no typed nodes).
    fn template_node(&mut self, id: NodeId) -> Option<Result<Parts<'_, 'a>, HandleError>>;
}

/// A graph a child node can run: a [`Graph`](crate::Graph).
pub trait IntoChild<'a>: sealed::Sealed {
    #[doc(hidden)]
    fn into_child(self) -> ChildGraph<'a>;
}

/// A graph moved into a parent, to run in a child node.
#[doc(hidden)]
pub struct ChildGraph<'a>(pub(crate) Box<dyn Subgraph<'a> + 'a>);

/// The child graphs of a graph: those its child nodes were made with, and those swapped into
/// them on its executable graph (the latest one per node).
pub(crate) struct Children<'a> {
    pub list: Vec<ChildGraph<'a>>,
    /// The work of captured nodes, kept to capture it again.
    pub works: Vec<captured::Stored<'a>>,
}

impl Default for Children<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Children<'a> {
    /// None yet.
    #[inline]
    pub const fn new() -> Self {
        Children {
            list: Vec::new(),
            works: Vec::new(),
        }
    }

    pub fn push(&mut self, c: ChildGraph<'a>) -> u32 {
        self.list.push(c);
        (self.list.len() - 1) as u32
    }

    pub fn get(&self, i: u32) -> &dyn Subgraph<'a> {
        &*self.list[i as usize].0
    }

    /// Stores `c`, which a node of an executable graph now runs in place of child `current`
    /// (the node embeds `embedded`). A child swapped in earlier is replaced (the executable
    /// graph copied its parameters, and keeps what its nodes call), so swapping again and
    /// again does not grow the list; the embedded one stays, for the template.
    pub fn swap_in(&mut self, current: u32, embedded: u32, c: ChildGraph<'a>) -> u32 {
        if current == embedded {
            self.push(c)
        } else {
            self.list[current as usize] = c;
            current
        }
    }
}

/// What a graph lends a handle to make its setter view: one node's driver handle, the stores of
/// the side edited (and, on an executable graph, what keeps the template in step: see
/// [`Mirror`]), and the graph's bindings, limits and children.
#[doc(hidden)]
pub struct Parts<'v, 'a> {
    pub(crate) target: Target<'v, 'a>,
    pub(crate) node: RawNode,
    pub(crate) ctx: &'v Arc<CudaContext>,
    pub(crate) topo: &'v Topology,
    pub(crate) index: u32,
    pub(crate) stores: &'v mut Stores<'a>,
    pub(crate) mirror: Option<Mirror<'v, Stores<'a>>>,
    pub(crate) bindings: &'v Bindings<'a>,
    pub(crate) limits: &'v Limits,
    pub(crate) panics: &'v Panics,
    pub(crate) children: &'v mut Children<'a>,
}

impl<'v, 'a> Parts<'v, 'a> {
    /// The view context of the node whose shadow is in slot `slot` of kind `S`'s store.
    #[inline(always)]
    pub(crate) fn narrow<S: Shadow<'a>>(self, slot: u32) -> NodeCtx<'v, 'a, S> {
        let Parts {
            target,
            node,
            ctx,
            topo,
            index,
            stores,
            mirror,
            bindings,
            limits,
            panics,
            children,
        } = self;
        NodeCtx {
            target,
            node,
            ctx,
            topo,
            index,
            slot,
            shadow: &mut S::store_mut(stores).items[slot as usize],
            mirror: mirror.map(|m| Mirror {
                template: &mut S::store_mut(m.template).items,
                rec: m.rec,
                marked: m.marked,
                pending: m.pending,
            }),
            bindings,
            limits,
            panics,
            children,
        }
    }
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
    fn on_template<'v, 'a: 'v>(self, parts: Parts<'v, 'a>) -> Self::OnTemplate<'v, 'a>;
    #[doc(hidden)]
    fn on_exec<'v, 'a: 'v>(self, parts: Parts<'v, 'a>) -> Self::OnExec<'v, 'a>;
}

/// A node handle's identity and its shadow's slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Slot {
    pub id: NodeId,
    pub slot: u32,
}

/// Declares a kind's handle type (`Copy`, `Debug`, [`Dep`], a [`NodeHandle`] giving view
/// `$view` over shadow `$shadow`) and its view type.
macro_rules! kind {
    (
        $(#[$hdoc:meta])* handle $name:ident<$($p:ident),*>,
        $(#[$vdoc:meta])* view $view:ident,
        shadow $shadow:ty,
        kind $kind:ident
    ) => {
        $(#[$hdoc])*
        pub struct $name<$($p),*> {
            pub(crate) at: $crate::kinds::Slot,
            _t: ::std::marker::PhantomData<fn() -> ($($p,)*)>,
        }
        impl<$($p),*> $name<$($p),*> {
            pub(crate) fn new(at: $crate::kinds::Slot) -> Self {
                Self { at, _t: ::std::marker::PhantomData }
            }
            /// The node's identity.
            pub fn id(&self) -> $crate::id::NodeId {
                self.at.id
            }
        }
        impl<$($p),*> Clone for $name<$($p),*> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($p),*> Copy for $name<$($p),*> {}
        impl<$($p),*> ::std::fmt::Debug for $name<$($p),*> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}#{}", stringify!($name), self.at.id.index)
            }
        }
        impl<$($p),*> $crate::id::Dep for $name<$($p),*> {
            fn node_id(&self) -> $crate::id::NodeId {
                self.at.id
            }
        }
        impl<$($p),*> From<$name<$($p),*>> for $crate::id::NodeId {
            fn from(h: $name<$($p),*>) -> $crate::id::NodeId {
                h.at.id
            }
        }
        impl<$($p),*> $crate::kinds::sealed::Sealed for $name<$($p),*> {}
        impl<$($p: 'static),*> $crate::kinds::NodeHandle for $name<$($p),*> {
            type OnTemplate<'v, 'a: 'v> = $view<'v, 'a, $($p,)* $crate::kinds::OnTemplate>;
            type OnExec<'v, 'a: 'v> = $view<'v, 'a, $($p,)* $crate::kinds::OnExec>;
            const KIND: ::cuda_graph_topology::NodeKind = ::cuda_graph_topology::NodeKind::$kind;
            #[inline]
            fn on_template<'v, 'a: 'v>(
                self,
                parts: $crate::kinds::Parts<'v, 'a>,
            ) -> Self::OnTemplate<'v, 'a> {
                $view::new(parts.narrow::<$shadow>(self.at.slot))
            }
            #[inline(always)]
            fn on_exec<'v, 'a: 'v>(self, parts: $crate::kinds::Parts<'v, 'a>) -> Self::OnExec<'v, 'a> {
                $view::new(parts.narrow::<$shadow>(self.at.slot))
            }
        }

        $(#[$vdoc])*
        pub struct $view<'v, 'a, $($p,)* S> {
            cx: $crate::kinds::NodeCtx<'v, 'a, $shadow>,
            _t: ::std::marker::PhantomData<fn() -> ($($p,)* S,)>,
        }
        impl<'v, 'a, $($p,)* S> $view<'v, 'a, $($p,)* S> {
            #[inline(always)]
            fn new(cx: $crate::kinds::NodeCtx<'v, 'a, $shadow>) -> Self {
                Self { cx, _t: ::std::marker::PhantomData }
            }
            /// The node's name.
            pub fn name(&self) -> &str {
                self.cx.name()
            }
            /// The driver's handle of the node, for driver calls cuda-graph does not make (on
            /// an executable graph's view, the node handle that `cuGraphExec*` calls take,
            /// with [`GraphExec::cu_graph_exec`](crate::GraphExec::cu_graph_exec)). It stays
            /// valid while the graph lives. cuda-graph does not see what is done through it:
            /// parameters set that way last until cuda-graph sets the node again (a setter of
            /// the node, an update that sends it, a re-instantiation).
            pub fn cu_node(&self) -> ::cudarc::driver::sys::CUgraphNode {
                self.cx.node.handle()
            }
        }
    };
}
pub(crate) use kind;

/// A shadow of a kind that executable graphs can disable (kernel, memset, memcpy); its
/// `Shadow::enabled` reads what this sets.
pub(crate) trait Switchable {
    fn set_enabled(&mut self, on: bool);
}

/// `set_enabled`, `disable`, `enable` and `is_enabled` on the `OnExec` view `$view`.
macro_rules! switchable {
    ($view:ident<$($p:ident),*>) => {
        impl<$($p),*> $view<'_, '_, $($p,)* $crate::kinds::OnExec> {
            /// Enables or disables the node. A disabled node does nothing when the graph runs,
            /// and keeps its parameters.
            pub fn set_enabled(&mut self, on: bool) -> Result<(), $crate::error::EditError> {
                use $crate::kinds::Switchable as _;
                let node = self.cx.node;
                let name = self.cx.name();
                self.cx
                    .exec()
                    .set_enabled(node, on)
                    .map_err(|e| e.at(Some(name)))?;
                self.cx.shadow.set_enabled(on);
                self.cx.mirror(|m| m.set_enabled(on));
                if !on {
                    self.cx.stick();
                }
                Ok(())
            }

            /// Disables the node (see [`set_enabled`](Self::set_enabled)).
            pub fn disable(&mut self) -> Result<(), $crate::error::EditError> {
                self.set_enabled(false)
            }

            /// Enables the node (see [`set_enabled`](Self::set_enabled)).
            pub fn enable(&mut self) -> Result<(), $crate::error::EditError> {
                self.set_enabled(true)
            }

            /// Whether the node is enabled.
            pub fn is_enabled(&self) -> bool {
                use $crate::kinds::Shadow as _;
                self.cx.shadow.enabled()
            }
        }
    };
}
pub(crate) use switchable;
