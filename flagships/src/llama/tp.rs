//! The decoder step split over the GPUs of one machine (tensor parallel, Megatron's split): the
//! same `cuda_graph!` program ([`TpStepF32`], [`TpStepBf16`]) built once per rank, each on its
//! communicator's device, with the shard sizes written as expressions of `world`.
//!
//! ```text
//! emb -> stack[ qkv -> attn -> o_proj -> o_sum -> o_add -> mlp_up -> mlp_down -> d_sum -> d_add ]
//!        x layers -> head -> pick          carry: d_add (layer l) -> qkv (layer l + 1)
//! ```
//!
//! Rank `r` of `world` holds `heads / world` query heads and `kv_heads / world` KV heads (their
//! rows of the query, key and value projections, their part of the KV cache, and the columns
//! of the output projection that take them), and `ffn / world` of the MLP's inner width (those
//! gate and up rows, and the columns of the down projection that take them): see
//! [`Weights::upload_shard`]. Each rank's output and down projections give a partial sum of the
//! whole projection in float (`matvec_part` in `kernels.cu`), an NCCL all-reduce (`o_sum`,
//! `d_sum`, nodes of the graph) adds them up on every rank, and `add_rounded` puts the sum,
//! rounded once as the whole product would be, onto every rank's residual `x`. The
//! embedding, the norms, the head and the greedy pick are replicated: every rank computes the
//! same logits and picks the same token, so the ranks need no other exchange.
//!
//! The macro proves what makes this safe to run on several GPUs: the all-reduces of one layer
//! are ordered, and the carry edge orders layer `l`'s before layer `l + 1`'s, so every rank
//! issues them in one order; the layer count is the same on every rank (it does not use
//! `rank`). The single-GPU kernels sum each row of the output and down projections in two
//! halves and add them ([`part_split`]); each rank of two sums its half so, and the all-reduce
//! adds the two: on one GPU and on two, the step computes what the single-GPU step graph
//! ([`super::graph`]) computes, bit for bit. (On more, the sums are grouped otherwise and agree
//! to rounding.)
//!
//! The whole generation split over ranks is [`super::tp_loop`].

use std::sync::Arc;
use std::time::Duration;

use cuda_graph::buffer::{Stack, StackMut};
use cuda_graph::comm::Communicator;
use cuda_graph::cuda_graph;
use cuda_graph::cudarc::driver::{CudaSlice, CudaStream};
use cuda_graph::exec::Ranks;
use cuda_graph::half::bf16;

use super::checkpoint::Tensors;
use super::config::LlamaConfig;
use super::decoder::Steps;
use super::device::{multiprocessors, shared_inputs, Element, Shape, State, Weights};
use super::either::{either_exec, on_either};
use super::error::LlamaError;
use super::graph::{attention_chunks, spread, ATTENTION_THREADS, CHUNK};

/// Where a rank's part of a row-split projection (`cols` of its columns, elements of
/// `elem_bytes`) cuts its sums in two (`matvec_part`'s and `gemm_part`'s `split`): on one rank
/// at the half, as the single-GPU kernels do (`halves_at` in `kernels.cu`); on two, not at
/// all, each rank summing the half that is its share. The all-reduce then adds the same two
/// sums the single-GPU kernels add, and the split changes no bit of the model.
pub fn part_split(cols: u32, world: u32, elem_bytes: u32) -> u32 {
    let n = 16 / elem_bytes.max(1);
    if world == 1 && (cols / 2).is_multiple_of(n) {
        cols / 2
    } else {
        cols
    }
}

