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
        }
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
}

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
        })
    }

    /// Plans `shape` with the fastest of cuBLASLt's proposals (up to 16, each needing at most
    /// `workspace` bytes), timed the way a graph runs it: each is captured into a graph of five
    /// products in a row on `stream`, over operands of the shape's sizes, and launched. (An
    /// algorithm that zeroes its workspace first brings a memset node into the graph, which
    /// costs more there than on a stream.)
    pub fn tuned(
        stream: &Arc<CudaStream>,
        shape: MatmulShape,
        workspace: usize,
    ) -> Result<Self, MatmulError> {
        use cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode};
        let fail = |f| fail_with(shape.epilogue, f);
        let lt = shape.checked()?;
        let mut plan = LtPlan::new(&lt)?;
        let algos = plan.algorithms(workspace, 16)?;
        let Some(&first) = algos.first() else {
            return Err(MatmulError::NoAlgorithm { shape, workspace });
        };
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
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let mut best = (f32::INFINITY, first);
        for algo in algos {
            plan.issue(&algo, stream.cu_stream(), &ops).map_err(fail)?;
            stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
            let issued = (0..5).try_for_each(|_| plan.issue(&algo, stream.cu_stream(), &ops));
            let graph = stream.end_capture(CUgraphInstantiate_flags(0))?;
            issued.map_err(fail)?;
            let Some(graph) = graph else { continue };
            for _ in 0..3 {
                graph.launch()?;
            }
            let start = stream.record_event(timing)?;
            for _ in 0..10 {
                graph.launch()?;
            }
            let end = stream.record_event(timing)?;
            end.synchronize()?;
            let ms = start.elapsed_ms(&end)?;
            if ms < best.0 {
                best = (ms, algo);
            }
        }
        stream.synchronize()?;
        Ok(Matmul {
            shape,
            plan: Mutex::new(plan),
            algo: best.1,
        })
    }

    /// The shape planned.
    pub fn shape(&self) -> MatmulShape {
        self.shape
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
