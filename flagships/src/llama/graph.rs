//! The decoder step as a `cuda_graph!` graph: one token through every layer, written once as a
//! repeat block, for `f32` and `bf16` models ([`StepF32`], [`StepBf16`]: the same graph over
//! another element type).
//!
//! ```text
//! emb -> stack[ qkv -> attn -> o_proj -> mlp_up -> mlp_down ] x layers -> head -> pick
//!               carry: mlp_down (layer l) -> qkv (layer l + 1)
//! ```
//!
//! - `emb`: the embedding of the token at the position;
//! - `qkv`: RMSNorm fused into the query, key and value projections (one matrix), the rotary
//!   embedding of the query and key heads, the key and value heads written into the layer's
//!   cache at the position;
//! - `attn`: grouped-query attention over the `pos + 1` positions so far, a block for each
//!   query head and chunk of [`CHUNK`] positions (with more than one chunk, the head's last
//!   block to finish merges them);
//! - `o_proj`, `mlp_down`: a projection and the residual add;
//! - `mlp_up`: RMSNorm fused into the gate and up projections and SwiGLU;
//! - `head`, `pick`: the final RMSNorm fused into the LM head, then the greedy argmax, written
//!   as the next token into `ids` (unless that position holds the prompt).
//!
//! Weights of all layers are stacks (`buffer wqkv[layers]: T;`), bound as one buffer per kind
//! of weight, cut into equal parts ([`Stack::strided`](cuda_graph::buffer::Stack::strided)).
//!
//! The edges between kernels are programmatic (`#[programmatic]` on the graph): a kernel's
//! blocks start while its predecessor's last blocks run. Each projection kernel loads its
//! first weights, then waits for its predecessor (`griddepcontrol.wait`), then reads the
//! activations; the macro proves from the source that nothing but weights (buffers declared
//! without `mut`, which no node writes) is read before the wait. The projection kernels' grids
//! are a few blocks an SM ([`spread`]), so the early blocks of the next kernel take only the
//! room the last blocks of this one leave.
//! The position is the param `pos` (set before each step) or, with `counter` = 1, the device's
//! `dpos`, which `pick` advances: then the steps need no host work between them.

use cuda_graph::cuda_graph;
use cuda_graph::half::bf16;

/// Positions one block of the attention kernel covers (`CHUNK` in `kernels.cu`).
pub const CHUNK: u32 = 128;

/// Threads of an attention block (`ATT_WARPS` warps in `kernels.cu`), each warp a share of
/// its chunk's positions.
pub const ATTENTION_THREADS: u32 = 128;

/// Blocks of 256 threads an SM that the projection kernels are given: as many as fit beside
/// each other (about 100 registers a thread), so every block is running from the start and
/// each warp streams its rows without a break.
pub const BLOCKS_PER_SM: u32 = 2;

/// The grid of a projection kernel over `items` (rows, or pairs of rows: a warp takes one at a
/// time, 8 warps a block) on a GPU of `sms` multiprocessors: one block for 8 items, at most
/// [`BLOCKS_PER_SM`] an SM (the warps then loop over the items).
pub fn spread(items: u32, sms: u32) -> u32 {
    items.div_ceil(8).min(sms.max(1) * BLOCKS_PER_SM).max(1)
}

/// The CUDA source of the kernels, and the header it includes (`stream.cuh`).
pub const KERNELS: &str = include_str!("kernels.cu");
/// The header of the kernels: loads, reductions, RMSNorm and weight streaming.
pub const STREAM: &str = include_str!("stream.cuh");

/// Chunks of the attention's grid: those of the `pos + 1` positions when the position is set
/// from the host, all of the cache when the device advances it (the blocks past the position
/// return at once).
pub fn attention_chunks(counter: u32, pos: u32, max_ctx: u32) -> u32 {
    if counter != 0 {
        max_ctx.div_ceil(CHUNK)
    } else {
        (pos + 1).min(max_ctx).div_ceil(CHUNK)
    }
}

macro_rules! step_graph {
    ($(#[$doc:meta])* $name:ident, $t:ident) => {
        cuda_graph! {
            $(#[$doc])*
            #[programmatic]
            pub graph $name {
                source "src/llama/kernels.cu";
                kernel embed_t = embed<$t>;
                kernel qkv_rope_t = qkv_rope<$t>;
                kernel attention_t = attention<$t>;
                kernel matvec_add_t = matvec_add<$t>;
                kernel gate_up_t = norm_gate_up<$t>;
                kernel head_t = norm_head<$t>;
                kernel argmax_step;

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
                    o_proj = matvec_add_t<<<spread(hidden, sms), 256, heads * head_dim * elem_bytes>>>(
                        wo[l], att, x, heads * head_dim, hidden);
                    mlp_up = gate_up_t<<<spread(ffn, sms), 256, hidden * 4>>>(
                        x, mlp_norm[l], wgu[l], h, hidden, ffn, eps);
                    mlp_down = matvec_add_t<<<spread(hidden, sms), 256, ffn * elem_bytes>>>(wdown[l], h, x, ffn, hidden);
                    qkv -> attn -> o_proj -> mlp_up -> mlp_down;
                    // Layer l + 1 starts from what layer l left in `x`.
                    carry mlp_down -> qkv;
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

step_graph! {
    /// One decoder step of an `f32` model.
    StepF32, f32
}

step_graph! {
    /// One decoder step of a `bf16` model.
    StepBf16, bf16
}
