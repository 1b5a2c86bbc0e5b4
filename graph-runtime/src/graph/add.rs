//! Adding nodes to a template: the kind checks its inputs and makes its shadow, the graph checks
//! the name and dependencies, one driver call makes the node, and the node is recorded.

use std::sync::Arc;

use cudarc::driver::{CudaEvent, LaunchConfig};

use super::deps::{check_row, check_scope, raw_deps, repeated, unknown_dependency, INLINE_DEPS};
use super::Graph;
use crate::args::KernelArgs;
use crate::bind::BufMut;
use crate::driver::{self, EventRef, FuncInfo, RawNode};
use crate::error::{BuildError, HandleError, TopologyError};
use crate::id::{Dep, NodeId};
use crate::kinds::child::{ChildNode, ChildShadow};
use crate::kinds::empty::{EmptyNode, EmptyShadow};
use crate::kinds::event::{EventRecordNode, EventWaitNode, RecordShadow, WaitShadow};
use crate::kinds::host::{HostNode, HostShadow};
use crate::kinds::kernel::{KernelNode, KernelShadow};
use crate::kinds::limits::FuncLimits;
use crate::kinds::memcpy::{MemcpyDst, MemcpyNode, MemcpyShadow, MemcpySrc};
use crate::kinds::memset::{MemsetNode, MemsetShadow, MemsetValue};
use crate::kinds::{IntoChild, NodeRec, Shadow, Slot, Store, Stored};
use crate::module::{Kernel, KernelRef};
use cuda_graph_topology::{NodeKind, NodeName};

/// The dependencies of a node being added: handles, or node indices of this graph.
#[derive(Clone, Copy)]
pub(super) enum Deps<'d> {
    Handles(&'d [&'d dyn Dep]),
    /// Node indices, for a node whose name is known to be unique.
    Indices {
        deps: &'d [u32],
        name: &'static str,
    },
}

