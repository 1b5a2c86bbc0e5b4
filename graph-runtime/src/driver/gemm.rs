//! A cuBLAS GEMM issued on a stream (feature `cublas`): its one `unsafe` call, made only after
//! the buffers were checked to hold what the configuration reads and writes.

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{DevicePtr, DevicePtrMut};

/// A GEMM configuration and the elements each of its operands needs (`a`, `b`, `c`).
pub(crate) struct CheckedGemm<T> {
    cfg: GemmConfig<T>,
    needs: [usize; 3],
}

impl<T: Copy> CheckedGemm<T> {
    /// `cfg`, with the elements each operand must hold: `ld * columns` (column-major).
    pub fn new(cfg: GemmConfig<T>) -> Self {
        let cols = |op: cublasOperation_t, n: i32, t: i32| {
            if op == cublasOperation_t::CUBLAS_OP_N {
                n
            } else {
                t
            }
        };
        let need = |ld: i32, cols: i32| (ld.max(0) as usize) * (cols.max(0) as usize);
        let needs = [
            need(cfg.lda, cols(cfg.transa, cfg.k, cfg.m)),
            need(cfg.ldb, cols(cfg.transb, cfg.n, cfg.k)),
            need(cfg.ldc, cfg.n),
        ];
        CheckedGemm { cfg, needs }
    }

    /// Elements operand `i` (0: `a`, 1: `b`, 2: `c`) must hold.
    pub fn needs(&self, i: usize) -> usize {
        self.needs[i]
    }

    /// Issues `c = alpha op(a) op(b) + beta c` on `blas`'s stream, or says which operand is too
    /// short (its index, length and the elements needed) without issuing anything.
    pub fn issue<A, B, C>(
        &self,
        blas: &CudaBlas,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<Result<(), cudarc::cublas::result::CublasError>, (usize, usize, usize)>
    where
        CudaBlas: Gemm<T>,
        A: DevicePtr<T>,
        B: DevicePtr<T>,
        C: DevicePtrMut<T>,
    {
        for (i, len) in [a.len(), b.len(), c.len()].into_iter().enumerate() {
            if len < self.needs[i] {
                return Err((i, len, self.needs[i]));
            }
        }
        // SAFETY: each operand holds at least the elements `cfg` reads or writes (checked
        // above), on the stream `blas` issues on.
        Ok(unsafe { blas.gemm(self.cfg, a, b, c) })
    }
}
