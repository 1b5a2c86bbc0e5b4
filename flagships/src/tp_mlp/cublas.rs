//! The cuBLAS side of [`TpMlp`](super::TpMlp): the two SGEMMs of a rank's shard, as closures
//! for the graph's `work` inputs, and the handle's preparation for capture.

use std::sync::Arc;

use cuda_graph::capture::{Capture, Region, RegionMut, WorkResult};
use cuda_graph::cudarc::cublas::sys::cublasOperation_t;
use cuda_graph::cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cuda_graph::cudarc::driver::{CudaSlice, CudaStream, DeviceSlice};

use super::HIDDEN;

/// `h (S x batch, column-major) = W1_r x`.
pub fn up_cfg(batch: u32, shard: u32) -> GemmConfig<f32> {
    GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_T,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: shard as i32,
        n: batch as i32,
        k: HIDDEN as i32,
        alpha: 1.0,
        lda: HIDDEN as i32,
        ldb: HIDDEN as i32,
        beta: 0.0,
        ldc: shard as i32,
    }
}

/// `y (HIDDEN x batch, column-major) = W2_r h`: this rank's partial output.
pub fn down_cfg(batch: u32, shard: u32) -> GemmConfig<f32> {
    GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_T,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: HIDDEN as i32,
        n: batch as i32,
        k: shard as i32,
        alpha: 1.0,
        lda: shard as i32,
        ldb: shard as i32,
        beta: 0.0,
        ldc: HIDDEN as i32,
    }
}

/// A GEMM of the block as a closure for a `work` input: reads `(input, weight)`, writes the
/// output.
pub type GemmWork<'b> = Box<
    dyn Fn(&Capture<'_, '_>, (Region<f32>, Region<f32>), (RegionMut<f32>,)) -> WorkResult
        + Send
        + Sync
        + 'b,
>;

/// The GEMM of `cfg` on `blas` (bound to the capture stream).
pub fn gemm<'b>(blas: &'b CudaBlas, cfg: GemmConfig<f32>) -> GemmWork<'b> {
    Box::new(move |_cx, (a, w), (mut out,)| {
        let (m, n, k) = (cfg.m as usize, cfg.n as usize, cfg.k as usize);
        for (what, len, need) in [
            ("weight", w.len(), m * k),
            ("input", a.len(), k * n),
            ("output", out.len(), m * n),
        ] {
            if len < need {
                return Err(format!(
                    "the {what} holds {len} elements but this rank's GEMM ({m} x {k} times {k} x {n}) needs {need}; was the shard made for another world size?"
                )
                .into());
            }
        }
        // SAFETY: checked above: the buffers hold what the GEMM reads and writes.
        unsafe { blas.gemm(cfg, &w, &a, &mut out) }?;
        Ok(())
    })
}

/// Prepares `blas` (bound to `stream`) for capture: its workspace
/// ([`mlp::set_workspace`](crate::mlp::set_workspace)) and one GEMM outside capture. Keep the
/// returned workspace as long as `blas`.
#[must_use = "the workspace must live as long as the cuBLAS handle"]
pub fn warm_up(stream: &Arc<CudaStream>, blas: &CudaBlas) -> CudaSlice<u8> {
    let ws = crate::mlp::set_workspace(stream, blas);
    let w = stream
        .alloc_zeros::<f32>(HIDDEN as usize * 16)
        .expect("alloc");
    let x = stream.alloc_zeros::<f32>(HIDDEN as usize).expect("alloc");
    let mut h = stream.alloc_zeros::<f32>(16).expect("alloc");
    // SAFETY: batch 1 over a shard of 16 rows: the buffers hold what it reads and writes.
    unsafe { blas.gemm(up_cfg(1, 16), &w, &x, &mut h) }.expect("warm-up gemm");
    stream.synchronize().expect("sync");
    ws
}
