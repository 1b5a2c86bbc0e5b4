//! One rank's buffers and set-up, and [`run`]: the block's graph built on every rank for a
//! batch ([`TpMlpVec`] up to [`VEC_BATCH`] rows, [`TpMlp`] above), then timed steps.
//!
//! A step is what a process a GPU does (PyTorch's peer): every rank writes the new input into
//! its pinned host buffer and launches its graph, then the step waits for every rank. One
//! process drives every GPU here, so each rank but the first has a thread of its own for the
//! whole run, waiting for the next step's signal: the writes and launches of the ranks go on
//! side by side, as the processes' would.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cuda_graph::capture::Work;
use cuda_graph::comm::{self, Communicator};
use cuda_graph::cudarc::cublas::CudaBlas;
use cuda_graph::cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice,
};
use cuda_graph::error::CommError;
use cuda_graph::exec::Ranks;
use cuda_graph::Error;

use super::cublas::{down_cfg, gemm, up_cfg, warm_up, GemmWork};
use super::{
    inputs_of, shard_width, DeviceShard, Shard, TpMlp, TpMlpExec, TpMlpInputs, TpMlpVec,
    TpMlpVecExec, TpMlpVecInputs, HIDDEN, VEC_BATCH,
};

/// One rank's buffers for a batch: the pinned input, the input, the inner activations (the
/// rank's share) and the output on the device.
pub struct Rank {
    /// The input in pinned host memory, where the host writes it.
    pub x_host: PinnedHostSlice<f32>,
    /// The input on the device.
    pub x: CudaSlice<f32>,
    /// The inner activations: this rank's share.
    pub h: CudaSlice<f32>,
    /// The output.
    pub y: CudaSlice<f32>,
}

impl Rank {
    /// Buffers for `batch` rows of a rank with `shard` inner columns (`h` and `y` poisoned
    /// with NaN, so an unwritten one fails).
    pub fn new(stream: &Arc<CudaStream>, batch: u32, shard: u32) -> Self {
        let n = (batch * HIDDEN) as usize;
        // SAFETY: f32 is valid for any bits; written before the graph reads it.
        let x_host = unsafe { stream.context().alloc_pinned::<f32>(n) }.expect("pinned");
        Rank {
            x_host,
            x: stream.alloc_zeros::<f32>(n).expect("alloc"),
            h: stream
                .clone_htod(&vec![f32::NAN; (batch * shard) as usize])
                .expect("alloc"),
            y: stream.clone_htod(&vec![f32::NAN; n]).expect("alloc"),
        }
    }
}

/// The inputs both programs share (the communicator, a rank's device buffers, its shard, the
/// batch), then those of one only.
macro_rules! block_inputs {
    ($ty:ident, $comm:expr, $rank:expr, $dw:expr, $batch:expr; $($field:ident: $value:expr),* $(,)?) => {
        $ty {
            tp: $comm,
            x: &mut $rank.x,
            w1: &$dw.w1,
            b1: &$dw.b1,
            w2: &$dw.w2,
            b2: &$dw.b2,
            h: &mut $rank.h,
            y: &mut $rank.y,
            batch: $batch,
            $($field: $value,)*
        }
    };
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
    block_inputs!(TpMlpInputs, comm, rank, dw, batch;
        x_host: rank.x_host.as_mut_slice().expect("pinned"),
        up: Work::new(capture, &**up),
        down: Work::new(capture, &**down),
    )
}

