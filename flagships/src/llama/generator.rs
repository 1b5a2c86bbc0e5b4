//! A whole generation in one launch of the generation graph ([`super::loop_graph`]): the
//! [`Generator`]. The host copies the prompt in, launches once, and reads each token from
//! mapped host memory (the [`Ring`]) while the graph runs, so tokens are handed out as they
//! are made; it can ask the graph to stop before `max_new`.
//!
//! ```no_run
//! # fn demo(ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>) -> Result<(), Box<dyn std::error::Error>> {
//! use cuda_graph_flagships::llama::{Checkpoint, Generator, Prefill, Shape, State, Weights};
//! use cuda_graph::half::bf16;
//! let ckpt = Checkpoint::open("llama-dir")?;
//! let stream = ctx.default_stream();
//! let shape = Shape::new(&ckpt.config, 4096)?;
//! let weights = Weights::<bf16>::upload(&stream, &ckpt.config, &ckpt, &shape)?;
//! let mut state = State::new(&stream, &shape)?;
//! let mut prefill = Prefill::new(&stream, &shape, 1024)?;     // prompts of up to 1024 tokens
//! let ends = ckpt.config.eos_token_ids.clone();
//! let mut gen = Generator::new(ctx, &shape, &weights, &mut state, &mut prefill, &ends)?;
//! let ids = gen.generate(&[1, 2, 3], 128, |t| { println!("{t}"); true })?;
//! # let _ = ids; Ok(()) }
//! ```

use std::sync::Arc;
use std::time::Instant;

use cuda_graph::cudarc::driver::{sys, CudaContext, CudaStream, DriverError, PinnedHostSlice};

use super::device::{Element, Prefill, Shape, State, Weights, MAX_END_IDS};
use super::either::GenExec;
use super::error::LlamaError;

/// Set in a token's number on the generation's last token (`RING_LAST` in `kernels.cu`).
const RING_LAST: u32 = 0x8000_0000;

/// Page-locked host memory mapped into the device's address space, which the generation
/// graph's last kernel writes each token into: 8-byte words, word 0 the host's request to stop,
/// then one word a token (the token in the low half, its number from 1 in the high half, with
/// its top bit set on the last), written by one store, so the host never sees half of it.
pub struct Ring {
    _mem: PinnedHostSlice<u64>,
    host: *mut u64,
    device: u64,
    tokens: usize,
}

impl Ring {
    /// A ring for `tokens` tokens.
    pub fn new(ctx: &Arc<CudaContext>, tokens: usize) -> Result<Ring, LlamaError> {
        // SAFETY: the words are zeroed before each launch, before anything reads them.
        let mut mem = unsafe {
            ctx.alloc_pinned_with_flags::<u64>(1 + tokens, sys::CU_MEMHOSTALLOC_DEVICEMAP)
        }?;
        let host = mem.as_mut_ptr()?;
        let mut device: sys::CUdeviceptr = 0;
        // SAFETY: `host` is a live allocation made with DEVICEMAP in `ctx`, bound above.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0) }.result()?;
        let ring = Ring {
            _mem: mem,
            host,
            device,
            tokens,
        };
        ring.reset(tokens);
        Ok(ring)
    }

    /// The device's address of the ring.
    pub fn device_address(&self) -> u64 {
        self.device
    }

    fn word(&self, i: usize) -> u64 {
        debug_assert!(i <= self.tokens);
        // SAFETY: `i` is within the allocation; the device may write it at any time, so it is
        // read volatile (an aligned 8-byte read: whole).
        let v = unsafe { self.host.add(i).read_volatile() };
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        v
    }

