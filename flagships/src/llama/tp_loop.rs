//! A whole generation in one launch on every GPU of a tensor-parallel split: the generation
//! graph of [`super::loop_graph`] with the shares and all-reduces of [`super::tp`]
//! ([`GenTpF32`], [`GenTpBf16`], one graph a rank), and the [`TpGenerator`] that launches it
//! on every rank once and reads rank 0's tokens from mapped host memory while it runs.
//!
//! ```text
//! begin -> fill: if prefix { emb_rows -> pre[ norm -> qkv -> rope -> attn -> o -> o_sum -> o_add
//!                                             -> norm -> gate_up -> swiglu -> down -> d_sum
//!                                             -> d_add ] x layers }
//!       -> run: while again { stack[ the tensor-parallel step's layer ] x layers
//!                             -> head, ask -> agree -> pick }
//! ```
//!
//! Collectives run inside both conditional bodies, which is safe only if every rank takes the
//! same branch, iteration after iteration: the conditions are declared agreed on the
//! communicator (`cond again on tp`), and they are:
//!
//! - `prefix` is set by `begin` from `rows`, a param the host sets alike on every rank;
//! - `again` is set by `pick`, from the token (every rank computes the same logits from the
//!   same all-reduced activations with the replicated head, and picks the same), the count of
//!   tokens, the end ids and the host's request to stop, which the host may set while the
//!   ranks are at different iterations: each rank reads its own ring's request into a vote
//!   (`ask`), and an all-reduce (`agree`, max) gives every rank the same answer before `pick`.
//!
//! As in the step split over ranks, each rank's part of the output and down projections stays
//! in float, the all-reduce adds the parts, and `add_rounded` puts the sum, rounded once, onto
//! the residual: the roundings of the product over every column, as transformers makes them.
//! The prefill's all-reduces are captured once, so their count is the prefill's capacity
//! (`cap_rows` rows of `hidden`), not the prompt's rows: rows past the prompt's are summed too
//! and never read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cuda_graph::buffer::{Stack, StackMut};
use cuda_graph::cuda_graph;
use cuda_graph::cudarc::driver::{sys, CudaSlice, CudaStream};
use cuda_graph::exec::Ranks;
use cuda_graph::half::bf16;

use super::device::{multiprocessors, shared_inputs, Prefill, Shape, MAX_END_IDS};
use super::either::{either_exec, on_either};
use super::error::LlamaError;
use super::generator::{check_prompt, follow, set_changed, streamed, Ring, Streamed};
use super::graph::{attention_chunks, spread, ATTENTION_THREADS, CHUNK};
use super::loop_graph::GEMM_TILE;
use super::tp::{self, part_split, Rank, TpElement};

