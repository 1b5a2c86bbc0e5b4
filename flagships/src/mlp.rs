//! A 3-layer MLP inference step (`IN -> H1 -> H2 -> OUT`, ReLU between layers), shared by
//! `examples/mlp.rs`, `tests/mlp.rs` and the workspace's `benches/mlp.rs`:
//!
//! - [`Mlp`]: a `cuda_graph!` graph: a new input copied from pinned host memory, then three
//!   cuBLASLt products captured as nodes (`capture(...)`), each with its bias (and ReLU, but the
//!   last) fused into the product's epilogue, so a layer is one kernel; the hidden activations
//!   are temporaries (graph-owned memory), the products' workspace a buffer every layer
//!   declares it writes (the race check orders them);
//! - [`MlpVec`]: for batches of up to [`VEC_BATCH`] rows, three kernels that stream each
//!   weight once: the new input read from pinned host memory, the first layer with its part
//!   of the second (summed across blocks), the rest of the second with the third; every edge
//!   programmatic, so a kernel's weights are loading while the one before ends (a product
//!   library's kernels are built for larger batches, and each kernel boundary costs as much as
//!   a small layer);
//! - [`MlpSplit`]: above that, the products on the tensor cores at `f32` accuracy: each
//!   layer's input and weight split into two TF32 parts, three products of parts summed in one
//!   cuBLASLt TF32 product (the inner dimension tripled), bias and ReLU in its epilogue; the
//!   new input read from pinned host memory by the kernel that splits it;
//! - [`plans`]: the three products, each planned once with the fastest of cuBLASLt's
//!   algorithms for its batch (with the inner dimension split, where that is faster), timed on
//!   the device;
//! - [`stream_step`]: the same work as stream launches, no graph.
//!
//! Weights and inputs follow a fixed formula, so PyTorch (`benches/pytorch_mlp.py`) and the
//! CPU reference ([`reference()`]) compute the same thing.

#![allow(dead_code)]

use std::sync::Arc;

use cuda_graph::cudarc::cublas::sys::{self as cublas_sys, cublasOperation_t};
use cuda_graph::cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cuda_graph::cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut};
use cuda_graph::error::ModuleError;
use cuda_graph::matmul::{Compute, Epilogue, Matmul, MatmulError, MatmulShape};
use cuda_graph::prelude::*;

/// The input's width.
pub const IN: u32 = 512;
/// The first hidden layer's width.
pub const H1: u32 = 1024;
/// The second hidden layer's width.
pub const H2: u32 = 1024;
/// The output's width.
pub const OUT: u32 = 256;

cuda_graph! {
    /// One inference step: load a new input, then three layers, each one cuBLASLt product with
    /// its bias (and ReLU, but the last) in the epilogue.
    pub graph Mlp {
        host_buffer mut x_host: f32;
        buffer mut x: f32;
        buffer w1: f32;
        buffer b1: f32;
        buffer w2: f32;
        buffer b2: f32;
        buffer w3: f32;
        buffer b3: f32;
        buffer mut y: f32;
        buffer mut ws: u8;
        param batch: u32;
        temp h1: [f32; batch * H1];
        temp h2: [f32; batch * H2];
        work layer1;
        work layer2;
        work layer3;

        load = memcpy(x, x_host);
        g1 = capture(layer1, reads: [x, w1, b1], writes: [h1, ws]);
        g2 = capture(layer2, reads: [h1, w2, b2], writes: [h2, ws]);
        g3 = capture(layer3, reads: [h2, w3, b3], writes: [y, ws]);
        load -> g1 -> g2 -> g3;
    }
}

/// The largest batch [`MlpVec`] takes.
pub const VEC_BATCH: u32 = 8;

