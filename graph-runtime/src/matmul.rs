//! Matrix products through cuBLASLt (feature `cublaslt`), with the bias and ReLU fused into
//! the product's epilogue: one kernel where cuBLAS needs a GEMM and an elementwise kernel.
//!
//! A [`Matmul`] is planned once (descriptors, and the algorithm: cuBLASLt's first choice, or
//! the fastest of its proposals timed on the device with [`Matmul::tuned`]), then issued as
//! often as needed, typically inside captured work (`capture(...)` in `cuda_graph!`,
//! [`Graph::add_captured`](crate::Graph::add_captured)). Issuing checks every operand's length
//! against the shape first. The workspace is an operand like the others: give it a buffer the
//! node declares it writes, so the race check sees two unordered products that share one.
//!
//! Products are `f32` with `f32` accumulation (never TF32), column-major as in cuBLAS.
//!
//! ```no_run
//! # fn demo(stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> Result<(), Box<dyn std::error::Error>> {
//! use cuda_graph_runtime::matmul::{Epilogue, Matmul, MatmulShape};
//! // h (1024 x 32) = relu(W^T x + b), W stored 512 x 1024 column-major, x 512 x 32.
//! let shape = MatmulShape::new(1024, 32, 512).transa(true).lda(512).epilogue(Epilogue::ReluBias);
//! let plan = Matmul::tuned(stream, shape, 4 << 20)?;
//! let (w, x, b) = (stream.alloc_zeros::<f32>(512 * 1024)?, stream.alloc_zeros::<f32>(512 * 32)?,
//!                  stream.alloc_zeros::<f32>(1024)?);
//! let (mut h, mut ws) = (stream.alloc_zeros::<f32>(1024 * 32)?, stream.alloc_zeros::<u8>(4 << 20)?);
//! plan.issue(stream, &w, &x, Some(&b), &mut h, &mut ws)?;
//! # Ok(()) }
//! ```

use std::sync::{Arc, Mutex};

use cudarc::cublaslt::result::CublasError;
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, DriverError};

use crate::driver::{LtAlgo, LtFailure, LtPlan, LtShape, Operand, Operands};

/// The configuration of a planned product ([`Matmul::config`]).
pub use crate::driver::LtConfig as MatmulConfig;

/// What the product's epilogue does to `op(A) op(B)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Epilogue {
    /// Nothing.
    None,
    /// Adds a bias of `m` values (one per row) to every column.
    Bias,
    /// Adds the bias, then `max(0, x)`.
    ReluBias,
}

/// How the products are computed. Every mode takes and gives `f32` and accumulates in `f32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compute {
    /// `f32` arithmetic throughout (no TF32).
    #[default]
    F32,
    /// The tensor cores' TF32: each operand rounded to 10 bits of mantissa first (about 3e-4
    /// relative error on a sum of products). With operands split in two parts (`x = big +
    /// small`, each exact in TF32, the inner dimension tripled: `[big, big, small]` against
    /// `[big, small, big]`), the product is as accurate as `f32` arithmetic and still runs on
    /// the tensor cores.
    Tf32,
}

/// The shape of `D = epilogue(op(A) op(B))`: `D` is `m x n`, the inner dimension `k`,
/// column-major with leading dimensions `lda`, `ldb`, `ldc` (by default the rows of each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatmulShape {
    m: usize,
    n: usize,
    k: usize,
    transa: bool,
    transb: bool,
    lda: Option<usize>,
    ldb: Option<usize>,
    ldc: Option<usize>,
    epilogue: Epilogue,
    compute: Compute,
}