/// The inputs of a [`TpMlpVec`] graph and the pinned input the host writes before each launch
/// (the graph reads it where it is), or why the buffers do not fit it: its kernels read what
/// the shapes say, so a shard made for another world size, or buffers made for another batch,
/// are refused here rather than read past their ends.
pub fn vec_inputs<'a>(
    comm: &'a Communicator,
    rank: &'a mut Rank,
    dw: &'a DeviceShard,
    batch: u32,
) -> Result<(TpMlpVecInputs<'a>, &'a mut [f32]), Error> {
    let world = comm.world();
    let shard = shard_width(world).map_err(|why| CommError::Invalid { why })? as usize;
    let (h, b) = (HIDDEN as usize, batch as usize);
    if batch == 0 || batch > VEC_BATCH {
        return Err(CommError::Invalid {
            why: format!("TpMlpVec takes batches of 1 to {VEC_BATCH} rows, not {batch}; use TpMlp (or `run`, which picks)"),
        }
        .into());
    }
    if !vec_fits(world, batch) {
        return Err(CommError::Invalid {
            why: format!(
                "TpMlpVec's kernels take a rank's inner width in tiles of {} columns, and {shard} (over {world} ranks) is not a multiple; use TpMlp (or `run`, which picks)",
                super::matvec_shared(batch) / (4 * batch)
            ),
        }
        .into());
    }
    for (what, len, need) in [
        ("w1", dw.w1.len(), shard * h),
        ("b1", dw.b1.len(), shard),
        ("w2", dw.w2.len(), h * shard),
        ("b2", dw.b2.len(), h),
        ("x", rank.x.len(), b * h),
        ("h", rank.h.len(), b * shard),
        ("y", rank.y.len(), b * h),
        ("x_host", rank.x_host.len(), b * h),
    ] {
        if len != need {
            return Err(CommError::Invalid {
                why: format!(
                    "`{what}` holds {len} elements but rank {} of {world} needs {need} for a batch of {batch}; was it made for another world size or batch?",
                    comm.rank()
                ),
            }
            .into());
        }
    }
    // `take_input` reads the pinned input where the host writes it.
    let sync = driver("cuEventSynchronize", comm.rank());
    let from = rank.x_host.as_ptr().map_err(&sync)? as u64;
    let host = rank.x_host.as_mut_slice().map_err(&sync)?;
    let inputs = block_inputs!(TpMlpVecInputs, comm, rank, dw, batch; from: from);
    Ok((inputs, host))
}

/// Whether [`TpMlpVec`] takes `batch` rows on `world` ranks: a batch of 1 to [`VEC_BATCH`], and
/// a shard whose width is whole column tiles of its kernels (the width of a world size that
/// divides [`INTER`](super::INTER), up to 16 ranks).
pub fn vec_fits(world: u32, batch: u32) -> bool {
    let tile = super::matvec_shared(batch.max(1)) / (4 * batch.max(1));
    (1..=VEC_BATCH).contains(&batch)
        && shard_width(world).is_ok_and(|s| s.is_multiple_of(tile) && HIDDEN.is_multiple_of(tile))
}

/// A driver error of rank `rank` as an error of this crate's kind.
fn driver(call: &'static str, rank: u32) -> impl Fn(DriverError) -> Error {
    move |source| CommError::Driver { call, rank, source }.into()
}

/// What one rank keeps across batches: its device, streams, cuBLAS handle and weights.
pub struct RankSetup {
    /// The rank's device.
    pub ctx: Arc<CudaContext>,
    /// Where the steps are launched.
    pub stream: Arc<CudaStream>,
    /// Where the GEMMs are captured (the cuBLAS handle is bound to it).
    pub capture: Arc<CudaStream>,
    /// The cuBLAS handle the [`TpMlp`] GEMMs are captured with (bound to `capture`).
    pub blas: CudaBlas,
    /// The block's kernels compiled for the device ([`compile`](super::compile)).
    pub module: cuda_graph::Module,
    /// The rank's weights on the device.
    pub shard: DeviceShard,
    _workspace: CudaSlice<u8>,
}

