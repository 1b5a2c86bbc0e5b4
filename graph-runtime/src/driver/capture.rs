//! Stream capture into a graph of our own: work issued on a stream (by a library such as
//! cuBLAS) becomes a driver graph, which a parent graph runs as a child node.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUgraph};
use cudarc::driver::{CudaContext, CudaStream};

use super::graph::RawGraph;
use super::{check, make_current, CallResult};
use cuda_graph_topology::Topology;

/// Runs `f` while `stream` is captured (thread-local mode: other threads' CUDA calls are not
/// affected), and returns the graph of the work it issued with what `f` returned. The capture
/// ends even if `f` panics (the panic then goes on).
pub(crate) fn capture<'a, R>(
    ctx: &Arc<CudaContext>,
    stream: &CudaStream,
    f: impl FnOnce() -> R,
) -> CallResult<(RawGraph<'a>, R)> {
    make_current(ctx.cu_ctx())?;
    let s = stream.cu_stream();
    let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    // SAFETY: `s` is a live stream of the current context.
    check("cuStreamBeginCapture_v2", unsafe {
        sys::cuStreamBeginCapture_v2(s, mode)
    })?;
    let r = catch_unwind(AssertUnwindSafe(f));
    let mut g: CUgraph = ptr::null_mut();
    // SAFETY: the stream is capturing (begun above); `g` is a valid out-pointer.
    let ended = check("cuStreamEndCapture", unsafe {
        sys::cuStreamEndCapture(s, &mut g)
    });
    let r = match r {
        Ok(r) => r,
        Err(panic) => {
            if !g.is_null() {
                drop(RawGraph::from_raw(ctx, g));
            }
            resume_unwind(panic)
        }
    };
    ended?;
    Ok((RawGraph::from_raw(ctx, g), r))
}

impl RawGraph<'_> {
    /// The kinds of the graph's nodes and its edges (by position in the driver's node list),
    /// as a topology with names `prefix#i`.
    pub fn describe(&self, prefix: &str) -> CallResult<Topology> {
        let g = self.raw();
        let mut n = 0usize;
        // SAFETY: a null array asks for the count.
        check("cuGraphGetNodes", unsafe {
            sys::cuGraphGetNodes(g, ptr::null_mut(), &mut n)
        })?;
        let mut nodes = vec![ptr::null_mut(); n];
        if n > 0 {
            // SAFETY: `nodes` holds `n` entries.
            check("cuGraphGetNodes", unsafe {
                sys::cuGraphGetNodes(g, nodes.as_mut_ptr(), &mut n)
            })?;
        }
        let mut t = Topology::new();
        for (i, &node) in nodes.iter().enumerate() {
            let mut ty = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
            // SAFETY: `node` is a node of this graph.
            check("cuGraphNodeGetType", unsafe {
                sys::cuGraphNodeGetType(node, &mut ty)
            })?;
            let kind = super::nodes::node_kind(ty);
            t.add_node(&format!("{prefix}#{i}"), kind)
                .expect("names are distinct");
        }
        let mut e = 0usize;
        // SAFETY: null arrays ask for the count. (The `_v2` form: the plain symbol changed its
        // parameters in CUDA 13.)
        check("cuGraphGetEdges_v2", unsafe {
            sys::cuGraphGetEdges_v2(g, ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), &mut e)
        })?;
        let (mut from, mut to) = (vec![ptr::null_mut(); e], vec![ptr::null_mut(); e]);
        if e > 0 {
            // SAFETY: both arrays hold `e` entries; no edge data is asked for.
            check("cuGraphGetEdges_v2", unsafe {
                sys::cuGraphGetEdges_v2(
                    g,
                    from.as_mut_ptr(),
                    to.as_mut_ptr(),
                    ptr::null_mut(),
                    &mut e,
                )
            })?;
        }
        let pos = |x| {
            nodes
                .iter()
                .position(|&m| m == x)
                .expect("a node of this graph") as u32
        };
        for (&a, &b) in from.iter().zip(&to) {
            // The driver's graph is acyclic and has no repeated edge.
            let _ = t.add_edge(pos(a), pos(b));
        }
        Ok(t)
    }
}
