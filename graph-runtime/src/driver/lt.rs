//! cuBLASLt matrix products (feature `cublaslt`): the descriptors of one product, the
//! algorithms the library proposes for it, and the one `unsafe` call that issues it, made only
//! with addresses the layer above checked against the shapes.

use std::ffi::c_void;
use std::mem::{size_of, MaybeUninit};
use std::ptr;

use cudarc::cublaslt::result::{self, CublasError};
use cudarc::cublaslt::sys::{
    self, cublasComputeType_t, cublasLtEpilogue_t, cublasLtMatmulAlgo_t,
    cublasLtMatmulDescAttributes_t as Desc, cublasLtMatmulHeuristicResult_t,
    cublasLtMatmulPreferenceAttributes_t as Pref, cudaDataType_t,
};
use cudarc::driver::sys::CUstream;

/// The shape of `D = epilogue(op(A) op(B))` in cuBLAS's column-major terms, in `f32` with
/// `f32` accumulation (no TF32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LtShape {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub transa: bool,
    pub transb: bool,
    pub lda: u64,
    pub ldb: u64,
    pub ldc: u64,
    /// Adds a bias of `m` values to every column.
    pub bias: bool,
    /// Then `max(0, x)`.
    pub relu: bool,
}

/// One algorithm cuBLASLt proposes, and the workspace it needs.
#[derive(Clone, Copy)]
pub(crate) struct LtAlgo {
    algo: cublasLtMatmulAlgo_t,
    pub workspace: usize,
}

/// Device memory an operand of a product occupies: address, and elements (bytes for the
/// workspace), as a `CudaSlice` or a captured node's region gives them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Operand {
    pub addr: u64,
    pub len: usize,
}

/// The operands of one issue.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Operands {
    pub a: Operand,
    pub b: Operand,
    pub d: Operand,
    pub bias: Option<Operand>,
    pub workspace: Operand,
}

/// Why an issue was refused before anything was issued, or failed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LtFailure {
    /// Operand `operand` (`"A"`, `"B"`, `"D"`, `"bias"`, `"workspace"`) holds `len`, the
    /// shape needs `needed`.
    Short {
        operand: &'static str,
        len: usize,
        needed: usize,
    },
    /// A bias given to a product without one, or none to one with one.
    Bias {
        given: bool,
    },
    Cublas(CublasError),
}

impl From<CublasError> for LtFailure {
    fn from(e: CublasError) -> Self {
        LtFailure::Cublas(e)
    }
}

/// A cuBLASLt handle and the descriptors of one product. Not `Sync`: issuing sets the bias
/// pointer on the descriptor (the layer above locks it).
pub(crate) struct LtPlan {
    shape: LtShape,
    handle: sys::cublasLtHandle_t,
    desc: sys::cublasLtMatmulDesc_t,
    layouts: [sys::cublasLtMatrixLayout_t; 3],
}

// SAFETY: the handle and descriptors are host objects cuBLASLt lets any thread use, one at a
// time; `&mut self` (or the layer above's lock) gives that.
unsafe impl Send for LtPlan {}

impl LtPlan {
    pub fn new(s: &LtShape) -> Result<Self, CublasError> {
        let handle = result::create_handle()?;
        let mut plan = LtPlan {
            shape: *s,
            handle,
            desc: ptr::null_mut(),
            layouts: [ptr::null_mut(); 3],
        };
        plan.desc = result::create_matmul_desc(
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType_t::CUDA_R_32F,
        )?;
        let (ar, ac) = if s.transa { (s.k, s.m) } else { (s.m, s.k) };
        let (br, bc) = if s.transb { (s.n, s.k) } else { (s.k, s.n) };
        let f = cudaDataType_t::CUDA_R_32F;
        plan.layouts[0] = result::create_matrix_layout(f, ar, ac, s.lda as i64)?;
        plan.layouts[1] = result::create_matrix_layout(f, br, bc, s.ldb as i64)?;
        plan.layouts[2] = result::create_matrix_layout(f, s.m, s.n, s.ldc as i64)?;
        // `cublasOperation_t` as the attributes take it: 0 is `CUBLAS_OP_N`, 1 `CUBLAS_OP_T`.
        let op = |t: bool| t as i32;
        plan.set(Desc::CUBLASLT_MATMUL_DESC_TRANSA, &op(s.transa))?;
        plan.set(Desc::CUBLASLT_MATMUL_DESC_TRANSB, &op(s.transb))?;
        let epilogue = match (s.bias, s.relu) {
            (false, false) => cublasLtEpilogue_t::CUBLASLT_EPILOGUE_DEFAULT,
            (false, true) => cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU,
            (true, false) => cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS,
            (true, true) => cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU_BIAS,
        };
        plan.set(Desc::CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue)?;
        Ok(plan)
    }