macro_rules! tp_generation_graph {
    ($(#[$doc:meta])* $name:ident, $t:ident) => {
        cuda_graph! {
            $(#[$doc])*
            #[programmatic]
            pub graph $name {
                source "src/llama/kernels.cu";
                kernel qkv_rope_t = qkv_rope<$t>;
                kernel attention_t = attention<$t>;
                kernel matvec_part_t = matvec_part<$t>;
                kernel add_t = add_rounded<$t>;
                kernel gemm_part_t = gemm_part<$t>;
                kernel gate_up_t = norm_gate_up<$t>;
                kernel embed_rows_t = embed_rows<$t>;
                kernel norm_rows_t = norm_rows<$t>;
                kernel gemm_t = gemm<$t>;
                kernel rope_rows_t = rope_rows<$t>;
                kernel causal_t = causal_attention<$t>;
                kernel swiglu_t = swiglu_rows<$t>;
                kernel begin_t = loop_begin<$t>;
                kernel head_t = norm_head<$t>;
                kernel pick_t = pick_agreed<$t>;
                kernel stop_vote;

                comm tp;
                buffer embed_w: $t;
                buffer attn_norm[layers]: $t;
                buffer wqkv[layers]: $t;
                buffer wo[layers]: $t;
                buffer mlp_norm[layers]: $t;
                buffer wgu[layers]: $t;
                buffer wdown[layers]: $t;
                buffer final_norm: $t;
                buffer head_w: $t;
                buffer cos_t: $t;
                buffer sin_t: $t;
                buffer ends: u32;
                buffer mut k_cache[layers]: $t;
                buffer mut v_cache[layers]: $t;
                buffer mut x: $t;
                buffer mut part: f32;
                buffer mut reduced: f32;
                buffer mut q: $t;
                buffer mut att: $t;
                buffer mut h: $t;
                buffer mut part_o: f32;
                buffer mut part_ml: f32;
                buffer mut done: u32;
                buffer mut logits: f32;
                buffer mut best: f32;
                buffer mut best_at: u32;
                buffer mut ids: u32;
                buffer mut dpos: u32;
                buffer mut vote: u32;
                buffer mut xs: $t;
                buffer mut ns: $t;
                buffer mut qkvs: $t;
                buffer mut atts: $t;
                buffer mut hs: $t;
                buffer mut acts: $t;
                buffer mut parts: f32;

                // This rank's share of the model (the rest of the sizes are the whole model's).
                param layers: u32;
                param hidden: u32;
                param heads: u32;
                param kv_heads: u32;
                param head_dim: u32;
                param ffn: u32;
                param vocab: u32;
                param eps: f32;
                param scale: f32;
                param max_ctx: u32;
                param sms: u32;
                param elem_bytes: u32;
                param rows: u32;
                param cap_rows: u32;
                param prompt_len: u32;
                param max_new: u32;
                param n_end: u32;
                param ring: u64;

                // Both set alike on every rank (see the module's documentation).
                cond prefix on tp;
                cond again on tp = 1;

                begin = begin_t<<<hidden.div_ceil(256), 256>>>(
                    embed_w, ids, x, dpos, rows, hidden, vocab, prefix);
                fill = if prefix {
                    emb_rows = embed_rows_t<<<(hidden.div_ceil(256), rows.max(1), 1), 256>>>(
                        embed_w, ids, xs, rows, hidden, vocab);
                    pre = repeat l in 0..layers {
                        p_norm = norm_rows_t<<<rows.max(1), 256, hidden * 4>>>(
                            xs, attn_norm[l], ns, hidden, rows, eps);
                        p_qkv = gemm_t<<<(((heads + 2 * kv_heads) * head_dim).div_ceil(GEMM_TILE), rows.max(1).div_ceil(GEMM_TILE), 1), 256>>>(
                            ns, wqkv[l], qkvs, rows, (heads + 2 * kv_heads) * head_dim, hidden, 0);
                        p_rope = rope_rows_t<<<(rows * (heads + 2 * kv_heads) * (head_dim / 2)).div_ceil(256).max(1), 256>>>(
                            qkvs, cos_t, sin_t, k_cache[l], v_cache[l], rows, heads, kv_heads, head_dim);
                        p_attn = causal_t<<<(rows * heads).div_ceil(8).max(1), 256>>>(
                            qkvs, k_cache[l], v_cache[l], atts, rows, heads, kv_heads, head_dim, scale);
                        // Each rank's part of the product, in float; the all-reduce (in place)
                        // adds them up, and the sum, rounded once, goes onto the residual.
                        p_o = gemm_part_t<<<(hidden.div_ceil(GEMM_TILE), rows.max(1).div_ceil(GEMM_TILE), 1), 256>>>(
                            atts, wo[l], parts, rows, hidden, heads * head_dim,
                            part_split(heads * head_dim, world, elem_bytes));
                        p_osum = all_reduce(parts -> parts, cap_rows * hidden, sum) on tp;
                        p_oadd = add_t<<<(rows * hidden).div_ceil(256).max(1), 256>>>(xs, parts, rows * hidden);
                        p_norm2 = norm_rows_t<<<rows.max(1), 256, hidden * 4>>>(
                            xs, mlp_norm[l], ns, hidden, rows, eps);
                        p_gu = gemm_t<<<((2 * ffn).div_ceil(GEMM_TILE), rows.max(1).div_ceil(GEMM_TILE), 1), 256>>>(
                            ns, wgu[l], hs, rows, 2 * ffn, hidden, 0);
                        p_act = swiglu_t<<<(rows * ffn).div_ceil(256).max(1), 256>>>(hs, acts, rows, ffn);
                        p_down = gemm_part_t<<<(hidden.div_ceil(GEMM_TILE), rows.max(1).div_ceil(GEMM_TILE), 1), 256>>>(
                            acts, wdown[l], parts, rows, hidden, ffn, part_split(ffn, world, elem_bytes));
                        p_dsum = all_reduce(parts -> parts, cap_rows * hidden, sum) on tp;
                        p_dadd = add_t<<<(rows * hidden).div_ceil(256).max(1), 256>>>(xs, parts, rows * hidden);
                        p_norm -> p_qkv -> p_rope -> p_attn -> p_o -> p_osum -> p_oadd -> p_norm2
                            -> p_gu -> p_act -> p_down -> p_dsum -> p_dadd;
                        carry p_dadd -> p_norm;
                    }
                    emb_rows -> pre;
                }
                run = while again {
                    stack = repeat l in 0..layers {
                        qkv = qkv_rope_t<<<spread((heads + 2 * kv_heads) * (head_dim / 2), sms), 256, hidden * 4>>>(
                            x, attn_norm[l], wqkv[l], cos_t, sin_t, q, k_cache[l], v_cache[l], dpos,
                            0, 1, max_ctx, hidden, heads, kv_heads, head_dim, eps);
                        attn = attention_t<<<(heads, attention_chunks(1, 0, max_ctx), 1), ATTENTION_THREADS>>>(
                            q, k_cache[l], v_cache[l], part_o, part_ml, done, att, dpos, 0, 1,
                            max_ctx, heads, kv_heads, head_dim, max_ctx.div_ceil(CHUNK), scale);
                        o_proj = matvec_part_t<<<spread(hidden, sms), 256, heads * head_dim * elem_bytes>>>(
                            wo[l], att, part, heads * head_dim, hidden,
                            part_split(heads * head_dim, world, elem_bytes));
                        o_sum = all_reduce(part -> reduced, hidden, sum) on tp;
                        o_add = add_t<<<hidden.div_ceil(256), 256>>>(x, reduced, hidden);
                        mlp_up = gate_up_t<<<spread(ffn, sms), 256, hidden * 4>>>(
                            x, mlp_norm[l], wgu[l], h, hidden, ffn, eps);
                        mlp_down = matvec_part_t<<<spread(hidden, sms), 256, ffn * elem_bytes>>>(
                            wdown[l], h, part, ffn, hidden, part_split(ffn, world, elem_bytes));
                        d_sum = all_reduce(part -> reduced, hidden, sum) on tp;
                        d_add = add_t<<<hidden.div_ceil(256), 256>>>(x, reduced, hidden);
                        qkv -> attn -> o_proj -> o_sum -> o_add -> mlp_up -> mlp_down -> d_sum -> d_add;
                        carry d_add -> qkv;
                    }
                    head = head_t<<<spread(vocab, sms), 256, hidden * 4>>>(
                        x, final_norm, head_w, logits, best, best_at, hidden, vocab, eps);
                    ask = stop_vote<<<1, 32>>>(ring, vote);
                    agree = all_reduce(vote -> vote, 1, max) on tp;
                    pick = pick_t<<<1, 1024>>>(
                        best, best_at, spread(vocab, sms), embed_w, x, ids, dpos, ends,
                        n_end, hidden, vocab, prompt_len, max_new, max_ctx, vote, ring, again);
                    stack -> head -> pick;
                    stack -> ask -> agree -> pick;
                }
                begin -> fill -> run;
            }
        }
    };
}

tp_generation_graph! {
    /// One rank's whole generation of an `f32` model split over `world` ranks.
    GenTpF32, f32
}

tp_generation_graph! {
    /// One rank's whole generation of a `bf16` model split over `world` ranks.
    GenTpBf16, bf16
}

either_exec! {
    /// A rank's generation graph, of either element type, executable.
    TpGenExec, GenTpF32Exec, GenTpBf16Exec
}

/// The buffers of one rank its generation graph borrows: the step's, the stop vote, the
/// prefill's, and the device address of its ring.
#[doc(hidden)]
pub struct Borrowed<'a, T> {
    pub step: tp::Borrowed<'a, T>,
    pub vote: &'a mut CudaSlice<u32>,
    pub prefill: &'a mut Prefill<T>,
    pub ring: u64,
}

/// Builds a rank's generation graph over its buffers and makes it executable.
#[doc(hidden)]
pub trait TpGenElement: TpElement {
    fn tp_generation<'a>(shape: &Shape, b: Borrowed<'a, Self>)
        -> Result<TpGenExec<'a>, LlamaError>;
}