impl MatmulShape {
    /// `D` (`m x n`) = `A` (`m x k`) `B` (`k x n`), no transposes, no epilogue.
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        MatmulShape {
            m,
            n,
            k,
            transa: false,
            transb: false,
            lda: None,
            ldb: None,
            ldc: None,
            epilogue: Epilogue::None,
            compute: Compute::F32,
        }
    }

    /// How the product is computed ([`Compute::F32`] by default).
    pub fn compute(mut self, c: Compute) -> Self {
        self.compute = c;
        self
    }

    /// `A` is stored `k x m` and used transposed.
    pub fn transa(mut self, on: bool) -> Self {
        self.transa = on;
        self
    }

    /// `B` is stored `n x k` and used transposed.
    pub fn transb(mut self, on: bool) -> Self {
        self.transb = on;
        self
    }

    /// The leading dimension of `A` as stored.
    pub fn lda(mut self, ld: usize) -> Self {
        self.lda = Some(ld);
        self
    }

    /// The leading dimension of `B` as stored.
    pub fn ldb(mut self, ld: usize) -> Self {
        self.ldb = Some(ld);
        self
    }

    /// The leading dimension of `D`.
    pub fn ldc(mut self, ld: usize) -> Self {
        self.ldc = Some(ld);
        self
    }

    /// What the epilogue does.
    pub fn epilogue(mut self, e: Epilogue) -> Self {
        self.epilogue = e;
        self
    }

    /// Rows and columns of `A` and `B` as stored.
    fn stored(&self) -> [(usize, usize); 2] {
        let a = if self.transa {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        };
        let b = if self.transb {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        };
        [a, b]
    }

    /// The library's shape, or what is wrong with this one.
    fn checked(&self) -> Result<LtShape, MatmulError> {
        let [(ar, _), (br, _)] = self.stored();
        let (lda, ldb, ldc) = (
            self.lda.unwrap_or(ar),
            self.ldb.unwrap_or(br),
            self.ldc.unwrap_or(self.m),
        );
        let why = if self.m == 0 || self.n == 0 || self.k == 0 {
            Some("every dimension must be at least 1")
        } else if lda < ar {
            Some("lda is less than the rows of A as stored")
        } else if ldb < br {
            Some("ldb is less than the rows of B as stored")
        } else if ldc < self.m {
            Some("ldc is less than m")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(MatmulError::Shape { shape: *self, why });
        }
        Ok(LtShape {
            m: self.m as u64,
            n: self.n as u64,
            k: self.k as u64,
            transa: self.transa,
            transb: self.transb,
            lda: lda as u64,
            ldb: ldb as u64,
            ldc: ldc as u64,
            bias: self.epilogue != Epilogue::None,
            relu: self.epilogue == Epilogue::ReluBias,
            tf32: self.compute == Compute::Tf32,
        })
    }
}

/// Why a product could not be planned or issued.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MatmulError {
    /// The shape is not a product.
    #[error("matmul of shape {shape:?}: {why}")]
    Shape {
        /// The shape given.
        shape: MatmulShape,
        /// What is wrong.
        why: &'static str,
    },
    /// cuBLASLt proposed no algorithm for the shape within the workspace given.
    #[error("cuBLASLt has no algorithm for {shape:?} within {workspace} bytes of workspace")]
    NoAlgorithm {
        /// The shape.
        shape: MatmulShape,
        /// The workspace allowed.
        workspace: usize,
    },
    /// An operand holds fewer elements than the shape reads or writes.
    #[error("the {operand} operand holds {len} elements but the product needs {needed}")]
    TooShort {
        /// `"A"`, `"B"`, `"bias"`, `"D"` or `"workspace"` (in bytes).
        operand: &'static str,
        /// Its length.
        len: usize,
        /// What the shape needs.
        needed: usize,
    },
    /// The epilogue has a bias and none was given, or it has none and one was.
    #[error("the epilogue is {epilogue:?}: {why}")]
    Bias {
        /// The plan's epilogue.
        epilogue: Epilogue,
        /// What was given.
        why: &'static str,
    },
    /// cuBLASLt refused a call.
    #[error("cuBLASLt: {0:?}")]
    Cublas(CublasError),
    /// A driver call (timing, allocation) failed.
    #[error(transparent)]
    Driver(#[from] DriverError),
}

