//! A cuBLAS GEMM as a captured node (feature `cublas`).

use std::sync::Arc;

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::CudaStream;

use super::Graph;
use crate::bind::{BufMut, DeviceBuf};
use crate::driver::CheckedGemm;
use crate::error::{BuildError, Role};
use crate::id::Dep;
use crate::kinds::captured::CapturedNode;

impl<'a> Graph<'a> {
    /// Adds `c = alpha op(a) op(b) + beta c` (cuBLAS, column-major, as `cfg` says) as a
    /// captured node. `blas` must be bound to `stream` (`CudaBlas::new(stream.clone())`), a
    /// stream made with `ctx.new_stream()`. The buffers are checked against `cfg`'s sizes
    /// first; the node's view re-captures it.
    #[allow(clippy::too_many_arguments)]
    pub fn add_gemm<T>(
        &mut self,
        name: &str,
        deps: &[&dyn Dep],
        blas: &'a CudaBlas,
        stream: &Arc<CudaStream>,
        cfg: GemmConfig<T>,
        a: impl DeviceBuf<T> + Send + Sync + 'a,
        b: impl DeviceBuf<T> + Send + Sync + 'a,
        c: BufMut<T>,
    ) -> Result<CapturedNode, BuildError>
    where
        T: Copy + Send + Sync + 'a,
        CudaBlas: Gemm<T>,
    {
        let gemm = CheckedGemm::new(cfg);
        let roles = [Role::Source, Role::Source, Role::Destination];
        for (i, id) in [a.id(), b.id(), c.id()].into_iter().enumerate() {
            let len = self.bindings.get(id.graph, id.index)?.len;
            if len < gemm.needs(i) {
                return Err(BuildError::BufferTooShort {
                    node: name.to_owned(),
                    role: roles[i],
                    len,
                    needed: gemm.needs(i),
                });
            }
        }
        let (ra, rb) = (a.id(), b.id());
        let node = name.to_owned();
        self.add_captured(name, deps, stream, &[ra, rb], &[c.id()], move |cx| {
            let (a, b, mut c) = (cx.read(a)?, cx.read(b)?, cx.write(c)?);
            // Checked again here: a recapture may run after a buffer was swapped.
            match gemm.issue(blas, &a, &b, &mut c) {
                Ok(done) => Ok(done?),
                Err((i, len, needed)) => Err(format!(
                    "node `{node}`: the {} buffer holds {len} elements but the GEMM needs {needed}",
                    roles[i]
                )
                .into()),
            }
        })
    }
}