cuda_graph! {
    /// One inference step for a batch of up to [`VEC_BATCH`] rows, in three kernels that
    /// stream each weight once: the new input read from pinned host memory at address `from`
    /// (where the host writes it), the second layer's sums cleared; the first layer, each block
    /// adding its rows' part of the second layer into the sums; the second layer finished
    /// (bias, ReLU) and the third. Every edge is programmatic: a kernel loads its weights before
    /// it waits for the one before. `vec_inputs` makes the inputs.
    #[programmatic]
    pub graph MlpVec {
        source "kernels/mlp.cu";
        kernel take_input(from: u64, x: &mut [f32], n: u32, sums: &mut [f32], m: u32);
        kernel layer12(w1: &[f32], x: &[f32], b1: &[f32], w2: &[f32], sums: &mut [f32], nb: u32);
        kernel layer3(w3: &[f32], sums: &[f32], b2: &[f32], b3: &[f32], y: &mut [f32], rows: u32, nb: u32);
        buffer mut x: f32;
        buffer w1: f32;
        buffer b1: f32;
        buffer w2: f32;
        buffer b2: f32;
        buffer w3: f32;
        buffer b3: f32;
        buffer mut y: f32;
        param batch: u32;
        param from: u64;
        temp sums: [f32; batch * H2];

        load = take_input<<<(batch * H2).div_ceil(256), 256>>>(from, x, batch * IN, sums, batch * H2);
        l12 = layer12<<<H1 / 8, 256, batch * IN * 4>>>(w1, x, b1, w2, sums, batch);
        l3 = layer3<<<OUT / 8, 256, batch * H2 * 4>>>(w3, sums, b2, b3, y, OUT, batch);
        load -> l12 -> l3;
    }
}

/// The inputs of an [`MlpVec`] graph of `batch` rows (at most [`VEC_BATCH`]), the input read
/// from pinned host memory at `from` (the address of a pinned buffer of at least `batch * IN`
/// floats, which must outlive every launch of the graph).
pub fn vec_inputs<'a>(
    from: u64,
    x: &'a mut CudaSlice<f32>,
    dw: &'a DeviceWeights,
    y: &'a mut CudaSlice<f32>,
    batch: u32,
) -> MlpVecInputs<'a> {
    assert!(
        (1..=VEC_BATCH).contains(&batch),
        "MlpVec takes 1 to {VEC_BATCH} rows"
    );
    MlpVecInputs {
        x,
        w1: &dw.w[0],
        b1: &dw.b[0],
        w2: &dw.w[1],
        b2: &dw.b[1],
        w3: &dw.w[2],
        b3: &dw.b[2],
        y,
        batch,
        from,
    }
}

cuda_graph! {
    /// One inference step with the products on the tensor cores at `f32` accuracy: each layer's
    /// input split into TF32 parts (`[big; small; big]`, the inner dimension tripled) and
    /// multiplied with the weight split the same way (`[big, big, small]`, made once by
    /// [`DeviceWeights::upload_split`]) in one cuBLASLt TF32 product, bias and ReLU in its
    /// epilogue. The new input is read from pinned host memory at address `from` by the kernel
    /// that splits it (`take_split3`): it crosses the bus once, with no copy node before it.
    /// [`split_inputs`] makes the inputs.
    pub graph MlpSplit {
        source "kernels/mlp.cu";
        kernel take_split3(from: u64, x3: &mut [f32], k: u32, n: u32);
        kernel split3(x: &[f32], x3: &mut [f32], k: u32, n: u32);
        buffer w1: f32;
        buffer b1: f32;
        buffer w2: f32;
        buffer b2: f32;
        buffer w3: f32;
        buffer b3: f32;
        buffer mut y: f32;
        buffer mut ws: u8;
        param batch: u32;
        param from: u64;
        temp x3: [f32; batch * IN * 3];
        temp h1: [f32; batch * H1];
        temp h1s: [f32; batch * H1 * 3];
        temp h2: [f32; batch * H2];
        temp h2s: [f32; batch * H2 * 3];
        work layer1;
        work layer2;
        work layer3;

        s0 = take_split3<<<(batch * IN / 4).div_ceil(256).min(1024), 256>>>(from, x3, IN, batch);
        g1 = capture(layer1, reads: [x3, w1, b1], writes: [h1, ws]);
        s1 = split3<<<(batch * H1 / 4).div_ceil(256).min(1024), 256>>>(h1, h1s, H1, batch);
        g2 = capture(layer2, reads: [h1s, w2, b2], writes: [h2, ws]);
        s2 = split3<<<(batch * H2 / 4).div_ceil(256).min(1024), 256>>>(h2, h2s, H2, batch);
        g3 = capture(layer3, reads: [h2s, w3, b3], writes: [y, ws]);
        s0 -> g1 -> s1 -> g2 -> s2 -> g3;
    }
}

