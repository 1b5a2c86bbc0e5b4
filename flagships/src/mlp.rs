//! A 3-layer MLP inference step (`IN -> H1 -> H2 -> OUT`, ReLU between layers), shared by
//! `examples/mlp.rs`, `tests/mlp.rs` and the workspace's `benches/mlp.rs`:
//!
//! - [`Mlp`]: a `cuda_graph!` graph: a new input copied from pinned host memory, three cuBLAS
//!   GEMMs captured as nodes (`capture(...)`), each followed by a bias (+ReLU) kernel; the
//!   hidden activations are temporaries (graph-owned memory);
//! - [`stream_step`]: the same work as cudarc stream launches, no graph.
//!
//! Weights and inputs follow a fixed formula, so PyTorch (`benches/pytorch_mlp.py`) and the
//! CPU reference ([`reference()`]) compute the same thing.

#![allow(dead_code)]

use std::sync::Arc;

use cuda_graph::cudarc::cublas::sys::{self as cublas_sys, cublasOperation_t};
use cuda_graph::cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cuda_graph::cudarc::driver::{
    CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cuda_graph::prelude::*;

pub const IN: u32 = 512;
pub const H1: u32 = 1024;
pub const H2: u32 = 1024;
pub const OUT: u32 = 256;

cuda_graph! {
    /// One inference step: load a new input, then three layers (GEMM, bias, ReLU but the last).
    pub graph Mlp {
        kernel bias_act(y: &mut [f32], bias: &[f32], rows: u32, cols: u32, relu: u32);
        host_buffer mut x_host: f32;
        buffer mut x: f32;
        buffer w1: f32;
        buffer b1: f32;
        buffer w2: f32;
        buffer b2: f32;
        buffer w3: f32;
        buffer b3: f32;
        buffer mut y: f32;
        param batch: u32;
        temp h1: [f32; batch * H1];
        temp h2: [f32; batch * H2];
        work layer1;
        work layer2;
        work layer3;

        load = memcpy(x, x_host);
        g1 = capture(layer1, reads: [x, w1], writes: [h1]);
        a1 = bias_act<<<(batch * H1).div_ceil(256), 256>>>(h1, b1, batch, H1, 1);
        g2 = capture(layer2, reads: [h1, w2], writes: [h2]);
        a2 = bias_act<<<(batch * H2).div_ceil(256), 256>>>(h2, b2, batch, H2, 1);
        g3 = capture(layer3, reads: [h2, w3], writes: [y]);
        a3 = bias_act<<<(batch * OUT).div_ceil(256), 256>>>(y, b3, batch, OUT, 0);
        load -> g1 -> a1 -> g2 -> a2 -> g3 -> a3;
    }
}

/// The kernel source.
pub const SOURCE: &str = include_str!("../kernels/mlp.cu");

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
    pub w: [Vec<f32>; 3],
    pub b: [Vec<f32>; 3],
}

pub const DIMS: [(u32, u32); 3] = [(IN, H1), (H1, H2), (H2, OUT)];

impl Weights {
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

/// The GEMM of layer `l` for `batch` rows: `h (out x batch, column-major) = W x`.
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

/// Device weights.
pub struct DeviceWeights {
    pub w: [CudaSlice<f32>; 3],
    pub b: [CudaSlice<f32>; 3],
}

impl DeviceWeights {
    pub fn upload(stream: &Arc<CudaStream>, wt: &Weights) -> Self {
        let up = |v: &Vec<f32>| stream.clone_htod(v).expect("upload");
        DeviceWeights {
            w: [up(&wt.w[0]), up(&wt.w[1]), up(&wt.w[2])],
            b: [up(&wt.b[0]), up(&wt.b[1]), up(&wt.b[2])],
        }
    }
}

/// A layer's GEMM, as a closure for a `work` input.
#[allow(clippy::type_complexity)]
pub fn layer<'b>(
    blas: &'b CudaBlas,
    l: usize,
    batch: u32,
) -> impl Fn(&Capture<'_, '_>, (Region<f32>, Region<f32>), (RegionMut<f32>,)) -> WorkResult
       + Send
       + Sync
       + 'b {
    move |_cx, (x, w), (mut h,)| {
        // SAFETY: `w` holds `out x in`, `x` `batch x in`, `h` `batch x out` floats (the graph
        // was built with buffers of those sizes).
        unsafe { blas.gemm(gemm_cfg(l, batch), &w, &x, &mut h) }?;
        Ok(())
    }
}

/// The inputs of an [`Mlp`] graph of `batch` rows: the pinned input, the device buffers, and
/// the three layers' GEMMs (from [`layer`]) captured on `stream`.
#[allow(clippy::type_complexity)]
pub fn inputs<'a, F>(
    x_host: &'a mut [f32],
    x: &'a mut CudaSlice<f32>,
    dw: &'a DeviceWeights,
    y: &'a mut CudaSlice<f32>,
    batch: u32,
    stream: &Arc<CudaStream>,
    layers: &'a [F; 3],
) -> MlpInputs<'a>
where
    F: Fn(&Capture<'_, '_>, (Region<f32>, Region<f32>), (RegionMut<f32>,)) -> WorkResult
        + Send
        + Sync
        + 'a,
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
        batch,
        layer1: Work::new(stream, &layers[0]),
        layer2: Work::new(stream, &layers[1]),
        layer3: Work::new(stream, &layers[2]),
    }
}

/// One step without a graph: copy the input, then the three layers, as stream launches.
#[allow(clippy::too_many_arguments)]
pub fn stream_step(
    stream: &Arc<CudaStream>,
    blas: &CudaBlas,
    bias_act: &cuda_graph::Kernel,
    dw: &DeviceWeights,
    x_host: &[f32],
    x: &mut CudaSlice<f32>,
    h: &mut [CudaSlice<f32>; 2],
    y: &mut CudaSlice<f32>,
    batch: u32,
) {
    stream.memcpy_htod(x_host, x).expect("copy the input");
    let f = bias_act.cuda_function().clone();
    let launch = |y: &mut CudaSlice<f32>, b: &CudaSlice<f32>, cols: u32, relu: u32| {
        let n = batch * cols;
        let cfg = LaunchConfig {
            grid_dim: (n.div_ceil(256), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut l = stream.launch_builder(&f);
        l.arg(y).arg(b).arg(&batch).arg(&cols).arg(&relu);
        // SAFETY: bias_act(float*, const float*, unsigned, unsigned, unsigned) over `n` floats.
        unsafe { l.launch(cfg) }.expect("bias_act");
    };
    let [h1, h2] = h;
    // SAFETY: the buffers hold what each GEMM reads and writes.
    unsafe {
        blas.gemm(gemm_cfg(0, batch), &dw.w[0], &*x, h1)
            .expect("gemm 1");
    }
    launch(h1, &dw.b[0], H1, 1);
    unsafe {
        blas.gemm(gemm_cfg(1, batch), &dw.w[1], &*h1, h2)
            .expect("gemm 2");
    }
    launch(h2, &dw.b[1], H2, 1);
    unsafe {
        blas.gemm(gemm_cfg(2, batch), &dw.w[2], &*h2, y)
            .expect("gemm 3");
    }
    launch(y, &dw.b[2], OUT, 0);
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