macro_rules! tp_step_graph {
    ($(#[$doc:meta])* $name:ident, $t:ident) => {
        cuda_graph! {
            $(#[$doc])*
            #[programmatic]
            pub graph $name {
                source "src/llama/kernels.cu";
                kernel embed_t = embed<$t>;
                kernel qkv_rope_t = qkv_rope<$t>;
                kernel attention_t = attention<$t>;
                kernel matvec_part_t = matvec_part<$t>;
                kernel add_t = add_rounded<$t>;
                kernel gate_up_t = norm_gate_up<$t>;
                kernel head_t = norm_head<$t>;
                kernel argmax_step;

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

                // This rank's share of the model: its query and KV heads, its part of the
                // MLP's inner width (the rest of the sizes are the whole model's).
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
                param pos: u32;
                param counter: u32;
                param prompt_len: u32;
                param sms: u32;
                param elem_bytes: u32;

                emb = embed_t<<<hidden.div_ceil(256), 256>>>(
                    embed_w, ids, dpos, x, hidden, vocab, pos, counter, max_ctx);
                stack = repeat l in 0..layers {
                    qkv = qkv_rope_t<<<spread((heads + 2 * kv_heads) * (head_dim / 2), sms), 256, hidden * 4>>>(
                        x, attn_norm[l], wqkv[l], cos_t, sin_t, q, k_cache[l], v_cache[l], dpos,
                        pos, counter, max_ctx, hidden, heads, kv_heads, head_dim, eps);
                    attn = attention_t<<<(heads, attention_chunks(counter, pos, max_ctx), 1), ATTENTION_THREADS>>>(
                        q, k_cache[l], v_cache[l], part_o, part_ml, done, att, dpos, pos, counter,
                        max_ctx, heads, kv_heads, head_dim, max_ctx.div_ceil(CHUNK), scale);
                    // Each rank's part of the product, in float; the all-reduce adds them up,
                    // and the sum, rounded once, goes onto the residual.
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
                    // Layer l + 1 starts from what layer l left in `x`; on every rank, its
                    // all-reduces come after layer l's.
                    carry d_add -> qkv;
                }
                head = head_t<<<spread(vocab, sms), 256, hidden * 4>>>(
                    x, final_norm, head_w, logits, best, best_at, hidden, vocab, eps);
                pick = argmax_step<<<1, 1024>>>(
                    best, best_at, spread(vocab, sms), ids, dpos, pos, counter, prompt_len,
                    max_ctx);
                emb -> stack -> head -> pick;
            }
        }
    };
}

tp_step_graph! {
    /// One rank's decoder step of an `f32` model split over `world` ranks.
    TpStepF32, f32
}

tp_step_graph! {
    /// One rank's decoder step of a `bf16` model split over `world` ranks.
    TpStepBf16, bf16
}

/// One rank of a tensor-parallel decoder: its communicator, its share of the weights, its KV
/// cache and activations, and the stream its steps run on.
pub struct Rank<T> {
    /// The rank's communicator: its device, rank and world.
    pub comm: Communicator,
    /// The stream the rank's steps run on.
    pub stream: Arc<CudaStream>,
    /// The rank's share of the weights ([`Weights::upload_shard`]).
    pub weights: Weights<T>,
    /// The rank's KV cache and activations, sized for its share of the heads and the MLP.
    pub state: State<T>,
    /// This rank's part of a projection (float, not rounded), before the all-reduce.
    pub part: CudaSlice<f32>,
    /// The all-reduced projection, before it is rounded onto the residual.
    pub reduced: CudaSlice<f32>,
    /// The rank's vote on the host's request to stop a generation ([`super::tp_loop`]), then
    /// every rank's answer.
    pub vote: CudaSlice<u32>,
}

impl<T: Element> Rank<T> {
    /// Rank `comm.rank()`'s share of the model of `config` (whole shape `shape`), uploaded to
    /// its communicator's device.
    pub fn new(
        comm: Communicator,
        config: &LlamaConfig,
        tensors: &dyn Tensors,
        shape: &Shape,
    ) -> Result<Rank<T>, LlamaError> {
        let (rank, world) = (comm.rank() as usize, comm.world() as usize);
        let local = shape.shard(world)?;
        local.check_element::<T>()?;
        let stream = comm.context().new_stream()?;
        let weights = Weights::upload_shard(&stream, config, tensors, shape, rank, world)?;
        let state = State::new(&stream, &local)?;
        let part = stream.alloc_zeros(shape.hidden)?;
        let reduced = stream.alloc_zeros(shape.hidden)?;
        let vote = stream.alloc_zeros(1)?;
        stream.synchronize()?;
        Ok(Rank {
            comm,
            stream,
            weights,
            state,
            part,
            reduced,
            vote,
        })
    }
}

impl<T> Rank<T> {
    /// The rank split into what its step graph borrows (the communicator shared, the
    /// buffers mutably), its vote on a generation's stop, and its stream.
    pub(super) fn split(&mut self) -> (Borrowed<'_, T>, &mut CudaSlice<u32>, Arc<CudaStream>) {
        let Rank {
            comm,
            stream,
            weights,
            state,
            part,
            reduced,
            vote,
        } = self;
        (
            Borrowed {
                comm,
                weights,
                state,
                part,
                reduced,
            },
            vote,
            stream.clone(),
        )
    }
}

either_exec! {
    /// A rank's step graph, of either element type, executable.
    TpExec, TpStepF32Exec, TpStepBf16Exec
}

/// The buffers of one rank a step graph borrows.
#[doc(hidden)]
pub struct Borrowed<'a, T> {
    pub comm: &'a Communicator,
    pub weights: &'a Weights<T>,
    pub state: &'a mut State<T>,
    pub part: &'a mut CudaSlice<f32>,
    pub reduced: &'a mut CudaSlice<f32>,
}

/// Builds a rank's step graph over its buffers and makes it executable.
#[doc(hidden)]
pub trait TpElement: Element {
    fn tp_exec<'a>(shape: &Shape, r: Borrowed<'a, Self>) -> Result<TpExec<'a>, LlamaError>;
}