/// `v` rounded to TF32 (10 bits of mantissa, to nearest even): `v - tf32(v)` is exact in f32.
pub fn tf32(v: f32) -> f32 {
    let b = v.to_bits();
    if !v.is_finite() {
        return v;
    }
    f32::from_bits(b.wrapping_add(0xfff + ((b >> 13) & 1)) & !0x1fff)
}

impl DeviceWeights {
    /// The weights split for [`MlpSplit`]: layer `l`'s weight `out x 3in` row-major, each row
    /// `[big, big, small]` of the row of `W_l` (`big = tf32(w)`, `small = w - big`); the
    /// biases as they are.
    pub fn upload_split(stream: &Arc<CudaStream>, wt: &Weights) -> Self {
        let split = |l: usize| {
            let i = DIMS[l].0 as usize;
            let mut w3 = Vec::with_capacity(wt.w[l].len() * 3);
            for row in wt.w[l].chunks(i) {
                let big: Vec<f32> = row.iter().map(|&v| tf32(v)).collect();
                w3.extend_from_slice(&big);
                w3.extend_from_slice(&big);
                w3.extend(row.iter().zip(&big).map(|(v, b)| v - b));
            }
            stream.clone_htod(&w3).expect("upload")
        };
        let up = |v: &Vec<f32>| stream.clone_htod(v).expect("upload");
        DeviceWeights {
            w: [split(0), split(1), split(2)],
            b: [up(&wt.b[0]), up(&wt.b[1]), up(&wt.b[2])],
        }
    }
}

/// The product of layer `l` of [`MlpSplit`] for `batch` rows: [`shape`] with the inner
/// dimension tripled, on the tensor cores.
pub fn split_shape(l: usize, batch: u32) -> MatmulShape {
    let (i, o) = DIMS[l];
    let k = 3 * i as usize;
    MatmulShape::new(o as usize, batch as usize, k)
        .transa(true)
        .lda(k)
        .ldb(k)
        .epilogue(epilogue_of(l))
        .compute(Compute::Tf32)
}

/// The three layers' products of [`MlpSplit`] for `batch` rows ([`Matmul::searched`]).
pub fn split_plans(stream: &Arc<CudaStream>, batch: u32) -> Result<[Matmul; 3], MatmulError> {
    let plan = |l| Matmul::searched(stream, split_shape(l, batch), LT_WORKSPACE);
    Ok([plan(0)?, plan(1)?, plan(2)?])
}

/// The inputs of an [`MlpSplit`] graph of `batch` rows: the input read from pinned host memory
/// at `from` (the address of a pinned buffer of at least `batch * IN` floats, 16-byte aligned,
/// which must outlive every launch of the graph), the split weights
/// ([`DeviceWeights::upload_split`]), the output, the products' workspace (at least
/// [`LT_WORKSPACE`] bytes) and the three layers ([`layer`] of [`split_plans`]) captured on
/// `stream`.
#[allow(clippy::too_many_arguments)]
pub fn split_inputs<'a, F>(
    from: u64,
    dw: &'a DeviceWeights,
    y: &'a mut CudaSlice<f32>,
    ws: &'a mut CudaSlice<u8>,
    batch: u32,
    stream: &Arc<CudaStream>,
    layers: &'a [F; 3],
) -> MlpSplitInputs<'a>
where
    F: Layer + 'a,
{
    assert!(
        from.is_multiple_of(16),
        "MlpSplit reads its input 16 bytes at a time"
    );
    MlpSplitInputs {
        w1: &dw.w[0],
        b1: &dw.b[0],
        w2: &dw.w[1],
        b2: &dw.b[1],
        w3: &dw.w[2],
        b3: &dw.b[2],
        y,
        ws,
        batch,
        from,
        layer1: Work::new(stream, &layers[0]),
        layer2: Work::new(stream, &layers[1]),
        layer3: Work::new(stream, &layers[2]),
    }
}