macro_rules! tp_gen_element {
    ($t:ty, $graph:ident, $inputs:ident, $variant:ident) => {
        impl TpGenElement for $t {
            fn tp_generation<'a>(
                sh: &Shape,
                b: Borrowed<'a, $t>,
            ) -> Result<TpGenExec<'a>, LlamaError> {
                let s = b.step;
                let local = sh.shard(s.comm.world() as usize)?;
                let ctx = s.comm.context().clone();
                let p = b.prefill;
                let inputs = shared_inputs!($inputs, &ctx, &local, s.weights, s.state, $t, {
                    tp: s.comm,
                    part: s.part,
                    reduced: s.reduced,
                    vote: b.vote,
                    ends: &p.ends,
                    xs: &mut p.xs,
                    ns: &mut p.ns,
                    qkvs: &mut p.qkvs,
                    atts: &mut p.atts,
                    hs: &mut p.hs,
                    acts: &mut p.acts,
                    parts: &mut p.parts,
                    rows: 0,
                    cap_rows: p.rows.max(1) as u32,
                    prompt_len: 1,
                    max_new: 1,
                    n_end: 0,
                    ring: b.ring,
                });
                let exec = $graph::build_from_source(&ctx, inputs)?.instantiate()?;
                Ok(TpGenExec::$variant(exec))
            }
        }
    };
}