    /// Sets attribute `attr` of the product's descriptor to `v`.
    fn set<T>(&mut self, attr: Desc, v: &T) -> Result<(), CublasError> {
        // SAFETY: `desc` is live; `v` is a value of the type the attribute takes, read for
        // `size_of::<T>()` bytes during the call.
        unsafe {
            result::set_matmul_desc_attribute(
                self.desc,
                attr,
                v as *const T as *const c_void,
                size_of::<T>(),
            )
        }
    }

    /// Up to `count` algorithms for this product that need at most `workspace` bytes, best
    /// first as cuBLASLt ranks them.
    pub fn algorithms(&self, workspace: usize, count: usize) -> Result<Vec<LtAlgo>, CublasError> {
        let pref = result::create_matmul_pref()?;
        let out = (|| {
            // SAFETY: `pref` is live; the attribute takes a `u64`.
            unsafe {
                result::set_matmul_pref_attribute(
                    pref,
                    Pref::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    &(workspace as u64) as *const u64 as *const c_void,
                    size_of::<u64>(),
                )?;
            }
            let mut found = vec![MaybeUninit::<cublasLtMatmulHeuristicResult_t>::zeroed(); count];
            let mut n = 0;
            let [a, b, c] = self.layouts;
            // SAFETY: every descriptor is live; `found` holds `count` results for the library to
            // write, `n` says how many it wrote.
            unsafe {
                sys::cublasLtMatmulAlgoGetHeuristic(
                    self.handle,
                    self.desc,
                    a,
                    b,
                    c,
                    c,
                    pref,
                    count as i32,
                    found.as_mut_ptr() as *mut cublasLtMatmulHeuristicResult_t,
                    &mut n,
                )
                .result()?;
            }
            Ok(found[..n.max(0) as usize]
                .iter()
                // SAFETY: the library wrote the first `n`.
                .map(|r| unsafe { r.assume_init() })
                .filter(|r| r.state == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS)
                .map(|r| LtAlgo {
                    algo: r.algo,
                    workspace: r.workspaceSize,
                })
                .collect())
        })();
        // SAFETY: made above, destroyed once.
        let _ = unsafe { result::destroy_matmul_pref(pref) };
        out
    }

    /// Elements `A`, `B` and `D` must hold: leading dimension times columns as stored.
    pub fn needs(&self) -> [usize; 3] {
        let s = &self.shape;
        let a_cols = if s.transa { s.m } else { s.k };
        let b_cols = if s.transb { s.k } else { s.n };
        [
            (s.lda * a_cols) as usize,
            (s.ldb * b_cols) as usize,
            (s.ldc * s.n) as usize,
        ]
    }

    /// Issues the product on `stream` with `algo`, after checking every operand against the
    /// shape (nothing is issued if one falls short): the one place the library is handed
    /// device addresses.
    pub fn issue(
        &mut self,
        algo: &LtAlgo,
        stream: CUstream,
        ops: &Operands,
    ) -> Result<(), LtFailure> {
        let [na, nb, nd] = self.needs();
        let mut checks = vec![
            ("A", ops.a, na),
            ("B", ops.b, nb),
            ("D", ops.d, nd),
            ("workspace", ops.workspace, algo.workspace),
        ];
        match (ops.bias, self.shape.bias) {
            (Some(b), true) => checks.push(("bias", b, self.shape.m as usize)),
            (None, false) => {}
            (given, _) => {
                return Err(LtFailure::Bias {
                    given: given.is_some(),
                })
            }
        }
        for (operand, o, needed) in checks {
            if o.len < needed {
                return Err(LtFailure::Short {
                    operand,
                    len: o.len,
                    needed,
                });
            }
        }
        if let Some(bias) = ops.bias {
            self.set(Desc::CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias.addr)?;
        }
        let (alpha, beta) = (1.0f32, 0.0f32);
        let [la, lb, lc] = self.layouts;
        // SAFETY: every operand holds what the shape reads or writes (checked above: `ld *
        // columns` elements each, `m` for the bias, the algorithm's workspace), as the layer
        // above took them from live device buffers of `stream`'s device; the descriptors are
        // live and describe that shape.
        unsafe {
            result::matmul(
                self.handle,
                self.desc,
                &alpha as *const f32 as *const c_void,
                &beta as *const f32 as *const c_void,
                ops.a.addr as *const c_void,
                la,
                ops.b.addr as *const c_void,
                lb,
                ops.d.addr as *const c_void,
                lc,
                ops.d.addr as *mut c_void,
                lc,
                &algo.algo,
                ops.workspace.addr as *mut c_void,
                algo.workspace,
                stream as sys::cudaStream_t,
            )
        }?;
        Ok(())
    }
}

impl Drop for LtPlan {
    fn drop(&mut self) {
        // SAFETY: each was made by `new` (or is null, never made) and is destroyed once.
        unsafe {
            for l in self.layouts {
                if !l.is_null() {
                    let _ = result::destroy_matrix_layout(l);
                }
            }
            if !self.desc.is_null() {
                let _ = result::destroy_matmul_desc(self.desc);
            }
            let _ = result::destroy_handle(self.handle);
        }
    }
}
