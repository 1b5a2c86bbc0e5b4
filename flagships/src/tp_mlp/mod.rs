//! A Megatron-style tensor-parallel MLP block, one graph per rank written once (SPMD), shared
//! by `examples/tp_mlp.rs`, `tests/tp_mlp.rs` and the workspace's `benches/tp_mlp.rs`:
//!
//! ```text
//! y = x + b2 + all_reduce_sum over ranks r of ( gelu(x W1_r^T + b1_r) W2_r^T )
//! ```
//!
//! The input `x` (`batch x HIDDEN`) is replicated; rank `r` holds rows `r S .. (r + 1) S` of
//! `W1` and `b1` (the first product column-sharded, `S = INTER / world`) and the same columns
//! of `W2` (the second row-sharded); the all-reduce sums the partial outputs. `world` and
//! `rank` in the graphs' expressions are the communicator's, so the shard sizes follow the
//! world size. Two programs of the same block:
//!
//! - [`TpMlpVec`], for batches up to [`VEC_BATCH`]: the projections are kernels of this crate
//!   that stream each weight once at the memory bandwidth (cuBLAS's SGEMMs read a batch of one
//!   at 80 to 90% of it on a rank's shard of two, a batch of 8 under half), with the bias and
//!   GELU done as each row finishes, rank 0's part carrying the residual and the output bias
//!   (so the all-reduce's sum is the block's output), and a programmatic edge between them;
//! - [`TpMlp`], for larger batches: two cuBLAS SGEMMs captured as nodes, the residual and the
//!   output bias added after the all-reduce.
//!
//! [`run`] builds the one that fits the batch on every rank and times steps.
//!
//! Weights and inputs follow a fixed formula ([`mlp::weight`](crate::mlp::weight),
//! [`mlp::input`](crate::mlp::input)), so PyTorch (`benches/pytorch_tp_mlp.py`) and the float64
//! CPU reference ([`reference_rows`]) compute the same thing.

mod cublas;
mod run;

pub use cublas::{down_cfg, gemm, up_cfg, warm_up, GemmWork};
pub use run::{inputs, run, vec_fits, vec_inputs, Outcome, Rank, RankSetup};

use std::sync::Arc;

use cuda_graph::cudarc::driver::{CudaSlice, CudaStream};
use cuda_graph::prelude::*;

use crate::mlp::{input, weight};

/// The model width.
pub const HIDDEN: u32 = 4096;
/// The MLP's inner width (over all ranks).
pub const INTER: u32 = 16384;
/// The largest batch [`TpMlpVec`] takes.
pub const VEC_BATCH: u32 = 8;

cuda_graph! {
    /// One rank's step of the block for a small batch: the new input read from pinned host
    /// memory at the address `from` (where the host writes it; the device reads it directly,
    /// so the first projection starts on a programmatic edge while the input crosses PCIe),
    /// the rank's two projections (bias and GELU in the first, the residual and the output
    /// bias in rank 0's second), the all-reduce of the parts. `vec_inputs` makes the inputs,
    /// `from` included.
    #[programmatic]
    pub graph TpMlpVec {
        source "kernels/tp_mlp.cu";
        kernel take_input(from: u64, x: &mut [f32], n: u32);
        kernel up_gelu(w: &[f32], x: &[f32], b: &[f32], h: &mut [f32], rows: u32, cols: u32, nb: u32);
        kernel down_part(w: &[f32], h: &[f32], y: &mut [f32], x: &[f32], b: &[f32], lead: u32, rows: u32, cols: u32, nb: u32);
        comm tp;
        buffer mut x: f32;
        buffer w1: f32;
        buffer b1: f32;
        buffer w2: f32;
        buffer b2: f32;
        buffer mut h: f32;
        buffer mut y: f32;
        param batch: u32;
        param from: u64;

        load = take_input<<<(batch * HIDDEN / 4).div_ceil(256), 256>>>(from, x, batch * HIDDEN);
        up = up_gelu<<<matvec_grid(INTER / world, batch), 256, matvec_shared(batch)>>>(
            w1, x, b1, h, INTER / world, HIDDEN, batch);
        down = down_part<<<matvec_grid(HIDDEN, batch), 256, matvec_shared(batch)>>>(
            w2, h, y, x, b2, (rank == 0) as u32, HIDDEN, INTER / world, batch);
        sum = all_reduce(y -> y, batch * HIDDEN, sum) on tp;
        load -> up -> down -> sum;
    }
}

