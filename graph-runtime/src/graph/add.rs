//! Adding nodes to a template: checks first (name, dependencies, arguments, launch limits,
//! lengths), then one driver call, then the node is recorded with its shadow parameters.

use std::sync::Arc;

use cudarc::driver::{CudaEvent, LaunchConfig};

use super::{Graph, GraphId, NodeRec};
use crate::args::{ArgBlock, ArgLayout, ArgPtrs, KernelArgs};
use crate::bind::BufMut;
use crate::driver::{self, CUgraph, CUgraphNode, CallResult};
use crate::error::{Error, Result};
use crate::handles::{
    ChildNode, Dep, EmptyNode, EventRecordNode, EventWaitNode, HostNode, KernelNode, Location,
    MemcpyDst, MemcpyNode, MemcpySrc, MemsetNode, MemsetValue, NodeId,
};
use crate::host::HostSlot;
use crate::module::{Kernel, KernelRef};
use crate::shadow::{
    ChildShadow, Endpoint, EventShadow, HostShadow, KernelShadow, MemcpyShadow, MemsetShadow,
    Shadow,
};
use crate::topology::{NodeKind, NodeName};

/// The dependencies of a node being added: handles, or node indices of this graph.
#[derive(Clone, Copy)]
enum Deps<'d> {
    Handles(&'d [&'d dyn Dep]),
    /// Node indices, for a node whose name is known to be unique.
    Indices {
        deps: &'d [u32],
        name: &'static str,
    },
}

impl<'a> Graph<'a> {
    /// Resolves `deps` into `self.deps` (indices) and `self.raw_deps` (driver nodes), buffers
    /// reused from node to node.
    fn resolve(&mut self, deps: Deps<'_>) -> Result<()> {
        self.deps.clear();
        self.raw_deps.clear();
        match deps {
            Deps::Handles(deps) => {
                for d in deps {
                    let id = d.node_id();
                    if id.graph != self.id {
                        return Err(Error::ForeignHandle { what: "node" });
                    }
                    self.deps.push(id.index);
                }
            }
            Deps::Indices { deps, .. } => {
                if let Some(&i) = deps.iter().find(|&&i| i as usize >= self.nodes.len()) {
                    return Err(Error::Invalid(format!(
                        "no node {i} to depend on: the graph has {} nodes",
                        self.nodes.len()
                    )));
                }
                self.deps.extend_from_slice(deps);
            }
        }
        let nodes = &self.nodes;
        self.raw_deps
            .extend(self.deps.iter().map(|&i| nodes[i as usize].raw));
        let out = &self.deps;
        let repeated = if out.len() <= 8 {
            (1..out.len()).find_map(|i| out[..i].contains(&out[i]).then_some(out[i]))
        } else {
            let mut seen = std::collections::HashSet::with_capacity(out.len());
            out.iter().copied().find(|&i| !seen.insert(i))
        };
        if let Some(i) = repeated {
            return Err(Error::Invalid(format!(
                "node `{}` is listed twice as a dependency",
                self.topo.name(i)
            )));
        }
        Ok(())
    }

    /// Checks the name and dependencies, lets `add` create the driver node, then records it.
    fn add_node(
        &mut self,
        name: &str,
        kind: NodeKind,
        deps: Deps<'_>,
        shadow: Shadow<'a>,
        add: impl Fn(CUgraph, &[CUgraphNode]) -> CallResult<CUgraphNode>,
    ) -> Result<NodeId> {
        // Names given with node indices come from `cuda_graph!`, which checked at compile time
        // that they are unique; other names are checked here.
        let stored = match deps {
            Deps::Indices { name, .. } => Some(NodeName::Static(name)),
            Deps::Handles(_) => {
                if self.topo.find(name).is_some() {
                    return Err(Error::DuplicateNode {
                        name: name.to_owned(),
                    });
                }
                None
            }
        };
        self.resolve(deps)?;
        let g = self.raw.0;
        let raw_deps = &self.raw_deps;
        let raw = driver::in_context(self.ctx.cu_ctx(), || add(g, raw_deps))
            .map_err(|e| Error::call(e, Some(name)))?;
        let stored = stored.unwrap_or_else(|| NodeName::Shared(Arc::from(name)));
        let index = self.topo.add_new_node(stored, kind);
        // A new node has no successors (no cycle possible) and `deps` holds no repeats.
        self.topo.add_edges_into_new(&self.deps, index);
        self.nodes.push(NodeRec {
            raw,
            shadow,
            dirty: false,
            stale: false,
        });
        self.version += 1;
        Ok(NodeId {
            graph: self.id,
            index,
        })
    }

