//! A driver graph (the template), owned, and its nodes.

use std::ffi::CStr;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUgraph, CUgraphNode};
use cudarc::driver::{CudaContext, CudaFunction};

use super::make_current;
use super::params::{Launchable, Mismatch};
use super::{check, in_context, CallResult, KeepAlive};
use crate::block::{ArgLayout, ArgOffsets};

/// Which conditional node: IF (one body, or two: then and else), WHILE, SWITCH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CondKind {
    If,
    While,
    Switch,
}

/// A node of a [`RawGraph`]. Used only with the graph that made it and the executable graphs
/// made from that graph (the layers above keep them together).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct RawNode(pub(super) CUgraphNode);

impl RawNode {
    /// No node: fills arrays of nodes before they are written.
    pub const NULL: RawNode = RawNode(ptr::null_mut());

    /// The driver's handle.
    #[inline]
    pub(crate) fn handle(self) -> CUgraphNode {
        self.0
    }
}

// SAFETY: a node handle is an identifier the driver lets any thread use; it is only passed to
// calls on its own graph, which `&mut RawGraph` serializes.
unsafe impl Send for RawNode {}
// SAFETY: as above.
unsafe impl Sync for RawNode {}

/// A driver graph, destroyed on drop. Everything its nodes point at lives for `'a` (host memory,
/// events), or is kept here ([`KeepAlive`]: functions, host closures).
pub(crate) struct RawGraph<'a> {
    raw: CUgraph,
    pub(super) ctx: Arc<CudaContext>,
    pub(super) kept: KeepAlive<'a>,
    /// The body graphs of conditional nodes (scope `k` is `bodies[k - 1]`), owned by their
    /// nodes (the driver destroys them with the graph).
    bodies: Vec<CUgraph>,
    /// The scope nodes are added to: 0 for this graph, or a body.
    scope: u32,
}

// SAFETY: the graph handle is an identifier the driver lets any thread use; calls that change
// the graph take `&mut self`, calls through `&self` only read it (DOT, cloning into a parent,
// instantiation). `KeepAlive` is `Send + Sync`.
unsafe impl Send for RawGraph<'_> {}
// SAFETY: as above.
unsafe impl Sync for RawGraph<'_> {}

impl<'a> RawGraph<'a> {
    /// An empty graph in `ctx`.
    pub fn new(ctx: &Arc<CudaContext>) -> CallResult<Self> {
        make_current(ctx.cu_ctx())?;
        let mut raw = ptr::null_mut();
        // SAFETY: the context is current; `raw` is a valid out-pointer.
        check("cuGraphCreate", unsafe { sys::cuGraphCreate(&mut raw, 0) })?;
        Ok(RawGraph {
            raw,
            ctx: ctx.clone(),
            kept: KeepAlive::default(),
            bodies: Vec::new(),
            scope: 0,
        })
    }

