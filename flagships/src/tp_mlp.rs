//! A Megatron-style tensor-parallel MLP block, one graph per rank written once (SPMD), shared
//! by `examples/tp_mlp.rs`, `tests/tp_mlp.rs` and the workspace's `benches/tp_mlp.rs`:
//!
//! ```text
//! y = x + b2 + all_reduce_sum over ranks r of ( gelu(x W1_r^T + b1_r) W2_r^T )
//! ```
//!
//! The input `x` (`batch x HIDDEN`) is replicated; rank `r` holds rows `r S .. (r + 1) S` of
//! `W1` and `b1` (the first GEMM column-sharded, `S = INTER / world`) and the same columns of
//! `W2` (the second GEMM row-sharded); the all-reduce sums the partial outputs, then the
//! residual and the output bias are added. [`TpMlp`] is the `cuda_graph!` graph: `world` in
//! its expressions is the communicator's size, so the shard sizes follow the world size.
//!
//! Weights and inputs follow a fixed formula ([`mlp::weight`](crate::mlp::weight),
//! [`mlp::input`](crate::mlp::input)), so PyTorch (`benches/pytorch_tp_mlp.py`) and the float64
//! CPU reference ([`reference_rows`]) compute the same thing.

use std::sync::Arc;

use cuda_graph::capture::{Capture, Region, RegionMut, Work, WorkResult};
use cuda_graph::comm::Communicator;
use cuda_graph::cudarc::cublas::sys::cublasOperation_t;
use cuda_graph::cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cuda_graph::cudarc::driver::{CudaSlice, CudaStream, DeviceSlice};
use cuda_graph::exec::Ranks;
use cuda_graph::prelude::*;

use crate::mlp::{input, weight};

/// The model width.
pub const HIDDEN: u32 = 4096;
/// The MLP's inner width (over all ranks).
pub const INTER: u32 = 16384;