tp_gen_element!(f32, GenTpF32, GenTpF32Inputs, F32);
tp_gen_element!(bf16, GenTpBf16, GenTpBf16Inputs, Bf16);

/// Runs `$body` with `$e` bound to a rank's executable graph, whichever its element type.
macro_rules! on {
    ($exec:expr, $e:ident => $body:expr) => {
        on_either!($exec, TpGenExec, $e => $body)
    };
}

/// Greedy generation in one launch on every rank: every rank's generation graph, executable,
/// launched together; rank 0's tokens are read from its ring while the graphs run.
///
/// ```no_run
/// # fn demo(ckpt: &cuda_graph_flagships::llama::Checkpoint) -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use cuda_graph::comm::Communicator;
/// use cuda_graph::half::bf16;
/// use cuda_graph_flagships::llama::{tp, tp_loop, Prefill, Shape};
/// let ctxs = vec![cuda_graph::context(0)?, cuda_graph::context(1)?];
/// let shape = Shape::new(&ckpt.config, 4096)?;
/// let mut ranks = Communicator::local(&ctxs, Duration::from_secs(60))?
///     .into_iter()
///     .map(|c| tp::Rank::<bf16>::new(c, &ckpt.config, ckpt, &shape))
///     .collect::<Result<Vec<_>, _>>()?;
/// // Prompts of up to 1024 tokens, each rank's prefill buffers for its share.
/// let mut prefills = ranks
///     .iter()
///     .map(|r| Prefill::new(&r.stream, &shape.shard(ranks.len())?, 1024))
///     .collect::<Result<Vec<_>, _>>()?;
/// let ends = ckpt.config.eos_token_ids.clone();
/// let mut gen = tp_loop::TpGenerator::new(&shape, &mut ranks, &mut prefills, &ends)?;
/// let ids = gen.generate(&[1, 2, 3], 128, |t| { println!("{t}"); true })?;
/// # let _ = ids; Ok(()) }
/// ```
pub struct TpGenerator<'a> {
    ranks: Ranks<'a, TpGenExec<'a>>,
    rings: Vec<Ring>,
    shape: Shape,
    prefill_rows: usize,
    end_ids: usize,
    stop_at_ends: bool,
    /// The params as last set: rows, prompt length, max new tokens, end ids in use.
    set: Option<(u32, u32, u32, u32)>,
    timeout: Duration,
}