impl From<CublasError> for MatmulError {
    fn from(e: CublasError) -> Self {
        MatmulError::Cublas(e)
    }
}

/// A planned product: its descriptors and algorithm. `Send + Sync`; issues are serialised.
pub struct Matmul {
    shape: MatmulShape,
    plan: Mutex<LtPlan>,
    algo: LtAlgo,
    /// What one product took when [`Matmul::tuned`] timed it, in microseconds.
    tuned_us: Option<f32>,
}

/// The ways [`Matmul::tuned`] also tries splitting the inner dimension of each proposal that
/// can split it: a product too small to give every SM a tile (few rows or columns, a long inner
/// dimension) runs faster split, its parts summed by the library.
const SPLITS: [u32; 6] = [2, 3, 4, 6, 8, 16];

/// The most configurations [`Matmul::searched`] times.
pub const SEARCH_LIMIT: usize = 400;

/// Workspace [`Matmul::new`] allows.
pub const DEFAULT_WORKSPACE: usize = 4 << 20;

impl Matmul {
    /// Plans `shape` with cuBLASLt's first choice among algorithms that need at most
    /// [`DEFAULT_WORKSPACE`] bytes.
    pub fn new(shape: MatmulShape) -> Result<Self, MatmulError> {
        let lt = shape.checked()?;
        let plan = LtPlan::new(&lt)?;
        let algo =
            *plan
                .algorithms(DEFAULT_WORKSPACE, 1)?
                .first()
                .ok_or(MatmulError::NoAlgorithm {
                    shape,
                    workspace: DEFAULT_WORKSPACE,
                })?;
        Ok(Matmul {
            shape,
            plan: Mutex::new(plan),
            algo,
            tuned_us: None,
        })
    }

    /// Plans `shape` with the fastest of cuBLASLt's proposals (up to 16, each needing at most
    /// `workspace` bytes) and of their variants that split the inner dimension 2 to 16 ways
    /// (the heuristics leave those out, and a product too small to give every SM a tile runs
    /// several times faster split), timed the way a graph runs it: each is captured into a
    /// graph of five products in a row on `stream`, over operands of the shape's sizes, and
    /// launched. (An algorithm that zeroes its workspace first brings a memset node into the
    /// graph, which costs more there than on a stream.) A candidate the library refuses to
    /// issue is passed over.
    pub fn tuned(
        stream: &Arc<CudaStream>,
        shape: MatmulShape,
        workspace: usize,
    ) -> Result<Self, MatmulError> {
        Self::fastest(stream, shape, workspace, None)
    }

    /// As [`tuned`](Self::tuned), over every configuration cuBLASLt has for `f32` products
    /// that it accepts for `shape` (each algorithm, tile and stage count, split or not; up to
    /// [`SEARCH_LIMIT`] of them), timed the same way: planning takes up to a second or so, for
    /// products planned once and run many times.
    ///
    /// ```no_run
    /// # fn demo(stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> Result<(), cuda_graph_runtime::matmul::MatmulError> {
    /// use cuda_graph_runtime::matmul::{Epilogue, Matmul, MatmulShape};
    /// let shape = MatmulShape::new(1024, 256, 1024).transa(true).epilogue(Epilogue::ReluBias);
    /// let plan = Matmul::searched(stream, shape, 32 << 20)?;
    /// println!("{:?}: {:?} µs", plan.config(), plan.tuned_us());
    /// # Ok(()) }
    /// ```
    pub fn searched(
        stream: &Arc<CudaStream>,
        shape: MatmulShape,
        workspace: usize,
    ) -> Result<Self, MatmulError> {
        Self::fastest(stream, shape, workspace, Some(SEARCH_LIMIT))
    }

