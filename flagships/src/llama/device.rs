//! What the step graph reads and writes on the device: the sizes it is built with ([`Shape`]),
//! the element types it is made for ([`Element`]), the model's weights uploaded once from a
//! checkpoint ([`Weights`]), and the KV cache and activations of a step ([`State`]).

use std::sync::Arc;

use cuda_graph::buffer::{Stack, StackMut};
use cuda_graph::cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use cuda_graph::half::bf16;

use super::checkpoint::Tensors;
use super::config::{DType, LlamaConfig};
use super::either::{Exec, GenExec};
use super::error::LlamaError;
use super::graph::{StepBf16, StepBf16Inputs, StepF32, StepF32Inputs, CHUNK};
use super::loop_graph::{GenBf16, GenBf16Inputs, GenF32, GenF32Inputs};

/// The sizes the step graph is built with: the model's, and the cache's length.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Decoder layers.
    pub layers: usize,
    /// The hidden size.
    pub hidden: usize,
    /// Query heads.
    pub heads: usize,
    /// Key and value heads (grouped-query attention).
    pub kv_heads: usize,
    /// The size of a head.
    pub head_dim: usize,
    /// The MLP's inner size.
    pub ffn: usize,
    /// The vocabulary's size.
    pub vocab: usize,
    /// RMSNorm's epsilon.
    pub eps: f32,
    /// Positions the KV cache holds.
    pub max_ctx: usize,
}

impl Shape {
    /// The shape of `config` with a cache of `max_ctx` positions, checked against what the
    /// kernels support (16-byte rows, head size a multiple of 32 up to 128, KV heads dividing
    /// the query heads).
    pub fn new(config: &LlamaConfig, max_ctx: usize) -> Result<Shape, LlamaError> {
        let s = Shape {
            layers: config.num_hidden_layers,
            hidden: config.hidden_size,
            heads: config.num_attention_heads,
            kv_heads: config.num_key_value_heads,
            head_dim: config.head_dim,
            ffn: config.intermediate_size,
            vocab: config.vocab_size,
            eps: config.rms_norm_eps as f32,
            max_ctx,
        };
        let need = |ok: bool, what, value, need| {
            if ok {
                Ok(())
            } else {
                Err(LlamaError::Shape { what, value, need })
            }
        };
        need(
            s.hidden.is_multiple_of(8),
            "hidden size",
            s.hidden,
            "a multiple of 8",
        )?;
        need(
            s.ffn.is_multiple_of(8),
            "intermediate size",
            s.ffn,
            "a multiple of 8",
        )?;
        need(
            s.head_dim.is_multiple_of(32) && s.head_dim <= 128,
            "head size",
            s.head_dim,
            "a multiple of 32 up to 128",
        )?;
        need(
            s.kv_heads > 0 && s.heads.is_multiple_of(s.kv_heads),
            "number of KV heads",
            s.kv_heads,
            "at least 1, and dividing the number of query heads",
        )?;
        need(
            max_ctx >= 1 && max_ctx <= u32::MAX as usize / 2,
            "cache length",
            max_ctx,
            "at least 1",
        )?;
        Ok(s)
    }

    /// Rows of the fused query-key-value projection.
    pub fn qkv_rows(&self) -> usize {
        (self.heads + 2 * self.kv_heads) * self.head_dim
    }

    /// Whether the kernels take this shape with elements of `T`: the down projection keeps its
    /// input (`ffn` elements of `T`) in at most 48 KiB of shared memory.
    pub fn check_element<T: Element>(&self) -> Result<(), LlamaError> {
        if self.ffn * std::mem::size_of::<T>() > SHARED_BYTES {
            return Err(LlamaError::Shape {
                what: "intermediate size",
                value: self.ffn,
                need: "one that fits in 48 KiB of shared memory, where the down projection keeps its input (at most 24576 bf16 or 12288 f32 elements)",
            });
        }
        Ok(())
    }

    /// Checks a prompt and the room it needs: not empty, `prompt.len() + max_new` positions
    /// within the cache, every id within the vocabulary.
    pub fn check_prompt(&self, prompt: &[u32], max_new: usize) -> Result<(), LlamaError> {
        if prompt.is_empty() {
            return Err(LlamaError::EmptyPrompt);
        }
        if prompt.len() + max_new > self.max_ctx {
            return Err(LlamaError::TooLong {
                needed: prompt.len() + max_new,
                max_ctx: self.max_ctx,
            });
        }
        if let Some(&id) = prompt.iter().find(|&&id| id as usize >= self.vocab) {
            return Err(LlamaError::Token {
                id,
                vocab: self.vocab,
            });
        }
        Ok(())
    }