impl RankSetup {
    /// Rank `comm.rank()`'s setup on its communicator's device.
    pub fn new(comm: &Communicator) -> Result<Self, Error> {
        let ctx = comm.context().clone();
        let build = driver("cuStreamCreate", comm.rank());
        let stream = ctx.new_stream().map_err(&build)?;
        let capture = ctx.new_stream().map_err(&build)?;
        let blas = CudaBlas::new(capture.clone()).expect("cuBLAS handle");
        let workspace = warm_up(&capture, &blas);
        let module = super::compile(&ctx)?;
        let shard =
            Shard::new(comm.rank(), comm.world()).map_err(|why| CommError::Invalid { why })?;
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
    /// Which program ran: `"TpMlpVec"` or `"TpMlp"`.
    pub program: &'static str,
}

/// Builds every rank's graph for `batch` rows ([`TpMlpVec`] where it fits ([`vec_fits`]: up
/// to [`VEC_BATCH`]), else [`TpMlp`]), runs `steps` steps (input `s % 2` at step `s`; every rank writes and launches,
/// then all are waited for, with `timeout`), and times those after the first `warm`.
pub fn run(
    ranks: &[RankSetup],
    comms: &[Communicator],
    batch: u32,
    steps: usize,
    warm: usize,
    timeout: Duration,
) -> Result<Outcome, Error> {
    let world = comms.len() as u32;
    let shard = shard_width(world).map_err(|why| CommError::Invalid { why })?;
    let mut bufs: Vec<Rank> = ranks
        .iter()
        .map(|r| Rank::new(&r.stream, batch, shard))
        .collect();
    let streams: Vec<Arc<CudaStream>> = ranks.iter().map(|r| r.stream.clone()).collect();
    let timing = Timing {
        comms,
        streams: &streams,
        inputs: [inputs_of(0, batch), inputs_of(1, batch)],
        steps,
        warm,
        timeout,
    };
    if vec_fits(world, batch) {
        let mut execs = Vec::new();
        for ((r, c), b) in ranks.iter().zip(comms).zip(&mut bufs) {
            let (inputs, input) = vec_inputs(c, b, &r.shard, batch)?;
            let exec = TpMlpVec::build(&r.module, inputs)?.instantiate()?;
            execs.push(VecStep { exec, input });
        }
        let step = Ranks::new(execs, comms.iter().collect(), streams.clone())?;
        return timing.measure(step, "TpMlpVec");
    }
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
            inputs(c, b, &r.shard, batch, &r.capture, up, down),
        )?;
        execs.push(g.instantiate()?);
    }
    let step = Ranks::new(execs, comms.iter().collect(), streams.clone())?;
    timing.measure(step, "TpMlp")
}

/// What both programs' executable graphs give a step: the pinned input, the output, a launch.
trait StepExec: Send {
    fn input(&mut self) -> Result<&mut [f32], Error>;
    fn output(&self) -> Result<&CudaSlice<f32>, Error>;
    fn go(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error>;
}

macro_rules! step_exec {
    ($($t:ident),*) => {$(
        impl StepExec for $t<'_> {
            fn input(&mut self) -> Result<&mut [f32], Error> {
                Ok(self.x_host_mut()?)
            }
            fn output(&self) -> Result<&CudaSlice<f32>, Error> {
                Ok(self.y()?)
            }
            fn go(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
                Ok(self.launch(stream)?)
            }
        }
    )*};
}
step_exec!(TpMlpExec);

/// A [`TpMlpVec`] graph and the pinned input it reads.
struct VecStep<'a> {
    exec: TpMlpVecExec<'a>,
    input: &'a mut [f32],
}

impl<'a> std::ops::Deref for VecStep<'a> {
    type Target = cuda_graph::GraphExec<'a>;
    fn deref(&self) -> &Self::Target {
        &self.exec
    }
}

impl std::ops::DerefMut for VecStep<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.exec
    }
}

impl StepExec for VecStep<'_> {
    fn input(&mut self) -> Result<&mut [f32], Error> {
        Ok(self.input)
    }
    fn output(&self) -> Result<&CudaSlice<f32>, Error> {
        Ok(self.exec.y()?)
    }
    fn go(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        Ok(self.exec.launch(stream)?)
    }
}

/// How [`run`] times its steps.
struct Timing<'c> {
    comms: &'c [Communicator],
    streams: &'c [Arc<CudaStream>],
    inputs: [Vec<f32>; 2],
    steps: usize,
    warm: usize,
    timeout: Duration,
}