macro_rules! tp_element {
    ($t:ty, $graph:ident, $inputs:ident, $variant:ident) => {
        impl TpElement for $t {
            fn tp_exec<'a>(sh: &Shape, r: Borrowed<'a, $t>) -> Result<TpExec<'a>, LlamaError> {
                // The graph is built with this rank's share of the model.
                let local = sh.shard(r.comm.world() as usize)?;
                let ctx = r.comm.context().clone();
                let inputs = shared_inputs!($inputs, &ctx, &local, r.weights, r.state, $t, {
                    tp: r.comm,
                    part: r.part,
                    reduced: r.reduced,
                    pos: 0,
                    counter: 1,
                    prompt_len: 1,
                });
                let exec = $graph::build_from_source(&ctx, inputs)?.instantiate()?;
                Ok(TpExec::$variant(exec))
            }
        }
    };
}

tp_element!(f32, TpStepF32, TpStepF32Inputs, F32);
tp_element!(bf16, TpStepBf16, TpStepBf16Inputs, Bf16);

/// Runs `$body` with `$e` bound to a rank's executable graph, whichever its element type.
macro_rules! on {
    ($exec:expr, $e:ident => $body:expr) => {
        on_either!($exec, TpExec, $e => $body)
    };
}

/// The tensor-parallel decoder: every rank's step graph, executable, launched together. One
/// step launches each rank's graph on its stream, then waits for all of them while watching
/// NCCL's asynchronous errors (a rank that faults or never joins is an error after the
/// time-out, not a hang).
///
/// ```no_run
/// # fn demo(ckpt: &cuda_graph_flagships::llama::Checkpoint) -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use cuda_graph::comm::Communicator;
/// use cuda_graph::half::bf16;
/// use cuda_graph_flagships::llama::{tp, Shape, Steps};
/// let ctxs = vec![cuda_graph::context(0)?, cuda_graph::context(1)?];
/// let shape = Shape::new(&ckpt.config, 4096)?;
/// let mut ranks = Communicator::local(&ctxs, Duration::from_secs(60))?
///     .into_iter()
///     .map(|c| tp::Rank::<bf16>::new(c, &ckpt.config, ckpt, &shape))
///     .collect::<Result<Vec<_>, _>>()?;
/// let mut dec = tp::TpDecoder::new(&shape, &mut ranks)?;
/// let ids = dec.generate(&[1, 2, 3], 16, |t| { println!("{t}"); true })?;
/// # let _ = ids; Ok(()) }
/// ```
pub struct TpDecoder<'a> {
    ranks: Ranks<'a, TpExec<'a>>,
    shape: Shape,
    /// The position the next step decodes.
    pos: usize,
    timeout: Duration,
}