    fn set(&self, i: usize, v: u64) {
        // SAFETY: as in `word`.
        unsafe { self.host.add(i).write_volatile(v) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
    }

    /// Zeroes the stop request and the first `tokens` token words (no launch may be running).
    pub(super) fn reset(&self, tokens: usize) {
        for i in 0..=tokens.min(self.tokens) {
            self.set(i, 0);
        }
    }

    /// Token `i` (from 0) and whether it is the last, once the device has written it.
    pub(super) fn token(&self, i: usize) -> Option<(u32, bool)> {
        if i >= self.tokens {
            return None;
        }
        let w = self.word(1 + i);
        let tag = (w >> 32) as u32;
        (tag & !RING_LAST == i as u32 + 1).then_some((w as u32, tag & RING_LAST != 0))
    }

    /// Asks the running loop to end after the step it is in.
    pub(super) fn stop(&self) {
        self.set(0, 1);
    }
}

/// Timings of one generation as the host saw the tokens arrive (see [`Generator::timed`]).
#[derive(Debug, Clone, Copy)]
pub struct Streamed {
    /// From the call to the first new token read by the host, milliseconds (the prompt's copy,
    /// the launch, the prefill and the first step).
    pub ttft_ms: f64,
    /// Mean time between two tokens read by the host, microseconds.
    pub inter_token_us: f64,
    /// Tokens after the first over the time from the first to the last (the decode rate).
    pub tokens_per_s: f64,
}

/// Greedy generation in one launch: the generation graph of one model, executable, and the
/// host's ring.
pub struct Generator<'a> {
    exec: GenExec<'a>,
    stream: Arc<CudaStream>,
    shape: Shape,
    ring: Ring,
    prefill_rows: usize,
    /// End ids the graph holds, and whether the loop stops at them.
    end_ids: usize,
    stop_at_ends: bool,
    /// The params as last set: rows, prompt length, max new tokens, end ids in use.
    set: Option<(u32, u32, u32, u32)>,
}

/// Sets on `$e`, a generation graph's executable, the params of `$want` (rows, prompt length,
/// max new tokens, end ids in use) that differ from `$last`'s (the params as last set, if
/// known): one driver call per node a changed param reaches, none for the others.
macro_rules! set_changed {
    ($e:expr, $last:expr, $want:expr) => {{
        let (last, want): (Option<(u32, u32, u32, u32)>, (u32, u32, u32, u32)) = ($last, $want);
        if last.map(|l| l.0) != Some(want.0) {
            $e.set_rows(want.0)?;
        }
        if last.map(|l| l.1) != Some(want.1) {
            $e.set_prompt_len(want.1)?;
        }
        if last.map(|l| l.2) != Some(want.2) {
            $e.set_max_new(want.2)?;
        }
        if last.map(|l| l.3) != Some(want.3) {
            $e.set_n_end(want.3)?;
        }
    }};
}

pub(super) use set_changed;

/// Runs `$body` with `$e` bound to the executable graph, whichever its element type.
macro_rules! on {
    ($self:expr, $e:ident => $body:expr) => {
        match &mut $self.exec {
            GenExec::F32($e) => $body,
            GenExec::Bf16($e) => $body,
        }
    };
}