impl<'a> TpGenerator<'a> {
    /// Builds every rank's generation graph (`shape` is the whole model's) over its weights,
    /// state and `prefills[r]` (made for the rank's share: [`Shape::shard`]), stopping at any
    /// of `end_ids`, and makes them executable. `ranks` are every rank of one communicator, in
    /// order (else an error). A generation waits at most a minute for a token from the ranks
    /// (see [`set_timeout`](Self::set_timeout)).
    pub fn new<T: TpGenElement>(
        shape: &Shape,
        ranks: &'a mut [Rank<T>],
        prefills: &'a mut [Prefill<T>],
        end_ids: &[u32],
    ) -> Result<TpGenerator<'a>, LlamaError> {
        if end_ids.len() > MAX_END_IDS {
            return Err(LlamaError::EndIds {
                count: end_ids.len(),
                max: MAX_END_IDS,
            });
        }
        let world = ranks.len();
        if prefills.len() != world {
            return Err(cuda_graph::error::CommError::Invalid {
                why: format!(
                    "{} prefills for {world} ranks; give one a rank",
                    prefills.len()
                ),
            }
            .into());
        }
        let prefill_rows = prefills.iter().map(|p| p.rows).min().unwrap_or(0);
        let (mut execs, mut comms, mut streams, mut rings) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (r, p) in ranks.iter_mut().zip(prefills.iter_mut()) {
            let (step, vote, stream) = r.split();
            let comm = step.comm;
            if !end_ids.is_empty() {
                stream.memcpy_htod(end_ids, &mut p.ends.slice_mut(0..end_ids.len()))?;
            }
            let ring = Ring::new(comm.context(), shape.max_ctx)?;
            execs.push(T::tp_generation(
                shape,
                Borrowed {
                    step,
                    vote,
                    prefill: p,
                    ring: ring.device_address(),
                },
            )?);
            comms.push(comm);
            streams.push(stream);
            rings.push(ring);
        }
        Ok(TpGenerator {
            ranks: Ranks::new(execs, comms, streams)?,
            rings,
            shape: shape.clone(),
            prefill_rows,
            end_ids: end_ids.len(),
            stop_at_ends: true,
            set: None,
            timeout: Duration::from_secs(60),
        })
    }
}