/// Sets its flag when dropped: the step loop's helpers stop however the loop ends.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl Timing<'_> {
    fn measure<'a, E>(
        &self,
        mut step: Ranks<'_, E>,
        program: &'static str,
    ) -> Result<Outcome, Error>
    where
        E: StepExec + std::ops::DerefMut<Target = cuda_graph::GraphExec<'a>>,
    {
        let times = self.steps_on_threads(step.ranks_mut())?;
        let device_us = self.device_times(&mut step)?;
        let outputs = step.each(|r, e| {
            self.streams[r]
                .clone_dtoh(e.output()?)
                .map_err(driver("cuMemcpyDtoH", r as u32))
        })?;
        Ok(Outcome {
            median_us: crate::harness::median(times),
            device_us,
            outputs,
            program,
        })
    }

    /// The timed steps: rank 0 on this thread, every other rank on a thread of its own that
    /// writes its input and launches when the step's number changes.
    fn steps_on_threads<E: StepExec>(&self, execs: &mut [E]) -> Result<Vec<f64>, Error> {
        let started = AtomicUsize::new(0);
        let launched = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let failed: Mutex<Option<Error>> = Mutex::new(None);
        let helpers = execs.len() - 1;
        let pairs: Vec<(&Communicator, &Arc<CudaStream>)> =
            self.comms.iter().zip(self.streams).collect();
        std::thread::scope(|sc| {
            let _stop = StopOnDrop(&stop);
            let (first, rest) = execs.split_first_mut().expect("one rank at least");
            for (i, e) in rest.iter_mut().enumerate() {
                let (started, launched, stop, failed) = (&started, &launched, &stop, &failed);
                let stream = &self.streams[i + 1];
                let inputs = &self.inputs;
                sc.spawn(move || {
                    let mut done = 0;
                    loop {
                        let s = started.load(Ordering::Acquire);
                        if s == done {
                            if stop.load(Ordering::Acquire) {
                                return;
                            }
                            std::hint::spin_loop();
                            continue;
                        }
                        done = s;
                        let r = e
                            .input()
                            .map(|h| h.copy_from_slice(&inputs[(s - 1) % 2]))
                            .and_then(|()| e.go(stream));
                        if let Err(err) = r {
                            failed.lock().expect("not poisoned").get_or_insert(err);
                        }
                        launched.fetch_add(1, Ordering::AcqRel);
                    }
                });
            }
            let mut times = Vec::with_capacity(self.steps);
            for s in 0..self.steps {
                let t = Instant::now();
                started.store(s + 1, Ordering::Release);
                first.input()?.copy_from_slice(&self.inputs[s % 2]);
                first.go(&self.streams[0])?;
                while launched.load(Ordering::Acquire) < (s + 1) * helpers {
                    std::hint::spin_loop();
                }
                if let Some(e) = failed.lock().expect("not poisoned").take() {
                    return Err(e);
                }
                comm::wait_all(&pairs, self.timeout)?;
                if s >= self.warm {
                    times.push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
            Ok(times)
        })
    }

    /// The same steps again from one thread, each rank's graph timed on its device by an
    /// event before and after its launch: what the GPUs take, against the step the host sees.
    fn device_times<'a, E>(&self, step: &mut Ranks<'_, E>) -> Result<Vec<f64>, Error>
    where
        E: StepExec + std::ops::DerefMut<Target = cuda_graph::GraphExec<'a>>,
    {
        let world = self.streams.len();
        let mut device_us = vec![Vec::new(); world];
        let timing = Some(cuda_graph::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        // An even count, so the last step runs the timed loop's last input again.
        for s in self.steps..self.steps + 2 * self.warm.max(10) {
            step.each(|_, e| {
                e.input()?.copy_from_slice(&self.inputs[s % 2]);
                Ok(())
            })?;
            let mut starts = Vec::with_capacity(world);
            for (r, st) in self.streams.iter().enumerate() {
                starts.push(
                    st.record_event(timing)
                        .map_err(driver("cuEventRecord", r as u32))?,
                );
            }
            step.launch()?;
            let mut ends = Vec::with_capacity(world);
            for (r, st) in self.streams.iter().enumerate() {
                ends.push(
                    st.record_event(timing)
                        .map_err(driver("cuEventRecord", r as u32))?,
                );
            }
            step.wait(self.timeout)?;
            for (r, (a, b)) in starts.iter().zip(&ends).enumerate() {
                let ms = a
                    .elapsed_ms(b)
                    .map_err(driver("cuEventElapsedTime", r as u32))?;
                device_us[r].push(ms as f64 * 1e3);
            }
        }
        Ok(device_us.into_iter().map(crate::harness::median).collect())
    }
}