cuda_graph! {
    /// One rank's step of the block: the new input from pinned host memory, the rank's two
    /// GEMMs (cuBLAS, captured), GELU, the all-reduce of the partial outputs, the residual and
    /// the output bias. (Folding the residual into rank 0's GEMM, as `TpMlpVec` folds it into
    /// its kernel, needs cuBLAS's `beta = 1`, for which it picks slower kernels: a batch of 32
    /// took 350 µs on each of two H100s instead of 273.)
    pub graph TpMlp {
        source "kernels/tp_mlp.cu";
        kernel bias_gelu(h: &mut [f32], b: &[f32], rows: u32, cols: u32);
        kernel residual_bias(y: &mut [f32], x: &[f32], b: &[f32], n: u32, cols: u32);
        comm tp;
        host_buffer mut x_host: f32;
        buffer mut x: f32;
        buffer w1: f32;
        buffer b1: f32;
        buffer w2: f32;
        buffer b2: f32;
        buffer mut h: f32;
        buffer mut y: f32;
        param batch: u32;
        work up;
        work down;

        load = memcpy(x, x_host);
        g1 = capture(up, reads: [x, w1], writes: [h]);
        act = bias_gelu<<<(batch * (INTER / world)).div_ceil(256), 256>>>(h, b1, batch, INTER / world);
        g2 = capture(down, reads: [h, w2], writes: [y]);
        sum = all_reduce(y -> y, batch * HIDDEN, sum) on tp;
        res = residual_bias<<<(batch * HIDDEN).div_ceil(256), 256>>>(y, x, b2, batch * HIDDEN, HIDDEN);
        load -> g1 -> act -> g2 -> sum -> res;
    }
}

/// Compiles the block's kernels (`kernels/tp_mlp.cu` and the header it includes) for `ctx`'s
/// device: the module `TpMlpVec::build` and `TpMlp::build` take.
pub fn compile(
    ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>,
) -> Result<cuda_graph::Module, cuda_graph::error::ModuleError> {
    cuda_graph::compile_with(ctx, TpMlpVec::SOURCE, &TpMlpVec::compile_options())
}

/// Rows of a weight a block of [`TpMlpVec`]'s projections takes for a batch of `batch` (8
/// warps of 2 rows, of 4 above a batch of 4: the table of `project_any` in the source).
pub fn matvec_rows_per_block(batch: u32) -> u32 {
    if batch <= 4 {
        16
    } else {
        32
    }
}

/// The grid of a [`TpMlpVec`] projection over `rows` weight rows.
pub fn matvec_grid(rows: u32, batch: u32) -> u32 {
    rows.div_ceil(matvec_rows_per_block(batch)).max(1)
}

/// The shared memory of a [`TpMlpVec`] projection: one tile of every input row (1024
/// columns up to a batch of 4, 512 above).
pub fn matvec_shared(batch: u32) -> u32 {
    let tile = if batch <= 4 { 1024 } else { 512 };
    batch * tile * 4
}

/// Elements of `W1` (`INTER x HIDDEN`, row-major), `b1`, `W2` (`HIDDEN x INTER`) and `b2`:
/// element `i` of each.
pub fn w1(i: usize) -> f32 {
    weight(0, i, HIDDEN)
}
/// See [`w1`].
pub fn b1(i: usize) -> f32 {
    weight(1, i, HIDDEN)
}
/// See [`w1`].
pub fn w2(i: usize) -> f32 {
    weight(2, i, INTER)
}
/// See [`w1`].
pub fn b2(i: usize) -> f32 {
    weight(3, i, INTER)
}

/// The inner width of a rank on `world` ranks, or why the world size does not divide it.
pub fn shard_width(world: u32) -> Result<u32, String> {
    if world == 0 || !INTER.is_multiple_of(world) {
        return Err(format!(
            "the inner width {INTER} does not split over {world} ranks; use a world size that divides it"
        ));
    }
    Ok(INTER / world)
}

/// Rank `rank`'s weights on the host: `w1` (`S x HIDDEN`), `b1` (`S`), `w2` (`HIDDEN x S`), and
/// the whole `b2`.
pub struct Shard {
    /// The rank's rows of `W1`, `S x HIDDEN` row-major.
    pub w1: Vec<f32>,
    /// The rank's entries of `b1`, `S` of them.
    pub b1: Vec<f32>,
    /// The rank's columns of `W2`, `HIDDEN x S` row-major.
    pub w2: Vec<f32>,
    /// The whole `b2`, `HIDDEN` entries.
    pub b2: Vec<f32>,
}