    /// The shape one rank of `world` holds in a tensor-parallel step: its share of the query
    /// heads, the KV heads and the MLP's inner width (the rest stays whole). Each must split
    /// evenly.
    pub fn shard(&self, world: usize) -> Result<Shape, LlamaError> {
        let split = |what, value: usize| {
            if world >= 1 && value.is_multiple_of(world) {
                Ok(value / world)
            } else {
                Err(LlamaError::Shape {
                    what,
                    value,
                    need: "a multiple of the number of ranks, so every rank holds an equal share",
                })
            }
        };
        let s = Shape {
            heads: split("number of query heads", self.heads)?,
            kv_heads: split("number of KV heads", self.kv_heads)?,
            ffn: split("intermediate size", self.ffn)?,
            ..self.clone()
        };
        if !s.ffn.is_multiple_of(8) {
            return Err(LlamaError::Shape {
                what: "intermediate size",
                value: self.ffn,
                need: "a multiple of 8 times the number of ranks (16-byte rows on each)",
            });
        }
        Ok(s)
    }

    /// Chunks of the attention's partial results per head.
    pub fn max_chunks(&self) -> usize {
        self.max_ctx.div_ceil(CHUNK as usize)
    }
}

/// Dynamic shared memory a kernel may use without asking the driver for more.
const SHARED_BYTES: usize = 48 * 1024;

/// The GPU's multiprocessors: the projection kernels' grids are made to fill them.
pub(crate) fn multiprocessors(ctx: &Arc<CudaContext>) -> Result<u32, LlamaError> {
    use cuda_graph::cudarc::driver::sys::CUdevice_attribute;
    let n = ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    Ok(n.max(1) as u32)
}

/// An element type the step graph is made for: `f32` or `bf16`.
pub trait Element:
    DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync + Unpin + 'static
{
    /// The checkpoint dtype it reads.
    const DTYPE: DType;
    /// From `f32`, rounded to nearest.
    fn from_f32(v: f32) -> Self;
    /// From its little-endian bytes.
    fn from_le(bytes: &[u8]) -> Self;
    /// Builds the step graph over buffers of this type and makes it executable.
    #[doc(hidden)]
    fn exec<'a>(
        ctx: &Arc<CudaContext>,
        shape: &Shape,
        w: &'a Weights<Self>,
        s: &'a mut State<Self>,
        counter: bool,
    ) -> Result<Exec<'a>, LlamaError>;
    /// Builds the generation graph over buffers of this type and makes it executable; `ring`
    /// is the device address of the host's ring.
    #[doc(hidden)]
    fn generation<'a>(
        ctx: &Arc<CudaContext>,
        shape: &Shape,
        w: &'a Weights<Self>,
        s: &'a mut State<Self>,
        p: &'a mut Prefill<Self>,
        ring: u64,
    ) -> Result<GenExec<'a>, LlamaError>;
}

/// The inputs every decoder graph shares, as fields of `$inputs` (the graph's inputs struct):
/// weights, cache and step activations, the model's sizes (`$sh`: a rank's share of them, for
/// a tensor-parallel step).
macro_rules! shared_inputs {
    ($inputs:ident, $ctx:expr, $sh:expr, $w:expr, $s:expr, $t:ty, { $($rest:tt)* }) => {{
        let (sh, w, s) = ($sh, $w, $s);
        let (e, layer_kv) = (sh.hidden, sh.max_ctx * sh.kv_heads * sh.head_dim);
        let u = |v: usize| v as u32;
        $inputs {
            embed_w: &w.embed,
            attn_norm: Stack::strided(&w.attn_norm, e),
            wqkv: Stack::strided(&w.wqkv, sh.qkv_rows() * e),
            wo: Stack::strided(&w.wo, e * sh.heads * sh.head_dim),
            mlp_norm: Stack::strided(&w.mlp_norm, e),
            wgu: Stack::strided(&w.wgu, 2 * sh.ffn * e),
            wdown: Stack::strided(&w.wdown, e * sh.ffn),
            final_norm: &w.final_norm,
            head_w: w.head.as_ref().unwrap_or(&w.embed),
            cos_t: &w.cos,
            sin_t: &w.sin,
            k_cache: StackMut::strided(&mut s.k_cache, layer_kv),
            v_cache: StackMut::strided(&mut s.v_cache, layer_kv),
            x: &mut s.x,
            q: &mut s.q,
            att: &mut s.att,
            h: &mut s.h,
            part_o: &mut s.part_o,
            part_ml: &mut s.part_ml,
            done: &mut s.done,
            logits: &mut s.logits,
            best: &mut s.best,
            best_at: &mut s.best_at,
            ids: &mut s.ids,
            dpos: &mut s.dpos,
            layers: u(sh.layers),
            hidden: u(sh.hidden),
            heads: u(sh.heads),
            kv_heads: u(sh.kv_heads),
            head_dim: u(sh.head_dim),
            ffn: u(sh.ffn),
            vocab: u(sh.vocab),
            eps: sh.eps,
            scale: (sh.head_dim as f64).powf(-0.5) as f32,
            max_ctx: u(sh.max_ctx),
            sms: multiprocessors($ctx)?,
            elem_bytes: u(std::mem::size_of::<$t>()),
            $($rest)*
        }
    }};
}