    /// The fastest of the heuristics' proposals and their split variants, or (`wide`) of up
    /// to that many configurations: every candidate timed briefly, the eight fastest again.
    fn fastest(
        stream: &Arc<CudaStream>,
        shape: MatmulShape,
        workspace: usize,
        wide: Option<usize>,
    ) -> Result<Self, MatmulError> {
        let lt = shape.checked()?;
        let mut plan = LtPlan::new(&lt)?;
        let proposed = plan.algorithms(workspace, 16)?;
        let algos = match wide {
            Some(cap) => plan.everything(&proposed, workspace, &SPLITS, cap),
            None => plan.with_splits(&proposed, workspace, &SPLITS),
        };
        if algos.is_empty() {
            return Err(MatmulError::NoAlgorithm { shape, workspace });
        }
        let [na, nb, nd] = plan.needs();
        let bufs = [na, nb, nd, shape.m]
            .map(|n| stream.alloc_zeros::<f32>(n))
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?;
        let ws = stream.alloc_zeros::<u8>(workspace.max(1))?;
        let op = |b: &cudarc::driver::CudaSlice<f32>| Operand {
            addr: b.device_ptr(stream).0,
            len: b.len(),
        };
        let ops = Operands {
            a: op(&bufs[0]),
            b: op(&bufs[1]),
            d: op(&bufs[2]),
            bias: (shape.epilogue != Epilogue::None).then(|| op(&bufs[3])),
            workspace: Operand {
                addr: ws.device_ptr(stream).0,
                len: ws.len(),
            },
        };
        // A first pass of three launches each, then the eight fastest again with ten.
        let mut first_failure = None;
        let mut timed = Vec::with_capacity(algos.len());
        for algo in algos {
            match time_in_graph(stream, &mut plan, &algo, &ops, shape.epilogue, [1, 3]) {
                Ok(Some(us)) => timed.push((us, algo)),
                Ok(None) => {}
                Err(e) => {
                    first_failure.get_or_insert(e);
                }
            }
        }
        timed.sort_by(|a, b| a.0.total_cmp(&b.0));
        timed.truncate(8);
        let mut best: Option<(f32, LtAlgo)> = None;
        for (_, algo) in timed {
            if let Some(us) =
                time_in_graph(stream, &mut plan, &algo, &ops, shape.epilogue, [3, 10])?
            {
                if best.is_none_or(|(b, _)| us < b) {
                    best = Some((us, algo));
                }
            }
        }
        stream.synchronize()?;
        let Some((us, algo)) = best else {
            return Err(match first_failure {
                Some(e) => e,
                None => MatmulError::NoAlgorithm { shape, workspace },
            });
        };
        Ok(Matmul {
            shape,
            plan: Mutex::new(plan),
            algo,
            tuned_us: Some(us),
        })
    }

    /// The shape planned.
    pub fn shape(&self) -> MatmulShape {
        self.shape
    }

    /// The algorithm chosen, as cuBLASLt numbers it (its id, tile, stages, and the ways the
    /// inner dimension is split).
    pub fn config(&self) -> MatmulConfig {
        self.algo.config()
    }

    /// What one product took when [`tuned`](Self::tuned) timed it (microseconds, a product of
    /// a graph of five); `None` for [`new`](Self::new).
    pub fn tuned_us(&self) -> Option<f32> {
        self.tuned_us
    }

    /// Bytes of workspace an issue needs.
    pub fn workspace_bytes(&self) -> usize {
        self.algo.workspace
    }