/// Compiles the MLP's kernels (`kernels/mlp.cu` and the header it includes) for `ctx`'s
/// device: the module `Mlp::build`, `MlpVec::build` and `MlpSplit::build` take (`Mlp` launches
/// no kernel of its own: each layer is one cuBLASLt product, bias and ReLU included).
pub fn compile(ctx: &Arc<CudaContext>) -> Result<Module, ModuleError> {
    cuda_graph::compile_with(ctx, MlpVec::SOURCE, &MlpVec::compile_options())
}

/// Bytes of workspace the products may use (one buffer, shared by the layers in turn).
pub const LT_WORKSPACE: usize = 32 << 20;

/// The product of layer `l` for `batch` rows: `h (out x batch, column-major) = W x`, `W` stored
/// `out x in` row-major (so used transposed), with the bias, and the ReLU but on the last.
pub fn shape(l: usize, batch: u32) -> MatmulShape {
    let (i, o) = DIMS[l];
    MatmulShape::new(o as usize, batch as usize, i as usize)
        .transa(true)
        .lda(i as usize)
        .ldb(i as usize)
        .epilogue(epilogue_of(l))
}

/// Layer `l`'s epilogue: the bias, and the ReLU but on the last.
fn epilogue_of(l: usize) -> Epilogue {
    if l < 2 {
        Epilogue::ReluBias
    } else {
        Epilogue::Bias
    }
}

/// The three layers' products for `batch` rows, each with the fastest of cuBLASLt's
/// algorithms (within [`LT_WORKSPACE`]) timed on `stream`: of every configuration cuBLASLt
/// accepts ([`Matmul::searched`]) above [`VEC_BATCH`] rows, of the heuristics' proposals and
/// their split variants ([`Matmul::tuned`]) up to it (where [`MlpVec`] is the faster graph).
pub fn plans(stream: &Arc<CudaStream>, batch: u32) -> Result<[Matmul; 3], MatmulError> {
    let plan = |l| {
        if batch > VEC_BATCH {
            Matmul::searched(stream, shape(l, batch), LT_WORKSPACE)
        } else {
            Matmul::tuned(stream, shape(l, batch), LT_WORKSPACE)
        }
    };
    Ok([plan(0)?, plan(1)?, plan(2)?])
}

/// Element `i` of a weight matrix (or bias) `which`, scaled for a stable forward pass.
pub fn weight(which: u32, i: usize, fan_in: u32) -> f32 {
    let h = (i as u64)
        .wrapping_mul(2654435761)
        .wrapping_add(which as u64 * 97)
        % 1000;
    (h as f32 / 1000.0 - 0.5) * 2.0 / (fan_in as f32).sqrt()
}

/// Element `i` of input `step`.
pub fn input(step: u32, i: usize) -> f32 {
    (((i as u64 * 31 + step as u64 * 17) % 101) as f32 / 101.0) - 0.25
}

/// Host weights: `w_l` is `out x in` row-major (as PyTorch's `Linear`), `b_l` has `out`.
pub struct Weights {
    /// The three layers' weights, `out x in` row-major.
    pub w: [Vec<f32>; 3],
    /// The three layers' biases, `out` each.
    pub b: [Vec<f32>; 3],
}

/// Each layer's `(in, out)` widths.
pub const DIMS: [(u32, u32); 3] = [(IN, H1), (H1, H2), (H2, OUT)];

