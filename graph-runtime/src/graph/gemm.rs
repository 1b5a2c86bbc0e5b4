//! A cuBLAS GEMM as a captured node (feature `cublas`).

use std::sync::Arc;

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::CudaStream;

use super::Graph;
use crate::bind::{BufMut, DeviceBuf};
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
        let cols = |op: cublasOperation_t, n: i32, t: i32| {
            if op == cublasOperation_t::CUBLAS_OP_N {
                n
            } else {
                t
            }
        };
        let need = [
            (
                a.id(),
                cfg.lda,
                cols(cfg.transa, cfg.k, cfg.m),
                Role::Source,
            ),
            (
                b.id(),
                cfg.ldb,
                cols(cfg.transb, cfg.n, cfg.k),
                Role::Source,
            ),
            (c.id(), cfg.ldc, cfg.n, Role::Destination),
        ];
        for (id, ld, cols, role) in need {
            let len = self.bindings.get(id.graph, id.index)?.len;
            let needed = (ld.max(0) as usize) * (cols.max(0) as usize);
            if len < needed {
                return Err(BuildError::BufferTooShort {
                    node: name.to_owned(),
                    role,
                    len,
                    needed,
                });
            }
        }
        let (ra, rb) = (a.id(), b.id());
        self.add_captured(name, deps, stream, &[ra, rb], &[c.id()], move |cx| {
            let (a, b, mut c) = (cx.read(a)?, cx.read(b)?, cx.write(c)?);
            // SAFETY: the three buffers hold what `cfg` reads and writes (checked above), and
            // `blas` issues the GEMM on the stream being captured.
            unsafe { blas.gemm(cfg, &a, &b, &mut c) }?;
            Ok(())
        })
    }
}