cuda_graph! {
    /// One rank's step of the block: the new input from pinned host memory, the rank's two
    /// GEMMs (cuBLAS, captured), GELU, the all-reduce of the partial outputs, the residual.
    pub graph TpMlp {
        kernel bias_gelu(h: &mut [f32], b: &[f32], rows: u32, cols: u32);
        kernel residual_bias(y: &mut [f32], x: &[f32], b: &[f32], n: u32, cols: u32);
        comm tp;
        host_buffer mut x_host: f32;
        buffer mut x: f32;
        buffer w1: f32;
        buffer b1: f32;
        buffer w2: f32;
        buffer b2: f32;
        buffer mut y: f32;
        param batch: u32;
        temp h: [f32; batch * (INTER / world)];
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

/// The kernel source.
pub const SOURCE: &str = include_str!("../kernels/tp_mlp.cu");

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
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: Vec<f32>,
}

impl Shard {
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
    pub w1: CudaSlice<f32>,
    pub b1: CudaSlice<f32>,
    pub w2: CudaSlice<f32>,
    pub b2: CudaSlice<f32>,
}

impl DeviceShard {
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

/// One rank's buffers and works.
pub struct Rank {
    pub x_host: cuda_graph::cudarc::driver::PinnedHostSlice<f32>,
    pub x: CudaSlice<f32>,
    pub y: CudaSlice<f32>,
}

impl Rank {
    /// Buffers for `batch` rows (`y` poisoned with NaN, so an unwritten output fails).
    pub fn new(stream: &Arc<CudaStream>, batch: u32) -> Self {
        let n = (batch * HIDDEN) as usize;
        // SAFETY: f32 is valid for any bits; written before the graph reads it.
        let x_host = unsafe { stream.context().alloc_pinned::<f32>(n) }.expect("pinned");
        Rank {
            x_host,
            x: stream.alloc_zeros::<f32>(n).expect("alloc"),
            y: stream.clone_htod(&vec![f32::NAN; n]).expect("alloc"),
        }
    }
}

/// The inputs of a [`TpMlp`] graph.
#[allow(clippy::too_many_arguments)]
pub fn inputs<'a>(
    comm: &'a Communicator,
    rank: &'a mut Rank,
    dw: &'a DeviceShard,
    batch: u32,
    capture: &Arc<CudaStream>,
    up: &'a GemmWork<'a>,
    down: &'a GemmWork<'a>,
) -> TpMlpInputs<'a> {
    TpMlpInputs {
        tp: comm,
        x_host: rank.x_host.as_mut_slice().expect("pinned"),
        x: &mut rank.x,
        w1: &dw.w1,
        b1: &dw.b1,
        w2: &dw.w2,
        b2: &dw.b2,
        y: &mut rank.y,
        batch,
        up: Work::new(capture, &**up),
        down: Work::new(capture, &**down),
    }
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

/// A driver error of rank `rank` as an error of this crate's kind.
fn driver(
    call: &'static str,
    rank: u32,
) -> impl Fn(cuda_graph::cudarc::driver::DriverError) -> cuda_graph::Error {
    move |source| cuda_graph::error::CommError::Driver { call, rank, source }.into()
}

/// What one rank keeps across batches: its device, streams, cuBLAS handle and weights.
pub struct RankSetup {
    pub ctx: Arc<cuda_graph::cudarc::driver::CudaContext>,
    /// Where the steps are launched.
    pub stream: Arc<CudaStream>,
    /// Where the GEMMs are captured (the cuBLAS handle is bound to it).
    pub capture: Arc<CudaStream>,
    pub blas: CudaBlas,
    pub module: cuda_graph::Module,
    pub shard: DeviceShard,
    _workspace: CudaSlice<u8>,
}

impl RankSetup {
    /// Rank `comm.rank()`'s setup on its communicator's device.
    pub fn new(comm: &Communicator) -> Result<Self, cuda_graph::Error> {
        let ctx = comm.context().clone();
        let build = driver("cuStreamCreate", comm.rank());
        let stream = ctx.new_stream().map_err(&build)?;
        let capture = ctx.new_stream().map_err(&build)?;
        let blas = CudaBlas::new(capture.clone()).expect("cuBLAS handle");
        let workspace = warm_up(&capture, &blas);
        let module = cuda_graph::compile(&ctx, SOURCE)?;
        let shard = Shard::new(comm.rank(), comm.world())
            .map_err(|why| cuda_graph::error::CommError::Invalid { why })?;
        let shard = DeviceShard::upload(&stream, &shard);
        stream
            .synchronize()
            .map_err(driver("cuStreamSynchronize", comm.rank()))?;
        Ok(RankSetup {
            ctx,
            stream,
            capture,
            blas,
            module,
            shard,
            _workspace: workspace,
        })
    }
}

/// What [`run`] measured.
pub struct Outcome {
    /// The median time of a step (every rank: the new input written, run, waited for), in µs.
    pub median_us: f64,
    /// Each rank's median time of its graph on its device (events around its launch), in µs.
    pub device_us: Vec<f64>,
    /// Each rank's output of the last step (input `(steps - 1) % 2`).
    pub outputs: Vec<Vec<f32>>,
}

/// Builds every rank's graph for `batch` rows, runs `steps` steps (input `s % 2` at step `s`;
/// every rank launches, then all are waited for, with `timeout`), and times those after the
/// first `warm`.
pub fn run(
    ranks: &[RankSetup],
    comms: &[Communicator],
    batch: u32,
    steps: usize,
    warm: usize,
    timeout: std::time::Duration,
) -> Result<Outcome, cuda_graph::Error> {
    let world = comms.len() as u32;
    let shard = shard_width(world).map_err(|why| cuda_graph::error::CommError::Invalid { why })?;
    let inputs = [inputs_of(0, batch), inputs_of(1, batch)];
    let mut bufs: Vec<Rank> = ranks.iter().map(|r| Rank::new(&r.stream, batch)).collect();
    let works: Vec<(GemmWork<'_>, GemmWork<'_>)> = ranks
        .iter()
        .map(|r| {
            (
                gemm(&r.blas, up_cfg(batch, shard)),
                gemm(&r.blas, down_cfg(batch, shard)),
            )
        })
        .collect();
    let mut execs = Vec::new();
    for (((r, c), b), (up, down)) in ranks.iter().zip(comms).zip(&mut bufs).zip(&works) {
        let g = TpMlp::build(
            &r.module,
            self::inputs(c, b, &r.shard, batch, &r.capture, up, down),
        )?;
        execs.push(g.instantiate()?);
    }
    // Every rank's graph, launched as one step.
    let mut step = Ranks::new(
        execs,
        comms.iter().collect(),
        ranks.iter().map(|r| r.stream.clone()).collect(),
    )?;
    let mut times = Vec::with_capacity(steps);
    for s in 0..steps {
        let t = std::time::Instant::now();
        write_inputs(&mut step, &inputs[s % 2])?;
        step.launch()?;
        step.wait(timeout)?;
        if s >= warm {
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    // The same steps again with each rank's graph timed on its device (an event before and
    // after its launch): what the GPUs take, against the step the host sees above.
    let mut device_us = vec![Vec::new(); world as usize];
    let timing = Some(cuda_graph::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    // An even count, so the last step runs the timed loop's last input again.
    for s in steps..steps + 2 * warm.max(10) {
        write_inputs(&mut step, &inputs[s % 2])?;
        let mut starts = Vec::with_capacity(ranks.len());
        for (r, rs) in ranks.iter().enumerate() {
            starts.push(
                rs.stream
                    .record_event(timing)
                    .map_err(driver("cuEventRecord", r as u32))?,
            );
        }
        step.launch()?;
        let mut ends = Vec::with_capacity(ranks.len());
        for (r, rs) in ranks.iter().enumerate() {
            ends.push(
                rs.stream
                    .record_event(timing)
                    .map_err(driver("cuEventRecord", r as u32))?,
            );
        }
        step.wait(timeout)?;
        for (r, (a, b)) in starts.iter().zip(&ends).enumerate() {
            let ms = a
                .elapsed_ms(b)
                .map_err(driver("cuEventElapsedTime", r as u32))?;
            device_us[r].push(ms as f64 * 1e3);
        }
    }
    let outputs = step.each(|r, e| {
        ranks[r]
            .stream
            .clone_dtoh(e.y()?)
            .map_err(driver("cuMemcpyDtoH", r as u32))
    })?;
    Ok(Outcome {
        median_us: crate::harness::median(times),
        device_us: device_us.into_iter().map(crate::harness::median).collect(),
        outputs,
    })
}

/// Writes the step's new input into every rank's pinned host buffer. A large input (1 MiB and
/// more) is written by a thread a rank, as one process a GPU would: a copy of 2 MiB takes
/// about 200 µs, a thread tens.
fn write_inputs(
    step: &mut Ranks<'_, TpMlpExec<'_>>,
    input: &[f32],
) -> Result<(), cuda_graph::Error> {
    let mut hosts = Vec::with_capacity(step.world());
    for e in step.ranks_mut() {
        hosts.push(e.x_host_mut()?);
    }
    if std::mem::size_of_val(input) < 1 << 20 || hosts.len() == 1 {
        for h in hosts {
            h.copy_from_slice(input);
        }
        return Ok(());
    }
    std::thread::scope(|sc| {
        for h in hosts {
            sc.spawn(move || h.copy_from_slice(input));
        }
    });
    Ok(())
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