impl<'a> Graph<'a> {
    /// The node indices of `deps`, checked: handles of this graph, indices of nodes it has, no
    /// node twice. Handles are resolved into `self.deps`; indices are used as given.
    #[inline]
    fn resolve<'d>(
        deps_buf: &'d mut Vec<u32>,
        nodes: &[NodeRec],
        topo: &cuda_graph_topology::Topology,
        id: crate::id::GraphId,
        name: &str,
        deps: Deps<'d>,
    ) -> Result<&'d [u32], BuildError> {
        let out: &[u32] = match deps {
            Deps::Handles(deps) => {
                deps_buf.clear();
                for d in deps {
                    let dep = d.node_id();
                    if dep.graph != id {
                        return Err(HandleError::Foreign { what: "node" }.into());
                    }
                    deps_buf.push(dep.index);
                }
                deps_buf
            }
            Deps::Indices { deps, .. } => {
                let len = nodes.len() as u32;
                if let Some(&index) = deps.iter().find(|&&i| i >= len) {
                    return Err(unknown_dependency(name, index, len));
                }
                deps
            }
        };
        if let Some(i) = repeated(out) {
            return Err(BuildError::RepeatedDependency {
                node: name.to_owned(),
                dependency: topo.name(i).to_owned(),
            });
        }
        Ok(out)
    }

    /// Checks the name and dependencies, makes the driver node from `shadow`, then records it.
    #[inline]
    pub(super) fn add_node<S: Shadow<'a>>(
        &mut self,
        name: &str,
        deps: Deps<'_>,
        shadow: S,
    ) -> Result<Slot, BuildError> {
        // Names given with node indices come from `cuda_graph!`, which checked at compile time
        // that they are unique; other names are checked here.
        let stored = match deps {
            Deps::Indices { name, .. } => Some(NodeName::Static(name)),
            Deps::Handles(_) => {
                if self.topo.find(name).is_some() {
                    return Err(TopologyError::DuplicateNode {
                        name: name.to_owned(),
                    }
                    .into());
                }
                None
            }
        };
        let deps = Self::resolve(&mut self.deps, &self.nodes, &self.topo, self.id, name, deps)?;
        let scope = self.raw.scope();
        if self.topo.body_count() > 0 {
            check_scope(&self.topo, deps, name, S::KIND, scope)?;
        }
        let mut inline = [RawNode::NULL; INLINE_DEPS];
        let raw_deps = raw_deps(&self.nodes, deps, &mut inline, &mut self.raw_deps);
        // The shadow goes to its store (one move), and the driver node is made from it there;
        // a refused node leaves the store as it was.
        let index = self.topo.len() as u32;
        let store = S::store_mut(&mut self.stores);
        let slot = store.push(shadow);
        let raw = match store.items[slot as usize].add(&mut self.raw, raw_deps, &self.children) {
            Ok(raw) => raw,
            Err(e) => {
                store.pop();
                return Err(e.at(Some(name)).into());
            }
        };
        let stored = stored.unwrap_or_else(|| NodeName::Shared(Arc::from(name)));
        let added = self.topo.add_new_node_in(stored, S::KIND, scope);
        debug_assert_eq!(added, index);
        // A new node has no successors (no cycle possible) and `deps` holds no repeats.
        self.topo.add_edges_into_new(deps, index);
        self.nodes.push(NodeRec::new(raw, S::STORE, slot));
        self.version += 1;
        Ok(Slot {
            id: NodeId {
                graph: self.id,
                index,
            },
            slot,
        })
    }

    /// Adds an empty node (a join point).
    pub fn add_empty(&mut self, name: &str, deps: &[&dyn Dep]) -> Result<EmptyNode, BuildError> {
        let at = self.add_node(name, Deps::Handles(deps), EmptyShadow)?;
        Ok(EmptyNode::new(at))
    }

    /// Adds a kernel launch. `args` is a tuple of by-value scalars and buffer handles, checked
    /// against the kernel's parameter list (count and sizes) before the node is made.
    ///
    /// `func` is a `&'a Kernel` or a `Kernel`; either way the graph keeps its function (and
    /// with it its module) loaded for as long as it and its executable graphs live.
    pub fn add_kernel<A: KernelArgs>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        func: impl Into<KernelRef<'a>>,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<KernelNode<A>, BuildError> {
        match func.into() {
            KernelRef::Borrowed(k) => self.add_kernel_with(name, Deps::Handles(deps), k, cfg, args),
            KernelRef::Owned(k) => self.add_kernel_with(name, Deps::Handles(deps), &k, cfg, args),
        }
    }

    /// Like [`add_kernel`](Self::add_kernel), but the dependencies are node indices of this
    /// graph (the order nodes were added in). What `cuda_graph!` uses: it knows the order it
    /// adds nodes in, and that their names are unique.
    #[doc(hidden)]
    pub fn add_kernel_after<A: KernelArgs>(
        &mut self,
        name: &'static str,
        deps: &[u32],
        func: &Kernel,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<KernelNode<A>, BuildError> {
        self.add_kernel_with(name, Deps::Indices { deps, name }, func, cfg, args)
    }

    /// Adds a node of `func` for each of `rows` (a name, and the node indices it follows), with
    /// the launch configuration and arguments `node(j)` gives, `j` its index in `nodes`, where
    /// its handle goes. The function's parameter list and limits are fetched, and the
    /// arguments' layout checked against them, once for all the rows: what `cuda_graph!` uses
    /// for the nodes of one kernel (their names are unique, as `add_kernel_after`'s).
    ///
    /// Every row is checked and its shadow written before the first driver call, so a mistake
    /// in any row adds none of them; the driver calls then follow one another, each node
    /// recorded as it is made (a node the driver refuses leaves the rows before it added).
    #[doc(hidden)]
    pub fn add_kernels_after<A: KernelArgs>(
        &mut self,
        func: &Kernel,
        rows: &[(&'static str, &[u32])],
        nodes: &mut Vec<KernelNode<A>>,
        node: impl Fn(usize) -> (LaunchConfig, A),
    ) -> Result<(), BuildError> {
        let Some(&(first, _)) = rows.first() else {
            return Ok(());
        };
        let info = self.kernel_info(func, first)?;
        let launch =
            KernelShadow::launch_of::<A>(&mut self.raw, func.cuda_function(), info, first)?;
        let limits = FuncLimits::of(info);
        let base = self.nodes.len() as u32;
        let scope = self.raw.scope();
        let from = self.stores.kernel.items.len();
        // Every row checked and its shadow written, before any driver call. Until `keep`, the
        // shadows pushed go again when `unmade` drops: an error (or a panic) in any row leaves
        // the store as it was.
        let unmade = Unmade {
            store: &mut self.stores.kernel,
            from,
        };
        unmade.store.reserve(rows.len());
        for (j, &(name, deps)) in rows.iter().enumerate() {
            let (cfg, args) = node(nodes.len() + j);
            let index = base + j as u32;
            check_row(&self.topo, rows, base, name, deps, index, scope)?;
            KernelShadow::check_launch(&limits, name, &cfg, &self.limits)?;
            let slot = unmade
                .store
                .push_with(|| KernelShadow::unwritten(launch, limits));
            unmade.store.items[slot as usize].write(cfg, args, &self.bindings)?;
        }
        unmade.keep();
        // The driver calls, back to back. A driver call pushes its caller's code and data out
        // of the CPU's nearest caches, so between two of them only what the next needs is
        // touched: its shadow, its dependencies' driver nodes, and its record, made here; and
        // the next node's shadow is asked for before the call (on an H200, a 10-node fan-out's
        // build spent 0.24 us of its own with it, 0.35 us without).
        self.nodes.reserve(rows.len());
        for (j, &(name, deps)) in rows.iter().enumerate() {
            let slot = (from + j) as u32;
            let mut inline = [RawNode::NULL; INLINE_DEPS];
            let raw_deps = raw_deps(&self.nodes, deps, &mut inline, &mut self.raw_deps);
            let store = &mut self.stores.kernel;
            if let Some(next) = store.items.get(slot as usize + 1) {
                driver::prefetch(next);
            }
            match store.items[slot as usize].add(&mut self.raw, raw_deps, &self.children) {
                Ok(raw) => self
                    .nodes
                    .push(NodeRec::new(raw, KernelShadow::STORE, slot)),
                Err(e) => {
                    // The rows before it stay added: their names, edges and handles follow.
                    store.truncate(slot as usize);
                    self.record_kernels(&rows[..j], base, from, scope, nodes);
                    return Err(e.at(Some(name)).into());
                }
            }
        }
        self.record_kernels(rows, base, from, scope, nodes);
        Ok(())
    }

    /// Records the nodes of `rows`, made from slots `from` on of the kernel store as nodes
    /// `base` on in scope `scope`: their names, kinds and edges, and their handles (in
    /// `handles`).
    fn record_kernels<A: KernelArgs>(
        &mut self,
        rows: &[(&'static str, &[u32])],
        base: u32,
        from: usize,
        scope: u32,
        handles: &mut Vec<KernelNode<A>>,
    ) {
        let first = self.topo.add_new_nodes_in(rows, NodeKind::Kernel, scope);
        debug_assert_eq!(first, base);
        let graph = self.id;
        handles.extend((0..rows.len()).map(|j| {
            KernelNode::new(Slot {
                id: NodeId {
                    graph,
                    index: base + j as u32,
                },
                slot: (from + j) as u32,
            })
        }));
        if !rows.is_empty() {
            self.version += 1;
        }
    }

    /// `kernel`'s parameter list and limits (read from the driver the first time, in this
    /// graph's context); a failure names `node`.
    #[inline]
    fn kernel_info<'k>(&self, kernel: &'k Kernel, node: &str) -> Result<&'k FuncInfo, BuildError> {
        Ok(
            driver::in_context(self.ctx.cu_ctx(), || kernel.info())
                .map_err(|e| e.at(Some(node)))?,
        )
    }

    #[inline]
    fn add_kernel_with<A: KernelArgs>(
        &mut self,
        name: &str,
        deps: Deps<'_>,
        kernel: &Kernel,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<KernelNode<A>, BuildError> {
        let info = self.kernel_info(kernel, name)?;
        let shadow = KernelShadow::new(
            &mut self.raw,
            kernel.cuda_function(),
            info,
            name,
            cfg,
            args,
            &self.bindings,
            &self.limits,
        )?;
        let at = self.add_node(name, deps, shadow)?;
        Ok(KernelNode::new(at))
    }

    /// Adds a memset writing `value` to every element of `dst`.
    pub fn add_memset<T: MemsetValue>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: BufMut<T>,
        value: T,
    ) -> Result<MemsetNode<T>, BuildError> {
        let shadow = MemsetShadow::new(&self.bindings, name, dst, value)?;
        let at = self.add_node(name, Deps::Handles(deps), shadow)?;
        Ok(MemsetNode::new(at))
    }

    /// Adds a 1-D copy of every element of `src` into `dst`, which must be at least as long.
    pub fn add_memcpy<T, D: MemcpyDst<T>, S: MemcpySrc<T>>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: D,
        src: S,
    ) -> Result<MemcpyNode<T, D::Loc, S::Loc>, BuildError> {
        let (g, i) = src.binding();
        let len = self.bindings.get(g, i)?.len;
        self.add_memcpy_len(name, deps, dst, src, len)
    }

    /// Adds a 1-D copy of the first `len` elements of `src` into `dst`.
    pub fn add_memcpy_len<T, D: MemcpyDst<T>, S: MemcpySrc<T>>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: D,
        src: S,
        len: usize,
    ) -> Result<MemcpyNode<T, D::Loc, S::Loc>, BuildError> {
        let shadow = MemcpyShadow::new::<T, D, S>(&self.bindings, name, dst, src, len)?;
        for (g, i) in [dst.binding(), src.binding()] {
            self.reach_peer(name, g, i)?;
        }
        let at = self.add_node(name, Deps::Handles(deps), shadow)?;
        Ok(MemcpyNode::new(at))
    }

    /// For a memcpy end bound with `bind_peer`: this graph's device can reach it directly,
    /// with peer access enabled, or an error naming the node.
    fn reach_peer(
        &self,
        node: &str,
        graph: crate::id::GraphId,
        index: u32,
    ) -> Result<(), BuildError> {
        let Some(peer) = self.bindings.get(graph, index)?.peer() else {
            return Ok(());
        };
        match crate::driver::enable_peer_access(&self.ctx, peer) {
            Ok(true) => Ok(()),
            Ok(false) => Err(BuildError::NoPeerAccess {
                node: node.to_owned(),
                device: self.ctx.ordinal(),
                peer: peer.ordinal(),
            }),
            Err(e) => Err(e.at(Some(node)).into()),
        }
    }

    /// Adds a host callback. The closure runs on a driver thread; it must not call CUDA. A
    /// panic inside it is caught and reported by the next launch or synchronize.
    pub fn add_host<F: Fn() + Send + Sync + 'a>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        f: F,
    ) -> Result<HostNode, BuildError> {
        let shadow = HostShadow::new(f, name, &self.panics);
        let at = self.add_node(name, Deps::Handles(deps), shadow)?;
        Ok(HostNode::new(at))
    }

    /// Adds a child graph node running a copy of `child`. This graph takes the child (its
    /// buffers and callbacks are used by the copy). Make it with
    /// [`child_graph`](Self::child_graph) to share this graph's buffers.
    pub fn add_child(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        child: Graph<'a>,
    ) -> Result<ChildNode, BuildError> {
        self.check_ctx(&child.ctx, "the child graph")?;
        let t = child.topology();
        if (0..t.len() as u32).any(|i| matches!(t.kind(i), NodeKind::MemAlloc | NodeKind::MemFree))
        {
            return Err(BuildError::MemoryNodesInChild {
                node: name.to_owned(),
            });
        }
        let index = self.children.push(child.into_child());
        let shadow = ChildShadow {
            child: index,
            embedded: index,
            edited: false,
        };
        match self.add_node(name, Deps::Handles(deps), shadow) {
            Ok(at) => Ok(ChildNode::new(at)),
            Err(e) => {
                // Left as it was: the child goes with the error.
                self.children.list.pop();
                Err(e)
            }
        }
    }

    /// Adds a node recording `event`.
    pub fn add_event_record(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        event: &'a CudaEvent,
    ) -> Result<EventRecordNode, BuildError> {
        self.check_ctx(event.context(), "the event")?;
        let shadow = RecordShadow {
            event: EventRef::of(event),
        };
        let at = self.add_node(name, Deps::Handles(deps), shadow)?;
        Ok(EventRecordNode::new(at))
    }

    /// Adds a node waiting for `event`.
    pub fn add_event_wait(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        event: &'a CudaEvent,
    ) -> Result<EventWaitNode, BuildError> {
        self.check_ctx(event.context(), "the event")?;
        let shadow = WaitShadow {
            event: EventRef::of(event),
        };
        let at = self.add_node(name, Deps::Handles(deps), shadow)?;
        Ok(EventWaitNode::new(at))
    }
}

/// Shadows pushed into the kernel store, from slot `from` on, for nodes not made yet: they go
/// again when this drops, unless [`keep`](Self::keep) says the nodes are to be made.
struct Unmade<'s> {
    store: &'s mut Store<KernelShadow>,
    from: usize,
}

impl Unmade<'_> {
    /// The shadows stay.
    fn keep(self) {
        std::mem::forget(self);
    }
}

impl Drop for Unmade<'_> {
    fn drop(&mut self) {
        self.store.truncate(self.from);
    }
}
