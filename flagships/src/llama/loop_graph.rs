//! A whole generation as one `cuda_graph!` graph ([`GenF32`], [`GenBf16`]): the prefill of the
//! prompt, then a WHILE node that runs the decode step until the generation ends, all in one
//! launch. The host copies the prompt in, launches once, and reads the tokens from mapped host
//! memory while the graph runs ([`super::generator`]).
//!
//! ```text
//! begin -> fill: if prefix { emb_rows -> pre[ norm -> qkv -> rope -> attn -> o -> norm
//!                                             -> gate_up -> swiglu -> down ] x layers }
//!       -> run: while again { stack[ the decode step's layer ] x layers -> head -> pick }
//! ```
//!
//! - `begin` sets the decode position to the prompt's last token (`rows` = prompt length − 1),
//!   puts that token's embedding into `x`, and sets the `prefix` condition (the prefill runs
//!   when there are rows before it);
//! - `fill`, the prefill: every row before the last through every layer at once (matrix-matrix
//!   products over the rows, causal attention), which fills the KV cache at those positions;
//! - `run`, the decode loop: the layers of the step of [`super::graph`] with the position on
//!   the device, the LM head, then `pick`, the greedy pick. Its first iteration decodes the
//!   prompt's last token and gives the first new token; `pick` writes each token into the
//!   sequence (`ids`) and into the host's ring, puts its embedding into `x` for the next
//!   iteration, and ends the loop when `max_new` tokens are made, the token is one of the
//!   `n_end` end ids (`ends`), the host asked to stop (a word of the ring), or the cache is
//!   full.
//!
//! The attention grid covers the whole cache; its blocks past the position return at once.
//! Every edge the macro proves is programmatic (`#[programmatic]`), as in the step graph.

use cuda_graph::cuda_graph;
use cuda_graph::half::bf16;

pub use super::graph::{attention_chunks, spread, ATTENTION_THREADS, CHUNK};

/// Rows (and output columns) of a tile of the prefill's matrix-matrix product (`GM`, `GN` in
/// `prefill.cuh`).
pub const GEMM_TILE: u32 = 64;

macro_rules! generation_graph {
    ($(#[$doc:meta])* $name:ident, $t:ident) => {
        cuda_graph! {
            $(#[$doc])*
            #[programmatic]
            pub graph $name {
                source "src/llama/kernels.cu";
                kernel qkv_rope_t = qkv_rope<$t>;
                kernel attention_t = attention<$t>;
                kernel matvec_add_t = matvec_add<$t>;
                kernel gate_up_t = norm_gate_up<$t>;
                kernel embed_rows_t = embed_rows<$t>;
                kernel norm_rows_t = norm_rows<$t>;
                kernel gemm_t = gemm<$t>;
                kernel rope_rows_t = rope_rows<$t>;
                kernel causal_t = causal_attention<$t>;
                kernel swiglu_t = swiglu_rows<$t>;
                kernel begin_t = loop_begin<$t>;
                kernel head_t = norm_head<$t>;
                kernel pick_t = pick_next<$t>;

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
                buffer mut xs: $t;
                buffer mut ns: $t;
                buffer mut qkvs: $t;
                buffer mut atts: $t;
                buffer mut hs: $t;
                buffer mut acts: $t;

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
                param prompt_len: u32;
                param max_new: u32;
                param n_end: u32;
                param ring: u64;

                cond prefix;
                cond again = 1;

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
                        p_o = gemm_t<<<(hidden.div_ceil(GEMM_TILE), rows.max(1).div_ceil(GEMM_TILE), 1), 256>>>(
                            atts, wo[l], xs, rows, hidden, heads * head_dim, 1);
                        p_norm2 = norm_rows_t<<<rows.max(1), 256, hidden * 4>>>(
                            xs, mlp_norm[l], ns, hidden, rows, eps);
                        p_gu = gemm_t<<<((2 * ffn).div_ceil(GEMM_TILE), rows.max(1).div_ceil(GEMM_TILE), 1), 256>>>(
                            ns, wgu[l], hs, rows, 2 * ffn, hidden, 0);
                        p_act = swiglu_t<<<(rows * ffn).div_ceil(256).max(1), 256>>>(hs, acts, rows, ffn);
                        p_down = gemm_t<<<(hidden.div_ceil(GEMM_TILE), rows.max(1).div_ceil(GEMM_TILE), 1), 256>>>(
                            acts, wdown[l], xs, rows, hidden, ffn, 1);
                        p_norm -> p_qkv -> p_rope -> p_attn -> p_o -> p_norm2 -> p_gu -> p_act -> p_down;
                        carry p_down -> p_norm;
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
                        o_proj = matvec_add_t<<<spread(hidden, sms), 256, heads * head_dim * elem_bytes>>>(
                            wo[l], att, x, heads * head_dim, hidden);
                        mlp_up = gate_up_t<<<spread(ffn, sms), 256, hidden * 4>>>(
                            x, mlp_norm[l], wgu[l], h, hidden, ffn, eps);
                        mlp_down = matvec_add_t<<<spread(hidden, sms), 256, ffn * elem_bytes>>>(wdown[l], h, x, ffn, hidden);
                        qkv -> attn -> o_proj -> mlp_up -> mlp_down;
                        carry mlp_down -> qkv;
                    }
                    head = head_t<<<spread(vocab, sms), 256, hidden * 4>>>(
                        x, final_norm, head_w, logits, best, best_at, hidden, vocab, eps);
                    pick = pick_t<<<1, 1024>>>(
                        best, best_at, spread(vocab, sms), embed_w, x, ids, dpos, ends,
                        n_end, hidden, vocab, prompt_len, max_new, max_ctx, ring, again);
                    stack -> head -> pick;
                }
                begin -> fill -> run;
            }
        }
    };
}

generation_graph! {
    /// A whole generation of an `f32` model in one launch.
    GenF32, f32
}

generation_graph! {
    /// A whole generation of a `bf16` model in one launch.
    GenBf16, bf16
}