impl Weights {
    /// The weights and biases of the fixed formula ([`weight`]).
    pub fn new() -> Self {
        let mk = |l: u32, n: usize, fan: u32| (0..n).map(|i| weight(l, i, fan)).collect::<Vec<_>>();
        let w = DIMS
            .iter()
            .enumerate()
            .map(|(l, &(i, o))| mk(l as u32 * 2, (i * o) as usize, i))
            .collect::<Vec<_>>();
        let b = DIMS
            .iter()
            .enumerate()
            .map(|(l, &(i, o))| mk(l as u32 * 2 + 1, o as usize, i))
            .collect::<Vec<_>>();
        let [w0, w1, w2]: [Vec<f32>; 3] = w.try_into().expect("three layers");
        let [b0, b1, b2]: [Vec<f32>; 3] = b.try_into().expect("three layers");
        Weights {
            w: [w0, w1, w2],
            b: [b0, b1, b2],
        }
    }
}

impl Default for Weights {
    fn default() -> Self {
        Self::new()
    }
}

/// The forward pass on the CPU in `f64`: `batch x OUT`, row-major.
pub fn reference(wt: &Weights, x: &[f32], batch: usize) -> Vec<f64> {
    let mut a: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    for (l, &(i, o)) in DIMS.iter().enumerate() {
        let (i, o) = (i as usize, o as usize);
        let mut next = vec![0.0; batch * o];
        for r in 0..batch {
            for c in 0..o {
                let mut s = wt.b[l][c] as f64;
                for k in 0..i {
                    s += wt.w[l][c * i + k] as f64 * a[r * i + k];
                }
                next[r * o + c] = if l < 2 { s.max(0.0) } else { s };
            }
        }
        a = next;
    }
    a
}

/// Device weights.
pub struct DeviceWeights {
    /// The three layers' weights, as in [`Weights::w`].
    pub w: [CudaSlice<f32>; 3],
    /// The three layers' biases, as in [`Weights::b`].
    pub b: [CudaSlice<f32>; 3],
}

impl DeviceWeights {
    /// Copies `wt` to the device.
    pub fn upload(stream: &Arc<CudaStream>, wt: &Weights) -> Self {
        let up = |v: &Vec<f32>| stream.clone_htod(v).expect("upload");
        DeviceWeights {
            w: [up(&wt.w[0]), up(&wt.w[1]), up(&wt.w[2])],
            b: [up(&wt.b[0]), up(&wt.b[1]), up(&wt.b[2])],
        }
    }
}

/// What a layer's `work` input runs when it is captured: the product of its input, weight and
/// bias into its output, with the products' workspace ([`layer`] makes one).
pub trait Layer:
    Fn(
        &Capture<'_, '_>,
        (Region<f32>, Region<f32>, Region<f32>),
        (RegionMut<f32>, RegionMut<u8>),
    ) -> WorkResult
    + Send
    + Sync
{
}

impl<F> Layer for F where
    F: Fn(
            &Capture<'_, '_>,
            (Region<f32>, Region<f32>, Region<f32>),
            (RegionMut<f32>, RegionMut<u8>),
        ) -> WorkResult
        + Send
        + Sync
{
}

/// A layer's product (from [`plans`]), as a closure for a `work` input.
pub fn layer(plan: &Matmul) -> impl Layer + '_ {
    move |cx, (x, w, b), (mut h, mut ws)| {
        plan.issue(cx.stream(), &w, &x, Some(&b), &mut h, &mut ws)?;
        Ok(())
    }
}

/// The inputs of an [`Mlp`] graph of `batch` rows: the pinned input, the device buffers, the
/// products' workspace (at least [`LT_WORKSPACE`] bytes), and the three layers (from
/// [`layer`]) captured on `stream`.
#[allow(clippy::too_many_arguments)]
pub fn inputs<'a, F>(
    x_host: &'a mut [f32],
    x: &'a mut CudaSlice<f32>,
    dw: &'a DeviceWeights,
    y: &'a mut CudaSlice<f32>,
    ws: &'a mut CudaSlice<u8>,
    batch: u32,
    stream: &Arc<CudaStream>,
    layers: &'a [F; 3],
) -> MlpInputs<'a>
where
    F: Layer + 'a,
{
    MlpInputs {
        x_host,
        x,
        w1: &dw.w[0],
        b1: &dw.b[0],
        w2: &dw.w[1],
        b2: &dw.b[1],
        w3: &dw.w[2],
        b3: &dw.b[2],
        y,
        ws,
        batch,
        layer1: Work::new(stream, &layers[0]),
        layer2: Work::new(stream, &layers[1]),
        layer3: Work::new(stream, &layers[2]),
    }
}

