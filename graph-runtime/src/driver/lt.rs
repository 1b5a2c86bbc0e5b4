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
/// `f32` accumulation (TF32 on the tensor cores if asked).
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
    /// On the tensor cores, in TF32 (else `f32` arithmetic).
    pub tf32: bool,
}

impl LtShape {
    fn compute(&self) -> cublasComputeType_t {
        if self.tf32 {
            cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
        } else {
            cublasComputeType_t::CUBLAS_COMPUTE_32F
        }
    }
}

/// One algorithm cuBLASLt proposes, and the workspace it needs.
#[derive(Clone, Copy)]
pub(crate) struct LtAlgo {
    algo: cublasLtMatmulAlgo_t,
    pub workspace: usize,
}

impl LtAlgo {
    /// The algorithm's configuration as cuBLASLt numbers it: algorithm, tile, stages, and the
    /// ways the inner dimension is split (1: not split).
    pub fn config(&self) -> LtConfig {
        use sys::cublasLtMatmulAlgoConfigAttributes_t as Config;
        let get = |attr| {
            let mut v = 0u32;
            let mut written = 0usize;
            // SAFETY: the algorithm was initialised by the library; these attributes are
            // `uint32_t` (the id an `int32_t` of the same size).
            let r = unsafe {
                sys::cublasLtMatmulAlgoConfigGetAttribute(
                    &self.algo,
                    attr,
                    &mut v as *mut u32 as *mut c_void,
                    size_of::<u32>(),
                    &mut written,
                )
            };
            if r == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
                v
            } else {
                0
            }
        };
        LtConfig {
            id: get(Config::CUBLASLT_ALGO_CONFIG_ID),
            tile: get(Config::CUBLASLT_ALGO_CONFIG_TILE_ID),
            stages: get(Config::CUBLASLT_ALGO_CONFIG_STAGES_ID),
            split: get(Config::CUBLASLT_ALGO_CONFIG_SPLITK_NUM).max(1),
        }
    }
}

/// Adds `a` to `out` unless a configuration of the same bits is there.
fn push_new(out: &mut Vec<LtAlgo>, a: LtAlgo) {
    if !out.iter().any(|o| o.algo.data == a.algo.data) {
        out.push(a);
    }
}

/// A capability of `algo` that is a list of `uint32_t` (or one `int32_t`/`uint32_t`): empty if
/// cuBLASLt does not say.
fn cap_u32s(algo: &cublasLtMatmulAlgo_t, attr: sys::cublasLtMatmulAlgoCapAttributes_t) -> Vec<u32> {
    let mut bytes = 0usize;
    // SAFETY: a size query (no buffer); `algo` is initialised.
    let asked = unsafe {
        sys::cublasLtMatmulAlgoCapGetAttribute(algo, attr, ptr::null_mut(), 0, &mut bytes)
    };
    if asked != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS || bytes == 0 {
        return Vec::new();
    }
    let mut v = vec![0u32; bytes.div_ceil(size_of::<u32>())];
    let mut written = 0usize;
    // SAFETY: `v` holds at least `bytes` bytes for the library to write.
    let read = unsafe {
        sys::cublasLtMatmulAlgoCapGetAttribute(
            algo,
            attr,
            v.as_mut_ptr() as *mut c_void,
            v.len() * size_of::<u32>(),
            &mut written,
        )
    };
    if read != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return Vec::new();
    }
    v.truncate(written / size_of::<u32>());
    v
}

/// Sets configuration attribute `attr` (a `uint32_t`) of `algo`; whether cuBLASLt took it.
fn set_u32(
    algo: &mut cublasLtMatmulAlgo_t,
    attr: sys::cublasLtMatmulAlgoConfigAttributes_t,
    v: u32,
) -> bool {
    // SAFETY: `algo` is initialised; the attribute takes a `uint32_t`, read during the call.
    unsafe {
        sys::cublasLtMatmulAlgoConfigSetAttribute(
            algo,
            attr,
            &v as *const u32 as *const c_void,
            size_of::<u32>(),
        ) == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS
    }
}