    /// Adds an empty node (a join point).
    pub fn add_empty(&mut self, name: &str, deps: &[&dyn Dep]) -> Result<EmptyNode> {
        let id = self.add_node(
            name,
            NodeKind::Empty,
            Deps::Handles(deps),
            Shadow::Empty,
            |g, d| {
                // SAFETY: `g` is this live graph and `d` its nodes.
                unsafe { driver::add_empty(g, d) }
            },
        )?;
        Ok(EmptyNode::new(id))
    }

    /// Adds a kernel launch. `args` is a tuple of by-value scalars and buffer handles, checked
    /// against the kernel's parameter list (count and sizes) before the node is made.
    ///
    /// `func` is a `&'a Kernel` (borrowed for the graph's life) or a `Kernel` (the graph keeps
    /// it, and with it its module).
    pub fn add_kernel<A: KernelArgs>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        func: impl Into<KernelRef<'a>>,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<KernelNode<A>> {
        match func.into() {
            // SAFETY: the kernel is borrowed for `'a`, as long as the graph and its executable
            // graphs live.
            KernelRef::Borrowed(k) => unsafe {
                self.add_kernel_with(name, Deps::Handles(deps), k, cfg, args)
            },
            KernelRef::Owned(k) => {
                // SAFETY: the graph keeps `k` (below) if the node is made.
                let node =
                    unsafe { self.add_kernel_with(name, Deps::Handles(deps), &k, cfg, args) }?;
                self.keep(&k);
                Ok(node)
            }
        }
    }

    /// Like [`add_kernel`](Self::add_kernel) with an owned kernel, but the graph clones `func`
    /// only if it does not hold the same function yet, and the dependencies are node indices of
    /// this graph (the order nodes were added in). What `cuda_graph!` uses: it knows the order
    /// it adds nodes in, and keeps one copy per kernel however many nodes launch it.
    #[doc(hidden)]
    pub fn add_kernel_after<A: KernelArgs>(
        &mut self,
        name: &'static str,
        deps: &[u32],
        func: &Kernel,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<KernelNode<A>> {
        // SAFETY: the graph keeps a copy of `func` (below) if the node is made.
        let node =
            unsafe { self.add_kernel_with(name, Deps::Indices { deps, name }, func, cfg, args) }?;
        self.keep(func);
        Ok(node)
    }

    /// Keeps a copy of `k` (and with it its module) for the graph's life, one per function.
    fn keep(&mut self, k: &Kernel) {
        let f = k.cuda_function().cu_function();
        if !self
            .kernels
            .iter()
            .any(|kept| kept.cuda_function().cu_function() == f)
        {
            self.kernels.push(k.clone());
        }
    }

    /// Adds the kernel node.
    ///
    /// # Safety
    ///
    /// `kernel` (its module) must stay loaded for as long as the graph and every executable
    /// graph made from it live.
    unsafe fn add_kernel_with<A: KernelArgs>(
        &mut self,
        name: &str,
        deps: Deps<'_>,
        kernel: &Kernel,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<KernelNode<A>> {
        let f = kernel.cuda_function().cu_function();
        let info = driver::in_context(self.ctx.cu_ctx(), || kernel.info())
            .map_err(|e| Error::call(e, Some(name)))?;
        check_signature(&info.sizes, A::LAYOUT, name)?;
        let (max_threads, max_dynamic_smem) = (info.max_threads, info.max_dynamic_smem);
        let mut k = KernelShadow::new(
            f,
            cfg,
            ArgBlock::new(&A::OFFSETS),
            max_threads,
            max_dynamic_smem,
        );
        k.check(&cfg, &self.limits)
            .map_err(|reason| Error::InvalidLaunch {
                node: name.to_owned(),
                reason,
            })?;
        args.write(&self.bindings, &mut k.args)?;
        // The shadow moves into the graph below; the driver call reads a copy that stays here.
        let sent = k.args.clone();
        let mut ptrs = ArgPtrs::new();
        let p = k.params(&k.cfg, &sent, &mut ptrs);
        let id = self.add_node(name, NodeKind::Kernel, deps, Shadow::Kernel(k), |g, d| {
            // SAFETY: `p` points at `sent` and `ptrs`, alive and unmoved in this frame; the
            // function stays loaded (the caller's promise).
            unsafe { driver::add_kernel(g, d, &p) }
        })?;
        Ok(KernelNode::new(id))
    }

    /// Adds a memset writing `value` to every element of `dst`.
    pub fn add_memset<T: MemsetValue>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: BufMut<T>,
        value: T,
    ) -> Result<MemsetNode<T>> {
        let b = self.bindings.get(dst.graph, dst.index)?;
        if b.len == 0 {
            return Err(Error::EmptyBuffer {
                node: name.to_owned(),
                role: "destination",
            });
        }
        let m = MemsetShadow {
            dst: b.addr,
            bits: value.bits(),
            elem: T::SIZE,
            len: b.len,
            enabled: true,
        };
        let ctx = self.ctx.cu_ctx();
        let id = self.add_node(
            name,
            NodeKind::Memset,
            Deps::Handles(deps),
            Shadow::Memset(m),
            |g, d| {
                // SAFETY: `dst` is a bound buffer of this context holding `len` elements.
                unsafe { driver::add_memset(g, d, &m.params(), ctx) }
            },
        )?;
        Ok(MemsetNode::new(id))
    }

    /// Adds a 1-D copy of every element of `src` into `dst`, which must be at least as long.
    pub fn add_memcpy<T, D: MemcpyDst<T>, S: MemcpySrc<T>>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        dst: D,
        src: S,
    ) -> Result<MemcpyNode<T, D::Loc, S::Loc>> {
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
    ) -> Result<MemcpyNode<T, D::Loc, S::Loc>> {
        let end = |(g, i): (GraphId, u32), role, host| -> Result<Endpoint> {
            let b = self.bindings.get(g, i)?;
            if b.len == 0 || len == 0 {
                return Err(Error::EmptyBuffer {
                    node: name.to_owned(),
                    role,
                });
            }
            if b.len < len {
                return Err(Error::BufferTooShort {
                    node: name.to_owned(),
                    role,
                    len: b.len,
                    needed: len,
                });
            }
            Ok(Endpoint { host, addr: b.addr })
        };
        let m = MemcpyShadow {
            src: end(src.binding(), "source", <S::Loc as Location>::HOST)?,
            dst: end(dst.binding(), "destination", <D::Loc as Location>::HOST)?,
            bytes: len * std::mem::size_of::<T>(),
            enabled: true,
        };
        if m.bytes == 0 {
            return Err(Error::Invalid(format!(
                "node `{name}`: memcpy of a zero-sized element type"
            )));
        }
        let ctx = self.ctx.cu_ctx();
        let id = self.add_node(
            name,
            NodeKind::Memcpy,
            Deps::Handles(deps),
            Shadow::Memcpy(m),
            |g, d| {
                // SAFETY: both ends are bound buffers holding at least `bytes` bytes.
                unsafe { driver::add_memcpy(g, d, &m.params(), ctx) }
            },
        )?;
        Ok(MemcpyNode::new(id))
    }

    /// Adds a host callback. The closure runs on a driver thread; it must not call CUDA. A
    /// panic inside it is caught and reported by the next launch or synchronize.
    pub fn add_host<F: Fn() + Send + Sync + 'a>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        f: F,
    ) -> Result<HostNode> {
        let slot = Arc::new(HostSlot::new(Box::new(f), name, self.panics.clone()));
        let p = slot.params();
        let id = self.add_node(
            name,
            NodeKind::Host,
            Deps::Handles(deps),
            Shadow::Host(HostShadow { slot }),
            |g, d| {
                // SAFETY: the slot lives in the shadow's `Arc` for as long as the node may run.
                unsafe { driver::add_host(g, d, &p) }
            },
        )?;
        Ok(HostNode::new(id))
    }

    /// Adds a child graph node running a copy of `child`. This graph takes the child (its
    /// buffers and callbacks are used by the copy). Make it with
    /// [`child_graph`](Self::child_graph) to share this graph's buffers.
    pub fn add_child(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        child: Graph<'a>,
    ) -> Result<ChildNode> {
        self.check_ctx(&child.ctx, "the child graph")?;
        let raw = child.raw.0;
        let index = self.children.len() as u32;
        let shadow = Shadow::Child(ChildShadow {
            child: index,
            embedded: index,
            raw,
        });
        let id = self.add_node(
            name,
            NodeKind::Child,
            Deps::Handles(deps),
            shadow,
            |g, d| {
                // SAFETY: `raw` is the live child graph; the driver clones it.
                unsafe { driver::add_child(g, d, raw) }
            },
        )?;
        self.children.push(child);
        Ok(ChildNode::new(id))
    }

    /// Adds a node recording `event`.
    pub fn add_event_record(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        event: &'a CudaEvent,
    ) -> Result<EventRecordNode> {
        self.check_ctx(event.context(), "the event")?;
        let ev = event.cu_event();
        let shadow = Shadow::EventRecord(EventShadow { event: ev });
        let id = self.add_node(
            name,
            NodeKind::EventRecord,
            Deps::Handles(deps),
            shadow,
            |g, d| {
                // SAFETY: the event is borrowed for `'a`.
                unsafe { driver::add_event_record(g, d, ev) }
            },
        )?;
        Ok(EventRecordNode::new(id))
    }

    /// Adds a node waiting for `event`.
    pub fn add_event_wait(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        event: &'a CudaEvent,
    ) -> Result<EventWaitNode> {
        self.check_ctx(event.context(), "the event")?;
        let ev = event.cu_event();
        let shadow = Shadow::EventWait(EventShadow { event: ev });
        let id = self.add_node(
            name,
            NodeKind::EventWait,
            Deps::Handles(deps),
            shadow,
            |g, d| {
                // SAFETY: the event is borrowed for `'a`.
                unsafe { driver::add_event_wait(g, d, ev) }
            },
        )?;
        Ok(EventWaitNode::new(id))
    }
}

/// Checks argument count and sizes against the kernel's parameters.
fn check_signature(sizes: &[usize], layout: &[ArgLayout], node: &str) -> Result<()> {
    let count = sizes.len();
    if count != layout.len() {
        return Err(Error::KernelSignature {
            node: node.to_owned(),
            reason: format!(
                "the kernel takes {count} parameter{} but {} argument{} given",
                if count == 1 { "" } else { "s" },
                layout.len(),
                if layout.len() == 1 { " was" } else { "s were" }
            ),
        });
    }
    for (i, (a, &size)) in layout.iter().zip(sizes).enumerate() {
        if size != a.size {
            return Err(Error::KernelSignature {
                node: node.to_owned(),
                reason: format!(
                    "argument {i} is {} bytes but the kernel's parameter {i} is {size} bytes",
                    a.size
                ),
            });
        }
    }
    Ok(())
}