pub(crate) use shared_inputs;

macro_rules! element {
    ($t:ty, $dtype:expr, $graph:ident, $inputs:ident, $variant:ident, $gen:ident, $gen_inputs:ident,
     $from:expr, $le:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dtype;
            fn from_f32(v: f32) -> Self {
                let f: fn(f32) -> $t = $from;
                f(v)
            }
            fn from_le(b: &[u8]) -> Self {
                let f: fn(&[u8]) -> $t = $le;
                f(b)
            }
            fn exec<'a>(
                ctx: &Arc<CudaContext>,
                shape: &Shape,
                w: &'a Weights<Self>,
                s: &'a mut State<Self>,
                counter: bool,
            ) -> Result<Exec<'a>, LlamaError> {
                shape.check_element::<$t>()?;
                let inputs = shared_inputs!($inputs, ctx, shape, w, s, $t, {
                    pos: 0,
                    counter: u32::from(counter),
                    prompt_len: 1,
                });
                let exec = $graph::build_from_source(ctx, inputs)?.instantiate()?;
                Ok(Exec::$variant(exec))
            }
            fn generation<'a>(
                ctx: &Arc<CudaContext>,
                shape: &Shape,
                w: &'a Weights<Self>,
                s: &'a mut State<Self>,
                p: &'a mut Prefill<Self>,
                ring: u64,
            ) -> Result<GenExec<'a>, LlamaError> {
                shape.check_element::<$t>()?;
                let inputs = shared_inputs!($gen_inputs, ctx, shape, w, s, $t, {
                    ends: &p.ends,
                    xs: &mut p.xs,
                    ns: &mut p.ns,
                    qkvs: &mut p.qkvs,
                    atts: &mut p.atts,
                    hs: &mut p.hs,
                    acts: &mut p.acts,
                    rows: 0,
                    prompt_len: 1,
                    max_new: 1,
                    n_end: 0,
                    ring,
                });
                let exec = $gen::build_from_source(ctx, inputs)?.instantiate()?;
                Ok(GenExec::$variant(exec))
            }
        }
    };
}

element!(
    f32,
    DType::F32,
    StepF32,
    StepF32Inputs,
    F32,
    GenF32,
    GenF32Inputs,
    |v| v,
    |b| { f32::from_le_bytes([b[0], b[1], b[2], b[3]]) }
);
element!(
    bf16,
    DType::BF16,
    StepBf16,
    StepBf16Inputs,
    Bf16,
    GenBf16,
    GenBf16Inputs,
    bf16::from_f32,
    |b| { bf16::from_bits(u16::from_le_bytes([b[0], b[1]])) }
);