    /// Issues the product on `stream` (inside captured work, the stream being captured):
    /// `d = epilogue(op(a) op(b))`, with `bias` if the epilogue adds one, `workspace` of at
    /// least [`workspace_bytes`](Self::workspace_bytes). Every length is checked first; nothing
    /// is issued if one is short.
    pub fn issue<A, B, Bi, D, W>(
        &self,
        stream: &CudaStream,
        a: &A,
        b: &B,
        bias: Option<&Bi>,
        d: &mut D,
        workspace: &mut W,
    ) -> Result<(), MatmulError>
    where
        A: DevicePtr<f32>,
        B: DevicePtr<f32>,
        Bi: DevicePtr<f32>,
        D: DevicePtrMut<f32>,
        W: DevicePtrMut<u8>,
    {
        let (pa, _ra) = a.device_ptr(stream);
        let (pb, _rb) = b.device_ptr(stream);
        let bias = bias.map(|x| (x.len(), x.device_ptr(stream)));
        let (dl, wl) = (d.len(), workspace.len());
        let (pd, _rd) = d.device_ptr_mut(stream);
        let (pw, _rw) = workspace.device_ptr_mut(stream);
        let ops = Operands {
            a: Operand {
                addr: pa,
                len: a.len(),
            },
            b: Operand {
                addr: pb,
                len: b.len(),
            },
            d: Operand { addr: pd, len: dl },
            bias: bias.as_ref().map(|(len, (addr, _))| Operand {
                addr: *addr,
                len: *len,
            }),
            workspace: Operand { addr: pw, len: wl },
        };
        // The records above keep cudarc's ordering of the buffers until the call returns.
        self.plan
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .issue(&self.algo, stream.cu_stream(), &ops)
            .map_err(|f| self.failure(f))
    }

    fn failure(&self, f: LtFailure) -> MatmulError {
        fail_with(self.shape.epilogue, f)
    }
}

/// Microseconds a product with `algo` takes in a graph of five on `stream`, after `warm`
/// launches, over `reps` (`[warm, reps]`); `None` if capture made no graph. A refused issue is
/// an error (the stream's capture ended first).
fn time_in_graph(
    stream: &Arc<CudaStream>,
    plan: &mut LtPlan,
    algo: &LtAlgo,
    ops: &Operands,
    epilogue: Epilogue,
    [warm, reps]: [usize; 2],
) -> Result<Option<f32>, MatmulError> {
    use cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode};
    let fail = |f| fail_with(epilogue, f);
    plan.issue(algo, stream.cu_stream(), ops).map_err(fail)?;
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    let issued = (0..5).try_for_each(|_| plan.issue(algo, stream.cu_stream(), ops));
    let graph = stream.end_capture(CUgraphInstantiate_flags(0))?;
    issued.map_err(fail)?;
    let Some(graph) = graph else { return Ok(None) };
    for _ in 0..warm {
        graph.launch()?;
    }
    let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let start = stream.record_event(timing)?;
    for _ in 0..reps {
        graph.launch()?;
    }
    let end = stream.record_event(timing)?;
    end.synchronize()?;
    Ok(Some(start.elapsed_ms(&end)? * 1e3 / (5 * reps) as f32))
}

/// The error a refused or failed issue is.
fn fail_with(epilogue: Epilogue, f: LtFailure) -> MatmulError {
    match f {
        LtFailure::Short {
            operand,
            len,
            needed,
        } => MatmulError::TooShort {
            operand,
            len,
            needed,
        },
        LtFailure::Bias { given } => MatmulError::Bias {
            epilogue,
            why: if given {
                "a bias was given"
            } else {
                "no bias was given"
            },
        },
        LtFailure::Cublas(e) => MatmulError::Cublas(e),
    }
}

impl std::fmt::Debug for Matmul {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matmul")
            .field("shape", &self.shape)
            .field("workspace", &self.algo.workspace)
            .field("config", &self.config())
            .field("tuned_us", &self.tuned_us)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_before_any_library_call() {
        let bad = MatmulShape::new(4, 0, 2);
        assert!(matches!(bad.checked(), Err(MatmulError::Shape { .. })));
        let bad = MatmulShape::new(4, 2, 8).transa(true).lda(4);
        let e = bad.checked().unwrap_err().to_string();
        assert!(e.contains("lda is less than the rows of A"), "{e}");
        let ok = MatmulShape::new(1024, 32, 512)
            .transa(true)
            .lda(512)
            .epilogue(Epilogue::ReluBias)
            .checked()
            .unwrap();
        assert_eq!(
            (ok.lda, ok.ldb, ok.ldc, ok.bias, ok.relu),
            (512, 512, 1024, true, true)
        );
    }
}
