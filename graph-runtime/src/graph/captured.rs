//! Captured nodes: work a closure issues on a stream, captured into the graph when the node is
//! made.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::add::Deps;
use super::Graph;
use crate::bind::BufferId;
use crate::capture::Capture;
use crate::capture::Work;
use crate::error::BuildError;
use crate::id::Dep;
use crate::kinds::captured::{capture, CaptureFailure, CapturedNode, CapturedShadow, Stored};
use crate::kinds::child::ChildShadow;
use crate::kinds::ChildGraph;

impl<'a> Graph<'a> {
    /// Adds a node running the work `f` issues on `stream` (a cuBLAS GEMM, say, through a
    /// handle bound to that stream), captured now. `f` reaches the graph's buffers through
    /// [`Capture::read`] and [`Capture::write`], which give only those declared in `reads`
    /// and `writes`. The closure is kept: [`CapturedMut::recapture`](crate::node::CapturedMut::recapture)
    /// runs it again and updates the node in place.
    ///
    /// `stream` must be one of this graph's context made with `ctx.new_stream()` (the legacy
    /// default stream cannot be captured); nothing else may use it while `f` runs.
    pub fn add_captured<F>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        stream: &Arc<CudaStream>,
        reads: &[BufferId],
        writes: &[BufferId],
        f: F,
    ) -> Result<CapturedNode, BuildError>
    where
        F: FnMut(&Capture<'_, '_>) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
            + Send
            + Sync
            + 'a,
    {
        let why = if stream.context().cu_ctx() != self.ctx.cu_ctx() {
            Some("the stream belongs to another CUDA context")
        } else if stream.cu_stream().is_null() {
            Some("the legacy default stream cannot be captured")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(BuildError::CaptureStream {
                node: name.to_owned(),
                why,
            });
        }
        for id in reads.iter().chain(writes) {
            self.bindings.get(id.graph, id.index)?;
        }
        let mut work = Stored {
            f: Box::new(f),
            stream: stream.clone(),
            reads: reads.to_vec(),
            writes: writes.to_vec(),
        };
        let made = match capture(&self.ctx, &mut work, &self.bindings, name) {
            Ok(m) => m,
            Err(CaptureFailure::Driver(e)) => return Err(e.into()),
            Err(CaptureFailure::Work(e)) => return Err(BuildError::Capture(e)),
        };
        let child = self.children.push(ChildGraph(Box::new(made)));
        self.children.works.push(work);
        let shadow = CapturedShadow {
            run: ChildShadow {
                child,
                embedded: child,
                edited: false,
            },
            work: self.children.works.len() as u32 - 1,
        };
        match self.add_node(name, Deps::Handles(deps), shadow) {
            Ok(at) => Ok(CapturedNode::new(at)),
            Err(e) => {
                // Left as it was.
                self.children.list.pop();
                self.children.works.pop();
                Err(e)
            }
        }
    }
}

impl<'a> Graph<'a> {
    /// Adds a captured node running `work` (what `cuda_graph!`'s `capture(...)` nodes use):
    /// its closure gets the regions of `reads` and `writes`, in order, as tuples.
    #[doc(hidden)]
    pub fn add_work<R: 'a, W: 'a>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        work: Work<'a, R, W>,
        reads: &[BufferId],
        writes: &[BufferId],
        regions: impl Fn(&Capture<'_, '_>) -> Result<(R, W), crate::error::CaptureError>
            + Send
            + Sync
            + 'a,
    ) -> Result<CapturedNode, BuildError> {
        let f = work.f;
        self.add_captured(name, deps, &work.stream, reads, writes, move |cx| {
            let (r, w) = regions(cx)?;
            f(cx, r, w)
        })
    }
}