/// The model's weights on the device, every layer's of one kind in one buffer (`layers` equal
/// parts): the query, key and value projections stacked into one matrix, the gate and up
/// projections into another; and the rotary tables (cosine and sine of every position and
/// frequency, as transformers computes them in `f32`, stored as `T`).
pub struct Weights<T> {
    /// The token embeddings, `vocab x hidden` row-major (also the head when tied).
    pub embed: CudaSlice<T>,
    /// Every layer's RMSNorm weights before attention, `hidden` a layer.
    pub attn_norm: CudaSlice<T>,
    /// Every layer's query, key and value projections, one matrix of `qkv_rows() x hidden` a layer
    /// (the query heads' rows, then the keys', then the values').
    pub wqkv: CudaSlice<T>,
    /// Every layer's output projection, `hidden x heads * head_dim` row-major a layer.
    pub wo: CudaSlice<T>,
    /// Every layer's RMSNorm weights before the MLP, `hidden` a layer.
    pub mlp_norm: CudaSlice<T>,
    /// Every layer's gate projection rows over its up projection rows, `2 ffn x hidden` a layer.
    pub wgu: CudaSlice<T>,
    /// Every layer's down projection, `hidden x ffn` row-major a layer.
    pub wdown: CudaSlice<T>,
    /// The final RMSNorm's weights, `hidden`.
    pub final_norm: CudaSlice<T>,
    /// `None` when the head is the embedding (tied).
    pub head: Option<CudaSlice<T>>,
    /// The rotary cosines, `[position][head_dim / 2]` for `max_ctx` positions.
    pub cos: CudaSlice<T>,
    /// The rotary sines, laid out as [`cos`](Self::cos).
    pub sin: CudaSlice<T>,
}

/// The tensor `name`'s elements as `T`, checked against `shape` and `T`'s dtype.
fn host<T: Element>(t: &dyn Tensors, name: &str, shape: &[usize]) -> Result<Vec<T>, LlamaError> {
    let r = t.tensor(name)?;
    if r.dtype != T::DTYPE {
        return Err(LlamaError::DType {
            expected: T::DTYPE,
            found: r.dtype,
        });
    }
    r.check(shape, T::DTYPE)?;
    let size = std::mem::size_of::<T>();
    Ok(r.data.chunks_exact(size).map(T::from_le).collect())
}

/// Which share of a matrix `[rows, cols]` a rank of a tensor-parallel step holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// All of it.
    Whole,
    /// Rows `rank * rows / world ..` (the query, key and value heads; the gate and up rows).
    Rows,
    /// Columns `rank * cols / world ..` of every row (the output and down projections).
    Cols,
}

/// Rank `rank`'s share (`cut`) of `v`, a row-major `[rows, cols]` matrix, on `world` ranks.
fn cut<T: Copy>(v: Vec<T>, dims: &[usize], cut: Cut, rank: usize, world: usize) -> Vec<T> {
    let (rows, cols) = (dims[0], dims.get(1).copied().unwrap_or(1));
    match cut {
        _ if world == 1 => v,
        Cut::Whole => v,
        Cut::Rows => {
            let n = rows / world;
            v[rank * n * cols..(rank + 1) * n * cols].to_vec()
        }
        Cut::Cols => {
            let n = cols / world;
            v.chunks_exact(cols)
                .flat_map(|row| row[rank * n..(rank + 1) * n].iter().copied())
                .collect()
        }
    }
}

impl<T: Element> Weights<T> {
    /// Copies every tensor of `tensors` (a checkpoint, or weights in memory) to the device
    /// once, in the layout the step graph reads.
    pub fn upload(
        stream: &Arc<CudaStream>,
        config: &LlamaConfig,
        tensors: &dyn Tensors,
        shape: &Shape,
    ) -> Result<Weights<T>, LlamaError> {
        Self::upload_shard(stream, config, tensors, shape, 0, 1)
    }