impl<'a> TpDecoder<'a> {
    /// Builds every rank's step graph (`shape` is the whole model's) and makes it executable.
    /// `ranks` are every rank of one communicator, in order (else an error).
    /// A rank's step waits at most a minute for its peers (see
    /// [`set_timeout`](Self::set_timeout)).
    pub fn new<T: TpElement>(
        shape: &Shape,
        ranks: &'a mut [Rank<T>],
    ) -> Result<TpDecoder<'a>, LlamaError> {
        let world = ranks.len();
        let mut execs = Vec::with_capacity(world);
        let mut comms = Vec::with_capacity(world);
        let mut streams = Vec::with_capacity(world);
        for r in ranks.iter_mut() {
            let (b, _, stream) = r.split();
            streams.push(stream);
            comms.push(b.comm);
            execs.push(T::tp_exec(shape, b)?);
        }
        Ok(TpDecoder {
            ranks: Ranks::new(execs, comms, streams)?,
            shape: shape.clone(),
            pos: 0,
            timeout: Duration::from_secs(60),
        })
    }

    /// The number of ranks.
    pub fn world(&self) -> usize {
        self.ranks.world()
    }

    /// How long a step waits for every rank before it gives up (the communicators are then
    /// aborted, and later steps are errors).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Every rank's logits of the last step, after a [`synchronize`](Steps::synchronize): the
    /// ranks agree exactly when their all-reduces do.
    pub fn logits_of_every_rank(&mut self) -> Result<Vec<Vec<f32>>, LlamaError> {
        let mut out = Vec::with_capacity(self.world());
        for r in 0..self.world() {
            let stream = self.ranks.stream(r).clone();
            out.push(on!(self.ranks.rank(r), e => stream.clone_dtoh(e.logits()?)?));
        }
        Ok(out)
    }
}

/// The steps of every rank together: tokens and logits are rank 0's (every rank picks the
/// same).
impl Steps for TpDecoder<'_> {
    fn shape(&self) -> &Shape {
        &self.shape
    }

    fn start(&mut self, ids: &[u32], prompt_len: usize) -> Result<(), LlamaError> {
        self.shape.check_prompt(ids, 0)?;
        for r in 0..self.world() {
            let stream = self.ranks.stream(r).clone();
            on!(self.ranks.rank(r), e => {
                stream.memcpy_htod(ids, &mut e.ids_mut()?.slice_mut(0..ids.len()))?;
                stream.memcpy_htod(&[0u32], &mut e.dpos_mut()?)?;
                e.set_prompt_len(prompt_len as u32)?;
            });
        }
        self.pos = 0;
        Ok(())
    }

    /// One launch on every rank.
    fn step(&mut self) -> Result<(), LlamaError> {
        self.ranks.launch()?;
        self.pos += 1;
        Ok(())
    }

    /// Waits for every rank, watching NCCL's asynchronous errors; after the time-out every
    /// communicator is aborted and the error says which rank and why.
    fn synchronize(&mut self) -> Result<(), LlamaError> {
        self.ranks.wait(self.timeout)?;
        Ok(())
    }

    fn stepped(&self) -> usize {
        self.pos
    }

    fn tokens(&mut self, from: usize, out: &mut [u32]) -> Result<(), LlamaError> {
        let stream = self.ranks.stream(0).clone();
        let n = out.len();
        on!(self.ranks.rank(0), e => stream.memcpy_dtoh(&e.ids()?.slice(from..from + n), out)?);
        Ok(())
    }

    fn logits(&mut self) -> Result<Vec<f32>, LlamaError> {
        let stream = self.ranks.stream(0).clone();
        Ok(on!(self.ranks.rank(0), e => stream.clone_dtoh(e.logits()?)?))
    }
}