    /// Takes ownership of driver graph `raw` (made by stream capture) of context `ctx`.
    pub(super) fn from_raw(ctx: &Arc<CudaContext>, raw: CUgraph) -> Self {
        RawGraph {
            raw,
            ctx: ctx.clone(),
            kept: KeepAlive::default(),
            bodies: Vec::new(),
            scope: 0,
        }
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Makes the next nodes go into scope `s` (0: this graph; `k`: the `k`-th body made by
    /// [`add_conditional`](Self::add_conditional)).
    pub fn enter(&mut self, s: u32) {
        assert!(s as usize <= self.bodies.len(), "no such body");
        self.scope = s;
    }

    /// Number of conditional bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// The scope nodes are added to.
    #[inline]
    pub fn scope(&self) -> u32 {
        self.scope
    }

    /// The driver graph of scope `s`.
    #[inline]
    fn graph_of(&self, s: u32) -> CUgraph {
        match s {
            0 => self.raw,
            k => self.bodies[k as usize - 1],
        }
    }

    /// The driver graph nodes are added to.
    #[inline]
    pub(super) fn target(&self) -> CUgraph {
        self.graph_of(self.scope)
    }

    /// Makes a condition handle for a conditional node of the current scope, set to `default`
    /// at every launch.
    pub fn create_condition(&mut self, default: u32) -> CallResult<u64> {
        let (g, ctx) = (self.target(), self.ctx.cu_ctx());
        in_context(ctx, || {
            let mut h = 0;
            // SAFETY: the graph is live and `h` a valid out-pointer.
            check("cuGraphConditionalHandleCreate", unsafe {
                sys::cuGraphConditionalHandleCreate(
                    &mut h,
                    g,
                    ctx,
                    default,
                    sys::CU_GRAPH_COND_ASSIGN_DEFAULT,
                )
            })?;
            Ok(h)
        })
    }

    /// Adds a conditional node of `kind` with `size` bodies, run on `handle`'s value. Its body
    /// graphs become the next scopes (`body_count() + 1` and on).
    pub fn add_conditional(
        &mut self,
        deps: &[RawNode],
        handle: u64,
        kind: CondKind,
        size: u32,
    ) -> CallResult<RawNode> {
        let (g, d, ctx) = (self.target(), nodes(deps), self.ctx.cu_ctx());
        let ty = match kind {
            CondKind::If => sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_IF,
            CondKind::While => sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_WHILE,
            CondKind::Switch => sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_SWITCH,
        };
        let (n, bodies) = in_context(ctx, || {
            // SAFETY: an all-zero `CUgraphNodeParams` is valid (reserved fields must be zero).
            let mut p: sys::CUgraphNodeParams = unsafe { std::mem::zeroed() };
            p.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
            p.__bindgen_anon_1.conditional = sys::CUDA_CONDITIONAL_NODE_PARAMS {
                handle,
                type_: ty,
                size,
                phGraph_out: ptr::null_mut(),
                ctx,
            };
            let mut n = ptr::null_mut();
            // SAFETY: as in `add_empty`; `p` holds a conditional node's parameters, which the
            // driver reads, filling in `phGraph_out`.
            check("cuGraphAddNode_v2", unsafe {
                sys::cuGraphAddNode_v2(&mut n, g, d, ptr::null(), deps.len(), &mut p)
            })?;
            // SAFETY: the driver wrote the `conditional` member.
            Ok((RawNode(n), unsafe {
                p.__bindgen_anon_1.conditional.phGraph_out
            }))
        })?;
        // SAFETY: on success the driver points `phGraph_out` at `size` body graphs, valid for
        // the node's life (which is this graph's).
        let made = unsafe { std::slice::from_raw_parts(bodies, size as usize) };
        self.bodies.extend_from_slice(made);
        Ok(n)
    }

    pub(super) fn kept(&self) -> &KeepAlive<'a> {
        &self.kept
    }

    /// Makes `f` callable from this graph's nodes: keeps a copy (one per function), and checks
    /// an argument layout against its parameter sizes (whose offsets are `param_offsets`, where
    /// the driver said).
    #[inline]
    pub fn launchable(
        &mut self,
        f: &CudaFunction,
        sizes: &[usize],
        param_offsets: Option<&[usize]>,
        layout: &[ArgLayout],
        offsets: &'static ArgOffsets,
    ) -> Result<Launchable, Mismatch> {
        let l = Launchable::new(f.cu_function(), sizes, param_offsets, layout, offsets)?;
        self.kept.function(f);
        Ok(l)
    }

    /// Runs a driver call that adds a node, with this graph's context current.
    #[inline(always)]
    pub(super) fn add(
        &self,
        call: &'static str,
        add: impl Fn(*mut CUgraphNode) -> sys::CUresult,
    ) -> CallResult<RawNode> {
        in_context(self.ctx.cu_ctx(), || {
            let mut n = ptr::null_mut();
            check(call, add(&mut n))?;
            Ok(RawNode(n))
        })
    }

    /// Adds the edge `from -> to` between nodes of scope `s`.
    pub fn add_edge(&mut self, s: u32, from: RawNode, to: RawNode) -> CallResult<()> {
        let g = self.graph_of(s);
        // SAFETY: both are nodes of this live graph; the one-element arrays live on the stack.
        in_context(self.ctx.cu_ctx(), || {
            check("cuGraphAddDependencies", unsafe {
                sys::cuGraphAddDependencies(g, &from.0, &to.0, 1)
            })
        })
    }

    /// Adds the edges `from[i] -> to[i]` (nodes of scope 0) with one driver call.
    pub fn add_edges(&mut self, from: &[RawNode], to: &[RawNode]) -> CallResult<()> {
        assert_eq!(from.len(), to.len(), "one target per source");
        let (g, f, t) = (self.raw, nodes(from), nodes(to));
        // SAFETY: all are nodes of this live graph; both arrays hold `from.len()` nodes and
        // outlive the call.
        in_context(self.ctx.cu_ctx(), || {
            check("cuGraphAddDependencies", unsafe {
                sys::cuGraphAddDependencies(g, f, t, from.len())
            })
        })
    }

    /// Removes the edges `from[i] -> to[i]` (of scope 0; they exist) with one driver call.
    pub fn remove_edges(&mut self, from: &[RawNode], to: &[RawNode]) -> CallResult<()> {
        assert_eq!(from.len(), to.len(), "one target per source");
        let (g, f, t) = (self.raw, nodes(from), nodes(to));
        // SAFETY: as in `add_edges`.
        in_context(self.ctx.cu_ctx(), || {
            check("cuGraphRemoveDependencies", unsafe {
                sys::cuGraphRemoveDependencies(g, f, t, from.len())
            })
        })
    }

    /// Adds the programmatic edge `from -> to` (two kernel nodes of scope `s`) through `port`;
    /// a plain edge between them (`plain`) is replaced.
    pub fn add_programmatic_edge(
        &mut self,
        s: u32,
        from: RawNode,
        to: RawNode,
        port: cuda_graph_topology::Port,
        plain: bool,
    ) -> CallResult<()> {
        let g = self.graph_of(s);
        let data = edge_data(port);
        in_context(self.ctx.cu_ctx(), || {
            if plain {
                // SAFETY: both are nodes of this live graph joined by a plain edge.
                check("cuGraphRemoveDependencies", unsafe {
                    sys::cuGraphRemoveDependencies(g, &from.0, &to.0, 1)
                })?;
            }
            // SAFETY: both are nodes of this live graph; the one-element arrays and the edge
            // data live on the stack for the call.
            let added = check("cuGraphAddDependencies_v2", unsafe {
                sys::cuGraphAddDependencies_v2(g, &from.0, &to.0, &data, 1)
            });
            if added.is_err() && plain {
                // Put the plain edge back: the graph stays as it was.
                // SAFETY: as above.
                let _ = unsafe { sys::cuGraphAddDependencies(g, &from.0, &to.0, 1) };
            }
            added
        })
    }

    /// Removes the programmatic edge `from -> to` (of scope `s`, through `port`).
    pub fn remove_programmatic_edge(
        &mut self,
        s: u32,
        from: RawNode,
        to: RawNode,
        port: cuda_graph_topology::Port,
    ) -> CallResult<()> {
        let g = self.graph_of(s);
        let data = edge_data(port);
        // SAFETY: as in `add_programmatic_edge`.
        in_context(self.ctx.cu_ctx(), || {
            check("cuGraphRemoveDependencies_v2", unsafe {
                sys::cuGraphRemoveDependencies_v2(g, &from.0, &to.0, &data, 1)
            })
        })
    }

    /// Removes the edge `from -> to` between nodes of scope `s`.
    pub fn remove_edge(&mut self, s: u32, from: RawNode, to: RawNode) -> CallResult<()> {
        let g = self.graph_of(s);
        // SAFETY: as in `add_edge`.
        in_context(self.ctx.cu_ctx(), || {
            check("cuGraphRemoveDependencies", unsafe {
                sys::cuGraphRemoveDependencies(g, &from.0, &to.0, 1)
            })
        })
    }

    pub(super) fn set(
        &self,
        call: &'static str,
        set: impl Fn() -> sys::CUresult,
    ) -> CallResult<()> {
        in_context(self.ctx.cu_ctx(), || check(call, set()))
    }

    /// Writes the driver's DOT description of the graph to `path`.
    pub fn debug_dot_print(&self, path: &CStr, verbose: bool) -> CallResult<()> {
        let flags = if verbose {
            sys::CUgraphDebugDot_flags::CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE as u32
        } else {
            0
        };
        let g = self.raw;
        // SAFETY: the graph is live; `path` is NUL-terminated and outlives the call.
        self.set("cuGraphDebugDotPrint", || unsafe {
            sys::cuGraphDebugDotPrint(g, path.as_ptr(), flags)
        })
    }

    pub(crate) fn raw(&self) -> CUgraph {
        self.raw
    }
}

impl Drop for RawGraph<'_> {
    fn drop(&mut self) {
        // SAFETY: the graph is live and dropped once; executable graphs made from it do not
        // need it (the driver copies what it needs at instantiation).
        let r = check("cuGraphDestroy", unsafe { sys::cuGraphDestroy(self.raw) });
        self.ctx.record_err(r.map_err(|e| e.code));
    }
}

/// The driver handles of `deps`, or null for none.
/// The edge data of a programmatic edge through `port`.
fn edge_data(port: cuda_graph_topology::Port) -> sys::CUgraphEdgeData {
    let from_port = match port {
        cuda_graph_topology::Port::Programmatic => sys::CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC,
        cuda_graph_topology::Port::LaunchOrder => sys::CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER,
    } as u8;
    sys::CUgraphEdgeData {
        from_port,
        to_port: 0,
        type_: sys::CUgraphDependencyType::CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC as u8,
        reserved: [0; 5],
    }
}

pub(super) fn nodes(deps: &[RawNode]) -> *const CUgraphNode {
    // `RawNode` is `repr(transparent)` over `CUgraphNode`: the slice is the array the driver
    // reads.
    deps.as_ptr() as *const CUgraphNode
}