    /// Rank `rank`'s share of the weights for a tensor-parallel step over `world` ranks
    /// ([`tp`](super::tp)): the query, key and value rows of its heads, the columns of the
    /// output projection that take them, the gate and up rows of its share of the MLP and the
    /// down projection's columns that take them; the norms, the embedding and the head whole.
    /// `shape` is the whole model's; `world` 1 is [`upload`](Self::upload).
    pub fn upload_shard(
        stream: &Arc<CudaStream>,
        config: &LlamaConfig,
        tensors: &dyn Tensors,
        shape: &Shape,
        rank: usize,
        world: usize,
    ) -> Result<Weights<T>, LlamaError> {
        let local = shape.shard(world)?;
        let (e, l) = (shape.hidden, shape.layers);
        let (f, qd, kvd) = (
            shape.ffn,
            shape.heads * shape.head_dim,
            shape.kv_heads * shape.head_dim,
        );
        let one = |name: &str, dims: &[usize]| -> Result<CudaSlice<T>, LlamaError> {
            Ok(stream.clone_htod(&host::<T>(tensors, name, dims)?)?)
        };
        // One buffer for every layer's tensors of a kind; `parts` are the tensors of one
        // layer (this rank's share of each), stacked.
        let layered =
            |per: usize, parts: &[(&str, Vec<usize>, Cut)]| -> Result<CudaSlice<T>, LlamaError> {
                let mut buf = stream.alloc_zeros::<T>(l * per)?;
                for layer in 0..l {
                    let mut off = layer * per;
                    for (suffix, dims, how) in parts {
                        let name = format!("model.layers.{layer}.{suffix}");
                        let v = cut(host::<T>(tensors, &name, dims)?, dims, *how, rank, world);
                        stream.memcpy_htod(&v, &mut buf.slice_mut(off..off + v.len()))?;
                        off += v.len();
                    }
                }
                Ok(buf)
            };
        let attn_norm = layered(e, &[("input_layernorm.weight", vec![e], Cut::Whole)])?;
        let wqkv = layered(
            local.qkv_rows() * e,
            &[
                ("self_attn.q_proj.weight", vec![qd, e], Cut::Rows),
                ("self_attn.k_proj.weight", vec![kvd, e], Cut::Rows),
                ("self_attn.v_proj.weight", vec![kvd, e], Cut::Rows),
            ],
        )?;
        let wo = layered(
            e * qd / world,
            &[("self_attn.o_proj.weight", vec![e, qd], Cut::Cols)],
        )?;
        let mlp_norm = layered(
            e,
            &[("post_attention_layernorm.weight", vec![e], Cut::Whole)],
        )?;
        let wgu = layered(
            2 * local.ffn * e,
            &[
                ("mlp.gate_proj.weight", vec![f, e], Cut::Rows),
                ("mlp.up_proj.weight", vec![f, e], Cut::Rows),
            ],
        )?;
        let wdown = layered(
            e * local.ffn,
            &[("mlp.down_proj.weight", vec![e, f], Cut::Cols)],
        )?;
        let embed = one("model.embed_tokens.weight", &[shape.vocab, e])?;
        let final_norm = one("model.norm.weight", &[e])?;
        let head = if config.tie_word_embeddings {
            None
        } else {
            Some(one("lm_head.weight", &[shape.vocab, e])?)
        };
        let (cos, sin) = rotary_tables::<T>(config, shape.max_ctx);
        Ok(Weights {
            embed,
            attn_norm,
            wqkv,
            wo,
            mlp_norm,
            wgu,
            wdown,
            final_norm,
            head,
            cos: stream.clone_htod(&cos)?,
            sin: stream.clone_htod(&sin)?,
        })
    }
}

/// The cosine and sine of `position * inv_freq[i]` for every position below `max_ctx` and
/// every frequency, as transformers computes them: the frequencies in `f32`, their product
/// with the position in `f32`, the cosine of that (here in `f64`, then rounded), stored as `T`.
pub fn rotary_tables<T: Element>(config: &LlamaConfig, max_ctx: usize) -> (Vec<T>, Vec<T>) {
    let inv = config.inv_freq_f32();
    let mut cos = Vec::with_capacity(max_ctx * inv.len());
    let mut sin = Vec::with_capacity(max_ctx * inv.len());
    for p in 0..max_ctx {
        for &f in &inv {
            let angle = f64::from(p as f32 * f);
            cos.push(T::from_f32(angle.cos() as f32));
            sin.push(T::from_f32(angle.sin() as f32));
        }
    }
    (cos, sin)
}

/// The KV cache and the activations of one step: what the step graph writes.
pub struct State<T> {
    /// Every layer's cached keys, `[position][kv head][head_dim]` over `max_ctx` positions a layer.
    pub k_cache: CudaSlice<T>,
    /// Every layer's cached values, laid out as [`k_cache`](Self::k_cache).
    pub v_cache: CudaSlice<T>,
    /// The hidden state (the residual stream) of the token being decoded, `hidden` elements.
    pub x: CudaSlice<T>,
    /// The query heads, rotated.
    pub q: CudaSlice<T>,
    /// The attention's output, `heads * head_dim` elements.
    pub att: CudaSlice<T>,
    /// The MLP's SwiGLU activations, `ffn` elements.
    pub h: CudaSlice<T>,
    /// Per query head and chunk of [`CHUNK`] positions, the chunk's unnormalised attention output
    /// (`head_dim` floats), merged when a head has several chunks.
    pub part_o: CudaSlice<f32>,
    /// Per query head and chunk, the chunk's softmax maximum and sum (2 floats).
    pub part_ml: CudaSlice<f32>,
    /// Per query head, the attention blocks done (0 between launches).
    pub done: CudaSlice<u32>,
    /// The head's logits, `vocab` floats.
    pub logits: CudaSlice<f32>,
    /// Per block of the head kernel, the largest of its logits (at most `vocab / 8` rounded up).
    pub best: CudaSlice<f32>,
    /// Per block of the head kernel, the index of its largest logit (the first on ties).
    pub best_at: CudaSlice<u32>,
    /// The tokens, position by position: the prompt, then what the steps pick.
    pub ids: CudaSlice<u32>,
    /// The position, when the device advances it.
    pub dpos: CudaSlice<u32>,
}