/// A cuBLASLt configuration, as [`Matmul::config`](crate::matmul::Matmul::config) gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LtConfig {
    /// cuBLASLt's algorithm id.
    pub id: u32,
    /// Its tile (`cublasLtMatmulTile_t`).
    pub tile: u32,
    /// Its pipeline stages (`cublasLtMatmulStages_t`).
    pub stages: u32,
    /// The ways the inner dimension is split.
    pub split: u32,
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
        plan.desc = result::create_matmul_desc(s.compute(), cudaDataType_t::CUDA_R_32F)?;
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

    /// `base` and, for each algorithm of it that can split the inner dimension, its variants
    /// split `splits` ways (each reduction scheme the algorithm offers), those that cuBLASLt
    /// accepts for this product within `workspace` bytes: what the heuristics leave out for
    /// products too small to fill the GPU with one tile a block. No duplicates; `base` first.
    pub fn with_splits(&self, base: &[LtAlgo], workspace: usize, splits: &[u32]) -> Vec<LtAlgo> {
        let mut out = Vec::new();
        for a in base {
            push_new(&mut out, *a);
        }
        for a in base {
            for v in self.split_variants(a.algo, workspace, splits) {
                push_new(&mut out, v);
            }
        }
        out
    }

    /// Every configuration cuBLASLt has for this product's types that it accepts for this
    /// product within `workspace` bytes: each algorithm, each of its tiles and stage counts, not
    /// split and split `splits` ways; at most `cap`, `base` first. A wider search than
    /// [`with_splits`](Self::with_splits), for products planned once and run many times.
    pub fn everything(
        &self,
        base: &[LtAlgo],
        workspace: usize,
        splits: &[u32],
        cap: usize,
    ) -> Vec<LtAlgo> {
        use sys::cublasLtMatmulAlgoCapAttributes_t as Cap;
        use sys::cublasLtMatmulAlgoConfigAttributes_t as Config;
        let mut out = self.with_splits(base, workspace, splits);
        let f = cudaDataType_t::CUDA_R_32F;
        let c = self.shape.compute();
        let mut ids = [0i32; 256];
        let mut n = 0i32;
        // SAFETY: the handle is live; `ids` holds 256 ids for the library to write, `n` says
        // how many it wrote.
        let listed = unsafe {
            sys::cublasLtMatmulAlgoGetIds(
                self.handle,
                c,
                f,
                f,
                f,
                f,
                f,
                256,
                ids.as_mut_ptr(),
                &mut n,
            )
        };
        if listed != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return out;
        }
        'ids: for &id in &ids[..n.clamp(0, 256) as usize] {
            let mut algo = MaybeUninit::<cublasLtMatmulAlgo_t>::zeroed();
            // SAFETY: the handle is live; `algo` is written by the call.
            let made = unsafe {
                sys::cublasLtMatmulAlgoInit(self.handle, c, f, f, f, f, f, id, algo.as_mut_ptr())
            };
            if made != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
                continue;
            }
            // SAFETY: initialised by the call above.
            let algo = unsafe { algo.assume_init() };
            let or_none = |v: Vec<u32>| if v.is_empty() { vec![0] } else { v };
            let tiles = or_none(cap_u32s(&algo, Cap::CUBLASLT_ALGO_CAP_TILE_IDS));
            let stages = or_none(cap_u32s(&algo, Cap::CUBLASLT_ALGO_CAP_STAGES_IDS));
            for &tile in &tiles {
                for &stage in &stages {
                    let mut v = algo;
                    if !set_u32(&mut v, Config::CUBLASLT_ALGO_CONFIG_TILE_ID, tile)
                        || !set_u32(&mut v, Config::CUBLASLT_ALGO_CONFIG_STAGES_ID, stage)
                    {
                        continue;
                    }
                    if let Some(ws) = self.accepts(&v, workspace) {
                        push_new(
                            &mut out,
                            LtAlgo {
                                algo: v,
                                workspace: ws,
                            },
                        );
                    }
                    for s in self.split_variants(v, workspace, splits) {
                        push_new(&mut out, s);
                    }
                    if out.len() >= cap {
                        break 'ids;
                    }
                }
            }
        }
        out.truncate(cap);
        out
    }

    /// `algo` split each of `splits` ways, with each reduction scheme it offers, where it can
    /// split and cuBLASLt accepts the result for this product within `workspace` bytes.
    fn split_variants(
        &self,
        algo: cublasLtMatmulAlgo_t,
        workspace: usize,
        splits: &[u32],
    ) -> Vec<LtAlgo> {
        use sys::cublasLtMatmulAlgoCapAttributes_t as Cap;
        use sys::cublasLtMatmulAlgoConfigAttributes_t as Config;
        let mut out = Vec::new();
        if cap_u32s(&algo, Cap::CUBLASLT_ALGO_CAP_SPLITK_SUPPORT).first() != Some(&1) {
            return out;
        }
        let schemes = cap_u32s(&algo, Cap::CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK)
            .first()
            .copied()
            .unwrap_or(0);
        for &split in splits.iter().filter(|&&k| k > 1) {
            for scheme in [1u32, 2, 4].into_iter().filter(|b| schemes & b != 0) {
                let mut v = algo;
                if set_u32(&mut v, Config::CUBLASLT_ALGO_CONFIG_SPLITK_NUM, split)
                    && set_u32(
                        &mut v,
                        Config::CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                        scheme,
                    )
                {
                    if let Some(ws) = self.accepts(&v, workspace) {
                        out.push(LtAlgo {
                            algo: v,
                            workspace: ws,
                        });
                    }
                }
            }
        }
        out
    }

    /// The workspace `algo` needs for this product, if cuBLASLt accepts it within `workspace`
    /// bytes.
    fn accepts(&self, algo: &cublasLtMatmulAlgo_t, workspace: usize) -> Option<usize> {
        let mut found = MaybeUninit::<cublasLtMatmulHeuristicResult_t>::zeroed();
        let [la, lb, lc] = self.layouts;
        // SAFETY: `algo` is initialised; the descriptors are live; the check writes one result.
        let checked = unsafe {
            sys::cublasLtMatmulAlgoCheck(
                self.handle,
                self.desc,
                la,
                lb,
                lc,
                lc,
                algo,
                found.as_mut_ptr(),
            )
        };
        if checked != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return None;
        }
        // SAFETY: the check succeeded, so it wrote the result.
        let r = unsafe { found.assume_init() };
        (r.state == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS && r.workspaceSize <= workspace)
            .then_some(r.workspaceSize)
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