impl<'a> Generator<'a> {
    /// Builds the generation graph over `weights`, `state` and `prefill`, which stops at any
    /// of `end_ids` (at most [`MAX_END_IDS`]), and makes it executable.
    pub fn new<T: Element>(
        ctx: &Arc<CudaContext>,
        shape: &Shape,
        weights: &'a Weights<T>,
        state: &'a mut State<T>,
        prefill: &'a mut Prefill<T>,
        end_ids: &[u32],
    ) -> Result<Generator<'a>, LlamaError> {
        if end_ids.len() > MAX_END_IDS {
            return Err(LlamaError::EndIds {
                count: end_ids.len(),
                max: MAX_END_IDS,
            });
        }
        let stream = ctx.default_stream();
        if !end_ids.is_empty() {
            stream.memcpy_htod(end_ids, &mut prefill.ends.slice_mut(0..end_ids.len()))?;
        }
        let ring = Ring::new(ctx, shape.max_ctx)?;
        let prefill_rows = prefill.rows;
        let exec = T::generation(ctx, shape, weights, state, prefill, ring.device_address())?;
        Ok(Generator {
            exec,
            stream,
            shape: shape.clone(),
            ring,
            prefill_rows,
            end_ids: end_ids.len(),
            stop_at_ends: true,
            set: None,
        })
    }

    /// The shape it was built with.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Whether the loop stops at the end ids (it does unless told otherwise).
    pub fn stop_at_end_ids(&mut self, on: bool) {
        self.stop_at_ends = on;
    }

    fn check(&self, prompt: &[u32], max_new: usize) -> Result<(), LlamaError> {
        check_prompt(&self.shape, self.prefill_rows, prompt, max_new)
    }

    /// Greedy generation of up to `max_new` tokens after `prompt`, in one launch: each token
    /// is handed to `on_token` as the host reads it (it returns `false` to stop the
    /// generation there); the loop also stops at an end id, which is the last token returned.
    /// Returns the new tokens.
    pub fn generate(
        &mut self,
        prompt: &[u32],
        max_new: usize,
        on_token: impl FnMut(u32) -> bool,
    ) -> Result<Vec<u32>, LlamaError> {
        Ok(self.run(prompt, max_new, on_token)?.0)
    }

    /// [`generate`](Self::generate) with every token taken, timed as the host sees the tokens
    /// arrive: see [`Streamed`].
    pub fn timed(
        &mut self,
        prompt: &[u32],
        max_new: usize,
    ) -> Result<(Vec<u32>, Streamed), LlamaError> {
        self.run(prompt, max_new, |_| true)
    }

    /// Profiling: leaves out of every later launch the decode loop's node `node` (`qkv`,
    /// `attn`, `o_proj`, `mlp_up` or `mlp_down`: in every layer; not `head`, which ends the
    /// loop),
    /// so that timing the generation without it shows what it costs inside the graph. The
    /// tokens are then wrong; a generator is made anew to decode again.
    pub fn disable(&mut self, node: &str) -> Result<(), LlamaError> {
        let layers = self.shape.layers;
        on!(self, e => {
            for l in 0..layers {
                match node {
                    "qkv" => e.qkv(l)?.disable()?,
                    "attn" => e.attn(l)?.disable()?,
                    "o_proj" => e.o_proj(l)?.disable()?,
                    "mlp_up" => e.mlp_up(l)?.disable()?,
                    "mlp_down" => e.mlp_down(l)?.disable()?,
                    _ => return Err(LlamaError::NoNode(node.to_owned())),
                }
            }
        });
        Ok(())
    }

    /// The logits after every prefix of `ids` (teacher forcing), each from one generation of
    /// one token (the prefix's prefill, then one step): row `i` is what the model predicts
    /// after `ids[..=i]`, `vocab` floats a row.
    pub fn teacher_forced(&mut self, ids: &[u32]) -> Result<Vec<f32>, LlamaError> {
        self.check(ids, 1)?;
        let mut out = Vec::with_capacity(ids.len() * self.shape.vocab);
        for i in 0..ids.len() {
            self.run(&ids[..=i], 1, |_| true)?;
            out.extend(self.logits()?);
        }
        Ok(out)
    }

    /// The logits of the last step (after a generation).
    pub fn logits(&mut self) -> Result<Vec<f32>, LlamaError> {
        let stream = self.stream.clone();
        Ok(on!(self, e => stream.clone_dtoh(e.logits()?)?))
    }

    /// Sets the params this generation needs that differ from the last one's.
    fn prepare(&mut self, prompt: &[u32], max_new: usize) -> Result<(), LlamaError> {
        let want = (
            (prompt.len() - 1) as u32,
            prompt.len() as u32,
            max_new as u32,
            if self.stop_at_ends {
                self.end_ids as u32
            } else {
                0
            },
        );
        let last = self.set;
        let stream = self.stream.clone();
        on!(self, e => {
            stream.memcpy_htod(prompt, &mut e.ids_mut()?.slice_mut(0..prompt.len()))?;
            set_changed!(e, last, want);
        });
        self.set = Some(want);
        Ok(())
    }

    fn run(
        &mut self,
        prompt: &[u32],
        max_new: usize,
        mut on_token: impl FnMut(u32) -> bool,
    ) -> Result<(Vec<u32>, Streamed), LlamaError> {
        self.check(prompt, max_new)?;
        let t0 = Instant::now();
        let mut out = Vec::with_capacity(max_new);
        let mut seen = Vec::with_capacity(max_new);
        if max_new > 0 {
            self.prepare(prompt, max_new)?;
            self.ring.reset(max_new);
            let stream = self.stream.clone();
            on!(self, e => e.launch(&stream)?);
            follow(
                &self.ring,
                max_new,
                &mut out,
                &mut seen,
                &mut on_token,
                &mut || finished(&stream),
            )?;
            on!(self, e => e.synchronize()?);
        }
        Ok((out, streamed(t0, &seen)))
    }
}

