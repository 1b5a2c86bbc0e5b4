//! Setter views: what `graph.node(h)` and `exec.node(h)` return.
//!
//! One view type per node kind, with exactly the setters the driver allows for that kind. The
//! side marker ([`OnTemplate`] or [`OnExec`]) adds what exists on one side only: enabling and
//! disabling nodes and swapping child graphs exist on executable graphs alone.
//!
//! Every setter checks its input first, builds the new parameters beside the shadow copy,
//! sends them with one driver call, and keeps them only if the driver accepted them: a failed
//! setter leaves the node as it was. On an executable graph a setter also writes the same change
//! into the template's shadow (sent to the template lazily, before a whole-graph update), so
//! `GraphExec::update` never undoes it.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, LaunchConfig};

use crate::args::{ArgAt, ArgPtrs, KernelArg, KernelArgs};
use crate::bind::{Bindings, BufMut};
use crate::driver::{self, CUgraphNode};
use crate::error::{Error, Result};
use crate::graph::{Graph, GraphId};
use crate::handles::{Location, MemcpyDst, MemcpySrc, MemsetValue};
use crate::host::{HostSlot, PanicSlot};
use crate::shadow::{Limits, Shadow, Target};
use crate::topology::Topology;

mod sealed {
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

/// Everything a view needs, borrowed from the graph (and executable graph) for the view's life.
#[doc(hidden)]
pub struct NodeAccess<'v, 'a> {
    pub(crate) target: Target,
    pub(crate) node: CUgraphNode,
    pub(crate) ctx: &'v Arc<CudaContext>,
    /// The node's names, read only for error messages.
    pub(crate) topo: &'v Topology,
    pub(crate) index: u32,
    pub(crate) shadow: &'v mut Shadow<'a>,
    /// The template's shadow and its dirty flag, when the view edits an executable graph.
    pub(crate) mirror: Option<(&'v mut Shadow<'a>, &'v mut bool)>,
    pub(crate) bindings: &'v Bindings<'a>,
    pub(crate) limits: &'v Limits,
    pub(crate) panics: &'v Arc<PanicSlot>,
    /// Host slots replaced on an executable graph, kept until no launch can call them.
    pub(crate) retired: Option<&'v mut Vec<Arc<HostSlot<'a>>>>,
    pub(crate) children: &'v mut Vec<Graph<'a>>,
}

impl<'v, 'a> NodeAccess<'v, 'a> {
    /// The node's name.
    pub(crate) fn name(&self) -> &'v str {
        self.topo.name(self.index)
    }

    fn fail(&self, e: driver::CallError) -> Error {
        Error::call(e, Some(self.name()))
    }

    /// Makes one driver call for this node (binding the context first if this thread lacks it),
    /// naming the node if it fails.
    #[inline]
    fn send(&self, call: impl Fn() -> driver::CallResult<()>) -> Result<()> {
        driver::in_context(self.ctx.cu_ctx(), call).map_err(|e| self.fail(e))
    }