impl<T: Element> State<T> {
    /// Buffers for `shape`, zeroed.
    pub fn new(stream: &Arc<CudaStream>, shape: &Shape) -> Result<State<T>, LlamaError> {
        let kv = shape.layers * shape.max_ctx * shape.kv_heads * shape.head_dim;
        let parts = shape.heads * shape.max_chunks();
        Ok(State {
            k_cache: stream.alloc_zeros(kv)?,
            v_cache: stream.alloc_zeros(kv)?,
            x: stream.alloc_zeros(shape.hidden)?,
            q: stream.alloc_zeros(shape.heads * shape.head_dim)?,
            att: stream.alloc_zeros(shape.heads * shape.head_dim)?,
            h: stream.alloc_zeros(shape.ffn)?,
            part_o: stream.alloc_zeros(parts * shape.head_dim)?,
            part_ml: stream.alloc_zeros(parts * 2)?,
            done: stream.alloc_zeros(shape.heads)?,
            logits: stream.alloc_zeros(shape.vocab)?,
            // One pair a block of the head: at most one block for 8 rows (`spread`).
            best: stream.alloc_zeros(shape.vocab.div_ceil(8))?,
            best_at: stream.alloc_zeros(shape.vocab.div_ceil(8))?,
            ids: stream.alloc_zeros(shape.max_ctx)?,
            dpos: stream.alloc_zeros(1)?,
        })
    }
}

/// End ids the generation graph holds at most.
pub const MAX_END_IDS: usize = 16;

/// What the generation graph's prefill writes besides the cache: the activations of every
/// prompt row before the last (`rows` of them at most), and the end ids the loop stops at.
pub struct Prefill<T> {
    /// Rows it holds: prompts of up to `rows + 1` tokens.
    pub rows: usize,
    /// The hidden state of every row, `hidden` a row.
    pub xs: CudaSlice<T>,
    /// The RMSNorm of every row's hidden state, `hidden` a row.
    pub ns: CudaSlice<T>,
    /// The query, key and value projections of every row (the query heads rotated in place),
    /// `qkv_rows()` a row.
    pub qkvs: CudaSlice<T>,
    /// The attention output of every row, `heads * head_dim` a row.
    pub atts: CudaSlice<T>,
    /// The gate and up products, 2 `ffn` a row.
    pub hs: CudaSlice<T>,
    /// The SwiGLU activations of every row, `ffn` a row.
    pub acts: CudaSlice<T>,
    /// A rank's part of a projection of every row, in float, before the all-reduce (the
    /// generation split over ranks, [`super::tp_loop`]).
    pub parts: CudaSlice<f32>,
    /// [`MAX_END_IDS`] ids.
    pub ends: CudaSlice<u32>,
}

impl<T: Element> Prefill<T> {
    /// Buffers for prompts of up to `max_prompt` tokens (at most the cache's length), zeroed.
    pub fn new(
        stream: &Arc<CudaStream>,
        shape: &Shape,
        max_prompt: usize,
    ) -> Result<Prefill<T>, LlamaError> {
        let rows = max_prompt.clamp(1, shape.max_ctx) - 1;
        let r = rows.max(1);
        Ok(Prefill {
            rows,
            xs: stream.alloc_zeros(r * shape.hidden)?,
            ns: stream.alloc_zeros(r * shape.hidden)?,
            qkvs: stream.alloc_zeros(r * shape.qkv_rows())?,
            atts: stream.alloc_zeros(r * shape.heads * shape.head_dim)?,
            hs: stream.alloc_zeros(r * 2 * shape.ffn)?,
            acts: stream.alloc_zeros(r * shape.ffn)?,
            parts: stream.alloc_zeros(r * shape.hidden)?,
            ends: stream.alloc_zeros(MAX_END_IDS)?,
        })
    }
}