/// A prompt and a count of new tokens a generation graph of `shape` whose prefill holds
/// `prefill_rows` rows can take (else the error that says why).
pub(super) fn check_prompt(
    shape: &Shape,
    prefill_rows: usize,
    prompt: &[u32],
    max_new: usize,
) -> Result<(), LlamaError> {
    shape.check_prompt(prompt, max_new)?;
    if prompt.len() > prefill_rows + 1 {
        return Err(LlamaError::PromptRows {
            tokens: prompt.len(),
            max: prefill_rows + 1,
        });
    }
    Ok(())
}

/// The timings of a generation started at `t0` whose tokens reached the host at `seen`.
pub(super) fn streamed(t0: Instant, seen: &[Instant]) -> Streamed {
    let ms = |i: usize| seen.get(i).map_or(0.0, |t| (*t - t0).as_secs_f64());
    let n = seen.len();
    let span = ms(n.saturating_sub(1)) - ms(0);
    Streamed {
        ttft_ms: ms(0) * 1e3,
        inter_token_us: if n > 1 {
            span * 1e6 / (n - 1) as f64
        } else {
            0.0
        },
        tokens_per_s: if n > 1 && span > 0.0 {
            (n - 1) as f64 / span
        } else {
            0.0
        },
    }
}

/// Reads the tokens from `ring` as the device makes them until the loop ends, handing each to
/// `on_token` (and asking the device to stop when it returns `false`). `finished` says whether
/// the launch is over (a fault is its error), asked now and then while no token comes.
pub(super) fn follow(
    ring: &Ring,
    max_new: usize,
    out: &mut Vec<u32>,
    seen: &mut Vec<Instant>,
    on_token: &mut impl FnMut(u32) -> bool,
    finished: &mut dyn FnMut() -> Result<bool, LlamaError>,
) -> Result<(), LlamaError> {
    let mut polls = 0u32;
    while out.len() < max_new {
        if let Some((t, last)) = ring.token(out.len()) {
            out.push(t);
            seen.push(Instant::now());
            if !on_token(t) {
                // The loop ends after the step it is in; what it makes then is dropped.
                ring.stop();
                return Ok(());
            }
            if last {
                return Ok(());
            }
            continue;
        }
        polls = polls.wrapping_add(1);
        if polls.is_multiple_of(1024) && finished()? && ring.token(out.len()).is_none() {
            // The graph is done and wrote nothing more.
            return Ok(());
        }
        std::hint::spin_loop();
    }
    Ok(())
}

/// Whether the stream's work is done; a fault is its error.
fn finished(stream: &CudaStream) -> Result<bool, LlamaError> {
    // SAFETY: the stream is alive (borrowed).
    match unsafe { sys::cuStreamQuery(stream.cu_stream()) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => Err(LlamaError::Driver(DriverError(e))),
    }
}