    /// Applies `edit` to the template's shadow too and marks it for sending.
    fn mirror(&mut self, edit: impl FnOnce(&mut Shadow<'a>)) {
        if let Some((m, dirty)) = self.mirror.as_mut() {
            edit(m);
            **dirty = true;
        }
    }

    fn exec_handle(&self) -> driver::CUgraphExec {
        match self.target {
            Target::Exec(e) => e,
            Target::Template => unreachable!("`OnExec` views always target an executable graph"),
        }
    }

    fn set_enabled(&mut self, on: bool) -> Result<()> {
        let e = self.exec_handle();
        // SAFETY: the node is a kernel, memset or memcpy node of the graph `e` was made from
        // (the handle type guarantees the kind).
        self.send(|| unsafe { driver::node_set_enabled(e, self.node, on) })?;
        self.shadow.set_enabled(on);
        self.mirror(|m| m.set_enabled(on));
        Ok(())
    }
}

macro_rules! view {
    ($(#[$doc:meta])* $name:ident<$($p:ident),*>) => {
        $(#[$doc])*
        pub struct $name<'v, 'a, $($p,)* S> {
            acc: NodeAccess<'v, 'a>,
            _t: PhantomData<fn() -> ($($p,)* S,)>,
        }
        impl<'v, 'a, $($p,)* S> $name<'v, 'a, $($p,)* S> {
            pub(crate) fn new(acc: NodeAccess<'v, 'a>) -> Self {
                Self { acc, _t: PhantomData }
            }
            /// The node's name.
            pub fn name(&self) -> &str {
                self.acc.name()
            }
        }
    };
}

view!(
    /// An empty node has no parameters.
    EmptyMut<>
);
view!(
    /// Setters of a kernel node with argument tuple `A`.
    KernelMut<A>
);
view!(
    /// Setters of a memset node of `T`.
    MemsetMut<T>
);
view!(
    /// Setters of a memcpy node of `T` from a `Src` location to a `Dst` location.
    MemcpyMut<T, Dst, Src>
);
view!(
    /// Setters of a host callback node.
    HostMut<>
);
view!(
    /// Setters of a child graph node (on an executable graph only).
    ChildMut<>
);
view!(
    /// Setters of an event record node.
    EventRecordMut<>
);
view!(
    /// Setters of an event wait node.
    EventWaitMut<>
);

impl<'a, A: KernelArgs, S: Side> KernelMut<'_, 'a, A, S> {
    /// The node's current launch configuration.
    pub fn launch_config(&mut self) -> LaunchConfig {
        self.acc.shadow.kernel().cfg
    }

    /// Replaces every argument.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         step: cuda_graph_runtime::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// exec.node(step)?.set_args((3.0, 1024))?;
    /// # Ok(()) }
    /// ```
    pub fn set_args(&mut self, args: A) -> Result<()> {
        let acc = &mut self.acc;
        let k = acc.shadow.kernel();
        let cfg = k.cfg;
        let mut ptrs = ArgPtrs::new();
        let p = k.stage(&cfg, &mut ptrs, |block| args.write(acc.bindings, block))?;
        acc.send(|| send_kernel(acc.target, acc.node, &p))?;
        acc.shadow.kernel().commit_scratch();
        let bindings = acc.bindings;
        acc.mirror(|m| {
            // Cannot fail: the handles resolved a moment ago.
            let _ = args.write(bindings, &mut m.kernel().args);
        });
        Ok(())
    }

    /// Replaces argument `I` and resends the others from the shadow copy.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         step: cuda_graph_runtime::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// exec.node(step)?.set_arg::<0>(2.5)?;
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn set_arg<const I: usize>(&mut self, value: <A as ArgAt<I>>::Arg) -> Result<()>
    where
        A: ArgAt<I>,
    {
        let acc = &mut self.acc;
        let raw = value.resolve(acc.bindings)?;
        let k = acc.shadow.kernel();
        // Write in place, and put the old value back if the driver refuses.
        let old: <<A as ArgAt<I>>::Arg as KernelArg>::Raw = k.args.get(I);
        k.args.put(I, raw);
        let mut ptrs = ArgPtrs::new();
        let p = k.params(&k.cfg, &k.args, &mut ptrs);
        if let Err(e) = acc.send(|| send_kernel(acc.target, acc.node, &p)) {
            acc.shadow.kernel().args.put(I, old);
            return Err(e);
        }
        acc.mirror(|m| m.kernel().args.put(I, raw));
        Ok(())
    }

    /// Replaces every argument and the launch configuration with one driver call.
    pub fn set(&mut self, args: A, cfg: LaunchConfig) -> Result<()> {
        let acc = &mut self.acc;
        let k = acc.shadow.kernel();
        k.check(&cfg, acc.limits)
            .map_err(|reason| Error::InvalidLaunch {
                node: acc.topo.name(acc.index).to_owned(),
                reason,
            })?;
        let mut ptrs = ArgPtrs::new();
        let p = k.stage(&cfg, &mut ptrs, |block| args.write(acc.bindings, block))?;
        acc.send(|| send_kernel(acc.target, acc.node, &p))?;
        let k = acc.shadow.kernel();
        k.commit_scratch();
        k.cfg = cfg;
        let bindings = acc.bindings;
        acc.mirror(|m| {
            let m = m.kernel();
            // Cannot fail: the handles resolved a moment ago.
            let _ = args.write(bindings, &mut m.args);
            m.cfg = cfg;
        });
        Ok(())
    }

    /// Replaces grid, block and dynamic shared memory at once.
    pub fn set_launch(&mut self, cfg: LaunchConfig) -> Result<()> {
        self.edit_cfg(|c| *c = cfg)
    }

    /// Replaces the grid size in blocks.
    pub fn set_grid(&mut self, grid: (u32, u32, u32)) -> Result<()> {
        self.edit_cfg(|c| c.grid_dim = grid)
    }

    /// Replaces the block size in threads.
    pub fn set_block(&mut self, block: (u32, u32, u32)) -> Result<()> {
        self.edit_cfg(|c| c.block_dim = block)
    }

    /// Replaces the dynamic shared memory size in bytes.
    pub fn set_shared_mem(&mut self, bytes: u32) -> Result<()> {
        self.edit_cfg(|c| c.shared_mem_bytes = bytes)
    }

    fn edit_cfg(&mut self, edit: impl Fn(&mut LaunchConfig)) -> Result<()> {
        let acc = &mut self.acc;
        let k = acc.shadow.kernel();
        let mut cfg = k.cfg;
        edit(&mut cfg);
        k.check(&cfg, acc.limits)
            .map_err(|reason| Error::InvalidLaunch {
                node: acc.topo.name(acc.index).to_owned(),
                reason,
            })?;
        let mut ptrs = ArgPtrs::new();
        let p = k.params(&cfg, &k.args, &mut ptrs);
        acc.send(|| send_kernel(acc.target, acc.node, &p))?;
        acc.shadow.kernel().cfg = cfg;
        acc.mirror(|m| edit(&mut m.kernel().cfg));
        Ok(())
    }
}

#[inline]
fn send_kernel(t: Target, n: CUgraphNode, p: &driver::KernelParams) -> driver::CallResult<()> {
    // SAFETY: `p` was built from a kernel shadow: a live function (borrowed by the graph) and
    // one value per parameter (checked against the function when the node was added).
    unsafe {
        match t {
            Target::Template => driver::kernel_set(n, p),
            Target::Exec(e) => driver::exec_kernel_set(e, n, p),
        }
    }
}

macro_rules! enable_setters {
    ($name:ident<$($p:ident),*>) => {
        impl<$($p),*> $name<'_, '_, $($p,)* OnExec> {
            /// Enables or disables the node. A disabled node does nothing when the graph runs,
            /// and keeps its parameters.
            pub fn set_enabled(&mut self, on: bool) -> Result<()> {
                self.acc.set_enabled(on)
            }

            /// Disables the node (see [`set_enabled`](Self::set_enabled)).
            pub fn disable(&mut self) -> Result<()> {
                self.acc.set_enabled(false)
            }

            /// Enables the node (see [`set_enabled`](Self::set_enabled)).
            pub fn enable(&mut self) -> Result<()> {
                self.acc.set_enabled(true)
            }

            /// Whether the node is enabled.
            pub fn is_enabled(&self) -> bool {
                self.acc.shadow.enabled()
            }
        }
    };
}
enable_setters!(KernelMut<A>);
enable_setters!(MemsetMut<T>);
enable_setters!(MemcpyMut<T, D, Src>);

impl<T: MemsetValue, S: Side> MemsetMut<'_, '_, T, S> {
    /// Number of elements the node fills.
    pub fn len(&mut self) -> usize {
        self.acc.shadow.memset().len
    }

    /// Whether the node fills no element (never: empty memsets are rejected when added).
    pub fn is_empty(&mut self) -> bool {
        self.len() == 0
    }

    /// Replaces the value written.
    pub fn set_value(&mut self, value: T) -> Result<()> {
        let acc = &mut self.acc;
        let mut m = *acc.shadow.memset();
        m.bits = value.bits();
        acc.send(|| m.apply(acc.target, acc.node, acc.ctx.cu_ctx()))?;
        *acc.shadow.memset() = m;
        acc.mirror(|s| s.memset().bits = m.bits);
        Ok(())
    }

    /// Points the node at another buffer; it must hold at least [`len`](Self::len) elements.
    pub fn set_dst(&mut self, dst: BufMut<T>) -> Result<()> {
        let acc = &mut self.acc;
        let b = acc.bindings.get(dst.graph, dst.index)?;
        let mut m = *acc.shadow.memset();
        if b.len < m.len {
            return Err(Error::BufferTooShort {
                node: acc.topo.name(acc.index).to_owned(),
                role: "destination",
                len: b.len,
                needed: m.len,
            });
        }
        m.dst = b.addr;
        acc.send(|| m.apply(acc.target, acc.node, acc.ctx.cu_ctx()))?;
        *acc.shadow.memset() = m;
        acc.mirror(|s| s.memset().dst = m.dst);
        Ok(())
    }
}

impl<T, D: Location, Src: Location, S: Side> MemcpyMut<'_, '_, T, D, Src, S> {
    /// Number of elements the node copies.
    pub fn len(&mut self) -> usize {
        self.acc.shadow.memcpy().bytes / std::mem::size_of::<T>().max(1)
    }

    /// Whether the node copies no element (never: empty copies are rejected when added).
    pub fn is_empty(&mut self) -> bool {
        self.len() == 0
    }

    /// Reads from another buffer; it must hold at least [`len`](Self::len) elements. A too
    /// short buffer is rejected here, before any driver call.
    pub fn set_src(&mut self, src: impl MemcpySrc<T, Loc = Src>) -> Result<()> {
        let (g, i) = src.binding();
        self.edit_end(g, i, "source", |m, addr| m.src.addr = addr)
    }

    /// Writes to another buffer; it must hold at least [`len`](Self::len) elements.
    pub fn set_dst(&mut self, dst: impl MemcpyDst<T, Loc = D>) -> Result<()> {
        let (g, i) = dst.binding();
        self.edit_end(g, i, "destination", |m, addr| m.dst.addr = addr)
    }

    fn edit_end(
        &mut self,
        graph: GraphId,
        index: u32,
        role: &'static str,
        put: impl Fn(&mut crate::shadow::MemcpyShadow, u64),
    ) -> Result<()> {
        let acc = &mut self.acc;
        let b = acc.bindings.get(graph, index)?;
        let elem = std::mem::size_of::<T>().max(1);
        let mut m = *acc.shadow.memcpy();
        if b.len * elem < m.bytes {
            return Err(Error::BufferTooShort {
                node: acc.topo.name(acc.index).to_owned(),
                role,
                len: b.len,
                needed: m.bytes / elem,
            });
        }
        put(&mut m, b.addr);
        acc.send(|| m.apply(acc.target, acc.node, acc.ctx.cu_ctx()))?;
        *acc.shadow.memcpy() = m;
        acc.mirror(|s| put(s.memcpy(), b.addr));
        Ok(())
    }
}

impl<'a, S: Side> HostMut<'_, 'a, S> {
    /// Replaces the closure the node runs. The old closure is kept until no launch can still
    /// call it.
    pub fn set_callback<F: Fn() + Send + Sync + 'a>(&mut self, f: F) -> Result<()> {
        let acc = &mut self.acc;
        let slot = Arc::new(HostSlot::new(Box::new(f), acc.name(), acc.panics.clone()));
        let new = crate::shadow::HostShadow { slot: slot.clone() };
        acc.send(|| new.apply(acc.target, acc.node))?;
        let old = std::mem::replace(acc.shadow.host(), new);
        if let Some(retired) = acc.retired.as_mut() {
            retired.push(old.slot);
        }
        acc.mirror(|m| m.host().slot = slot);
        Ok(())
    }
}

impl<'a> ChildMut<'_, 'a, OnExec> {
    /// Runs another child graph in this node. It must have the same topology as the one the
    /// node was made with (the driver checks). The executable graph keeps it (and the one it
    /// replaces, which a running launch may still use) until it is dropped.
    pub fn set_graph(&mut self, child: Graph<'a>) -> Result<()> {
        let acc = &mut self.acc;
        if child.ctx.cu_ctx() != acc.ctx.cu_ctx() {
            return Err(Error::ContextMismatch {
                what: "the child graph",
            });
        }
        let current = &acc.children[acc.shadow.child().child as usize];
        if let Some(why) = current.topo.differs_from(&child.topo) {
            return Err(Error::Invalid(format!(
                "node `{}`: the new child graph differs from the one it replaces ({why}); a child graph can only be swapped for one with the same nodes and edges",
                acc.name()
            )));
        }
        let raw = child.raw.0;
        let e = acc.exec_handle();
        // SAFETY: `e` was made from the graph of child node `acc.node`; `raw` is a live graph,
        // kept in the children table below.
        acc.send(|| unsafe { driver::exec_child_set(e, acc.node, raw) })?;
        acc.children.push(child);
        let index = (acc.children.len() - 1) as u32;
        let c = acc.shadow.child();
        c.child = index;
        c.raw = raw;
        acc.mirror(|m| {
            let c = m.child();
            c.child = index;
            c.raw = raw;
        });
        Ok(())
    }
}

macro_rules! event_setter {
    ($name:ident) => {
        impl<'a, S: Side> $name<'_, 'a, S> {
            /// Uses another event. It must belong to the graph's context.
            pub fn set_event(&mut self, event: &'a CudaEvent) -> Result<()> {
                let acc = &mut self.acc;
                if event.context().cu_ctx() != acc.ctx.cu_ctx() {
                    return Err(Error::ContextMismatch { what: "the event" });
                }
                let record = matches!(acc.shadow, Shadow::EventRecord(_));
                let mut ev = *acc.shadow.event();
                ev.event = event.cu_event();
                acc.send(|| ev.apply(acc.target, acc.node, record))?;
                *acc.shadow.event() = ev;
                acc.mirror(|m| *m.event() = ev);
                Ok(())
            }
        }
    };
}
event_setter!(EventRecordMut);
event_setter!(EventWaitMut);