impl TpGenerator<'_> {
    /// The number of ranks.
    pub fn world(&self) -> usize {
        self.ranks.world()
    }

    /// The (whole) model's shape it was built with.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// How long a generation may take on the ranks before it is given up (every communicator
    /// is then aborted, and later generations are errors).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Whether the loop stops at the end ids (it does unless told otherwise).
    pub fn stop_at_end_ids(&mut self, on: bool) {
        self.stop_at_ends = on;
    }

    fn check(&self, prompt: &[u32], max_new: usize) -> Result<(), LlamaError> {
        check_prompt(&self.shape, self.prefill_rows, prompt, max_new)
    }

    /// Greedy generation of up to `max_new` tokens after `prompt`, in one launch on every
    /// rank: each token is handed to `on_token` as the host reads it from rank 0 (it returns
    /// `false` to stop the generation there: every rank stops after the same step); the loop
    /// also stops at an end id, which is the last token returned. Returns the new tokens.
    pub fn generate(
        &mut self,
        prompt: &[u32],
        max_new: usize,
        on_token: impl FnMut(u32) -> bool,
    ) -> Result<Vec<u32>, LlamaError> {
        Ok(self.run(prompt, max_new, on_token)?.0)
    }

    /// [`generate`](Self::generate) with every token taken, timed as the host sees the tokens
    /// arrive.
    pub fn timed(
        &mut self,
        prompt: &[u32],
        max_new: usize,
    ) -> Result<(Vec<u32>, Streamed), LlamaError> {
        self.run(prompt, max_new, |_| true)
    }

    /// The logits after every prefix of `ids` (teacher forcing), each from one generation of
    /// one token: row `i` is what the model predicts after `ids[..=i]`, `vocab` floats a row.
    pub fn teacher_forced(&mut self, ids: &[u32]) -> Result<Vec<f32>, LlamaError> {
        self.check(ids, 1)?;
        let mut out = Vec::with_capacity(ids.len() * self.shape.vocab);
        for i in 0..ids.len() {
            self.run(&ids[..=i], 1, |_| true)?;
            out.extend(self.logits()?);
        }
        Ok(out)
    }

    /// Rank 0's logits of the last step (after a generation; every rank computes the same).
    pub fn logits(&mut self) -> Result<Vec<f32>, LlamaError> {
        let stream = self.ranks.stream(0).clone();
        Ok(on!(self.ranks.rank(0), e => stream.clone_dtoh(e.logits()?)?))
    }

    /// Copies the prompt to every rank and sets the params that differ from the last
    /// generation's.
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
        for r in 0..self.world() {
            let stream = self.ranks.stream(r).clone();
            on!(self.ranks.rank(r), e => {
                stream.memcpy_htod(prompt, &mut e.ids_mut()?.slice_mut(0..prompt.len()))?;
                set_changed!(e, last, want);
            });
        }
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
            // A failed setter leaves the params unknown: set them all next time.
            let prepared = self.prepare(prompt, max_new);
            if prepared.is_err() {
                self.set = None;
            }
            prepared?;
            for ring in &self.rings {
                ring.reset(max_new);
            }
            self.ranks.launch()?;
            let streams: Vec<Arc<CudaStream>> = (0..self.world())
                .map(|r| self.ranks.stream(r).clone())
                .collect();
            let deadline = t0 + self.timeout;
            // Rank 0's ring is read; a request to stop written there reaches every rank
            // through the vote's all-reduce.
            follow(
                &self.rings[0],
                max_new,
                &mut out,
                &mut seen,
                &mut on_token,
                &mut || Ok(over(&streams) || Instant::now() >= deadline),
            )?;
            self.ranks
                .wait(deadline.saturating_duration_since(Instant::now()))?;
        }
        Ok((out, streamed(t0, &seen)))
    }
}

/// Whether following rank 0's tokens is over: its launch finished, or a rank's device failed
/// (the wait that comes next says which and aborts the others).
fn over(streams: &[Arc<CudaStream>]) -> bool {
    let state = |s: &Arc<CudaStream>| {
        // SAFETY: the stream is alive (borrowed).
        unsafe { sys::cuStreamQuery(s.cu_stream()) }
    };
    state(&streams[0]) != sys::CUresult::CUDA_ERROR_NOT_READY
        || streams[1..].iter().any(|s| {
            !matches!(
                state(s),
                sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_NOT_READY
            )
        })
}