impl Shard {
    /// Rank `rank`'s shard on `world` ranks, or why `world` does not divide [`INTER`].
    pub fn new(rank: u32, world: u32) -> Result<Self, String> {
        let s = shard_width(world)? as usize;
        let (h, n) = (HIDDEN as usize, INTER as usize);
        let r0 = rank as usize * s;
        Ok(Shard {
            w1: (r0 * h..(r0 + s) * h).map(w1).collect(),
            b1: (r0..r0 + s).map(b1).collect(),
            w2: (0..h)
                .flat_map(|i| (r0..r0 + s).map(move |j| w2(i * n + j)))
                .collect(),
            b2: (0..h).map(b2).collect(),
        })
    }
}

/// A shard on the device.
pub struct DeviceShard {
    /// [`Shard::w1`] on the device.
    pub w1: CudaSlice<f32>,
    /// [`Shard::b1`] on the device.
    pub b1: CudaSlice<f32>,
    /// [`Shard::w2`] on the device.
    pub w2: CudaSlice<f32>,
    /// [`Shard::b2`] on the device.
    pub b2: CudaSlice<f32>,
}

impl DeviceShard {
    /// Copies `s` to the device.
    pub fn upload(stream: &Arc<CudaStream>, s: &Shard) -> Self {
        let up = |v: &Vec<f32>| stream.clone_htod(v).expect("upload");
        DeviceShard {
            w1: up(&s.w1),
            b1: up(&s.b1),
            w2: up(&s.w2),
            b2: up(&s.b2),
        }
    }
}

/// Input `step` of `batch` rows.
pub fn inputs_of(step: u32, batch: u32) -> Vec<f32> {
    (0..(batch * HIDDEN) as usize)
        .map(|i| input(step, i))
        .collect()
}

/// The whole block (every rank's shard) in float64 on the CPU, for rows `rows` of `x`
/// (`batch x HIDDEN`): each `HIDDEN` long.
pub fn reference_rows(x: &[f32], rows: &[usize]) -> Vec<Vec<f64>> {
    let (h, n) = (HIDDEN as usize, INTER as usize);
    let w1v: Vec<f64> = (0..n * h).map(|i| w1(i) as f64).collect();
    let w2v: Vec<f64> = (0..h * n).map(|i| w2(i) as f64).collect();
    rows.iter()
        .map(|&r| {
            let xr: Vec<f64> = x[r * h..(r + 1) * h].iter().map(|&v| v as f64).collect();
            let act: Vec<f64> = (0..n)
                .map(|j| {
                    let row = &w1v[j * h..(j + 1) * h];
                    let v = b1(j) as f64 + row.iter().zip(&xr).map(|(a, b)| a * b).sum::<f64>();
                    0.5 * v * (1.0 + (0.797_884_560_802_865_4 * (v + 0.044715 * v * v * v)).tanh())
                })
                .collect();
            (0..h)
                .map(|i| {
                    let row = &w2v[i * n..(i + 1) * n];
                    xr[i] + b2(i) as f64 + row.iter().zip(&act).map(|(a, b)| a * b).sum::<f64>()
                })
                .collect()
        })
        .collect()
}

/// The rows of a batch the float64 reference checks: all up to 8, else 8 spread over it
/// (the first and the last among them).
pub fn checked_rows(batch: u32) -> Vec<usize> {
    let b = batch as usize;
    if b <= 8 {
        return (0..b).collect();
    }
    (0..8).map(|k| k * (b - 1) / 7).collect()
}

/// The largest error of `y` (`batch x HIDDEN`) against the float64 reference on
/// [`checked_rows`], relative to the reference's largest magnitude.
pub fn max_rel_error(x: &[f32], y: &[f32], batch: u32) -> f64 {
    let rows = checked_rows(batch);
    let want = reference_rows(x, &rows);
    let h = HIDDEN as usize;
    let scale = want
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-6);
    rows.iter()
        .zip(&want)
        .flat_map(|(&r, w)| {
            y[r * h..(r + 1) * h].iter().zip(w).map(|(&g, &w)| {
                if g.is_finite() {
                    (g as f64 - w).abs() / scale
                } else {
                    f64::INFINITY
                }
            })
        })
        .fold(0.0, f64::max)
}