/// One step without a graph: copy the input, then the three products, as stream launches (the
/// same kernels the graph runs).
#[allow(clippy::too_many_arguments)]
pub fn stream_step(
    stream: &Arc<CudaStream>,
    plans: &[Matmul; 3],
    dw: &DeviceWeights,
    x_host: &[f32],
    x: &mut CudaSlice<f32>,
    h: &mut [CudaSlice<f32>; 2],
    y: &mut CudaSlice<f32>,
    ws: &mut CudaSlice<u8>,
) -> Result<(), MatmulError> {
    stream.memcpy_htod(x_host, x)?;
    let [h1, h2] = h;
    plans[0].issue(stream, &dw.w[0], &*x, Some(&dw.b[0]), h1, ws)?;
    plans[1].issue(stream, &dw.w[1], &*h1, Some(&dw.b[1]), h2, ws)?;
    plans[2].issue(stream, &dw.w[2], &*h2, Some(&dw.b[2]), y, ws)?;
    Ok(())
}

/// The GEMM of layer `l` for `batch` rows with cuBLAS (no epilogue): what
/// [`Graph::add_gemm`](cuda_graph::Graph::add_gemm) is tested with.
pub fn gemm_cfg(l: usize, batch: u32) -> GemmConfig<f32> {
    let (i, o) = DIMS[l];
    GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_T,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: o as i32,
        n: batch as i32,
        k: i as i32,
        alpha: 1.0,
        lda: i as i32,
        ldb: i as i32,
        beta: 0.0,
        ldc: o as i32,
    }
}

/// Bytes of the workspace each cuBLAS handle gets.
pub const WORKSPACE: usize = 32 << 20;

/// Gives `blas` (bound to `stream`) a workspace of [`WORKSPACE`] bytes, so cuBLAS allocates
/// nothing while captured (a captured node cannot hold allocations). Keep the returned
/// workspace as long as `blas`.
#[must_use = "the workspace must live as long as the cuBLAS handle"]
pub fn set_workspace(stream: &Arc<CudaStream>, blas: &CudaBlas) -> CudaSlice<u8> {
    let mut ws = stream.alloc_zeros::<u8>(WORKSPACE).expect("alloc");
    {
        let (ptr, _sync) = ws.device_ptr_mut(stream);
        // SAFETY: `ws` holds WORKSPACE bytes on `stream`'s device and outlives the handle's use
        // (the caller keeps it).
        unsafe {
            cublas_sys::cublasSetWorkspace_v2(
                *blas.handle(),
                ptr as *mut std::ffi::c_void,
                WORKSPACE,
            )
        }
        .result()
        .expect("cublasSetWorkspace");
    }
    ws
}

/// Prepares `blas` (bound to `stream`) for capture: its workspace ([`set_workspace`]), and one
/// GEMM outside capture so it is initialised. Keep the returned workspace as long as `blas`.
#[must_use = "the workspace must live as long as the cuBLAS handle"]
pub fn warm_up(stream: &Arc<CudaStream>, blas: &CudaBlas, dw: &DeviceWeights) -> CudaSlice<u8> {
    let ws = set_workspace(stream, blas);
    let x = stream.alloc_zeros::<f32>(IN as usize).expect("alloc");
    let mut h = stream.alloc_zeros::<f32>(H1 as usize).expect("alloc");
    // SAFETY: batch 1: `x` holds IN floats, `h` H1.
    unsafe { blas.gemm(gemm_cfg(0, 1), &dw.w[0], &x, &mut h) }.expect("warm-up gemm");
    stream.synchronize().expect("sync");
    ws
}
