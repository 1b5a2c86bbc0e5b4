//! A float64 CPU Llama decoder: the independent oracle the GPU decoder is tested against.
//!
//! [`Reference`] computes what Hugging Face's `LlamaForCausalLM` computes, one token at a time
//! with a KV cache, every weight widened to `f64` and every operation in `f64`. It is written to
//! be obviously right, not fast: plain loops, one function per piece of the math (the pieces are
//! public so tests can check each on inputs worked out by hand). Its weights take 8 bytes per
//! parameter: meant for the small models tests make, not for a real 8B checkpoint.

use super::checkpoint::{CheckpointError, Tensors};
use super::config::LlamaConfig;

/// Why [`Reference::step`] or [`Reference::greedy`] could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// A token id outside the vocabulary.
    #[error("token {token} is out of range: the vocabulary has {vocab_size} tokens")]
    TokenOutOfRange {
        /// The token given.
        token: u32,
        /// The model's vocabulary size.
        vocab_size: usize,
    },
    /// Every position of the KV cache holds a token.
    #[error(
        "the KV cache is full: all {max_positions} positions hold a token (call `reset`, or make \
         the reference with more positions)"
    )]
    CacheFull {
        /// Positions the reference was made with.
        max_positions: usize,
    },
    /// [`Reference::greedy`] was given no prompt.
    #[error("greedy decoding needs a prompt of at least one token")]
    EmptyPrompt,
}

/// `x / sqrt(mean(x²) + eps)`, times `weight` element by element (Llama's RMSNorm).
pub fn rms_norm(x: &[f64], weight: &[f64], eps: f64) -> Vec<f64> {
    let mean_square = x.iter().map(|v| v * v).sum::<f64>() / x.len().max(1) as f64;
    let inv_rms = 1.0 / (mean_square + eps).sqrt();
    x.iter().zip(weight).map(|(v, w)| v * inv_rms * w).collect()
}

/// Rotates one head in place for `position`, transformers' `rotate_half` convention: element
/// `i` pairs with `i + head.len() / 2`, both turned by the angle `position * inv_freq[i]`:
/// `(a, b) -> (a cos - b sin, b cos + a sin)`.
pub fn rope(head: &mut [f64], position: usize, inv_freq: &[f64]) {
    let half = head.len() / 2;
    for (i, &freq) in inv_freq.iter().enumerate().take(half) {
        let angle = position as f64 * freq;
        let (sin, cos) = angle.sin_cos();
        let a = head[i];
        let b = head[i + half];
        head[i] = a * cos - b * sin;
        head[i + half] = b * cos + a * sin;
    }
}

/// `exp(s - max) / sum`: probabilities from scores.
pub fn softmax(scores: &[f64]) -> Vec<f64> {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

/// `x * sigmoid(x)`.
pub fn silu(x: f64) -> f64 {
    x / (1.0 + (-x).exp())
}

/// The key/value head query head `q_head` reads under grouped-query attention:
/// `q_head / (num_attention_heads / num_key_value_heads)`.
pub fn kv_head(config: &LlamaConfig, q_head: usize) -> usize {
    q_head / (config.num_attention_heads / config.num_key_value_heads.max(1)).max(1)
}

/// The index of the largest logit (the first one on a tie; NaNs never win; 0 when empty).
pub fn argmax(logits: &[f64]) -> u32 {
    let mut best: Option<(usize, f64)> = None;
    for (i, &v) in logits.iter().enumerate() {
        match best {
            _ if v.is_nan() => {}
            Some((_, top)) if v <= top => {}
            _ => best = Some((i, v)),
        }
    }
    let index = best.map_or(0, |(i, _)| i);
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// A row-major `rows x cols` matrix (PyTorch's `Linear.weight` layout: `[out, in]`).
#[derive(Debug, Clone)]
struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// `self · x`.
    fn mul(&self, x: &[f64]) -> Vec<f64> {
        (0..self.rows)
            .map(|r| {
                let row = &self.data[r * self.cols..(r + 1) * self.cols];
                row.iter().zip(x).map(|(w, v)| w * v).sum()
            })
            .collect()
    }

    fn row(&self, r: usize) -> &[f64] {
        &self.data[r * self.cols..(r + 1) * self.cols]
    }
}

/// One decoder layer's weights.
#[derive(Debug, Clone)]
struct Layer {
    input_norm: Vec<f64>,
    q: Matrix,
    k: Matrix,
    v: Matrix,
    o: Matrix,
    post_norm: Vec<f64>,
    gate: Matrix,
    up: Matrix,
    down: Matrix,
}

/// Reads tensor `name`, checks its shape, and widens it to `f64`.
fn load(tensors: &dyn Tensors, name: &str, shape: &[usize]) -> Result<Vec<f64>, CheckpointError> {
    let t = tensors.tensor(name)?;
    t.check(shape, t.dtype)?;
    let values = t.to_f64();
    let count: usize = shape.iter().product();
    if values.len() != count {
        return Err(CheckpointError::BadTensor {
            name: name.to_string(),
            problem: format!(
                "{} bytes hold {} elements, the shape needs {count}",
                t.data.len(),
                values.len()
            ),
        });
    }
    Ok(values)
}

fn load_matrix(
    tensors: &dyn Tensors,
    name: &str,
    shape: &[usize],
) -> Result<Matrix, CheckpointError> {
    let (rows, cols) = match shape {
        [rows, cols] => (*rows, *cols),
        _ => (shape.iter().product(), 1),
    };
    Ok(Matrix {
        rows,
        cols,
        data: load(tensors, name, shape)?,
    })
}

/// A float64 Llama decoder with a KV cache: feed tokens one at a time with [`step`](Self::step).
///
/// ```no_run
/// use cuda_graph_flagships::llama::checkpoint::Checkpoint;
/// use cuda_graph_flagships::llama::reference::Reference;
///
/// let checkpoint = Checkpoint::open("path/to/checkpoint")?;
/// checkpoint.check()?;
/// let mut reference = Reference::new(&checkpoint.config, &checkpoint, 64)?;
/// let tokens = reference.greedy(&[1, 15043, 29892], 16)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Reference {
    config: LlamaConfig,
    inv_freq: Vec<f64>,
    embed: Matrix,
    layers: Vec<Layer>,
    final_norm: Vec<f64>,
    /// `None` when the head is tied to the embedding.
    lm_head: Option<Matrix>,
    max_positions: usize,
    /// Per layer, the keys of positions `0..pos`, each `kv_dim` wide (rotated).
    keys: Vec<Vec<f64>>,
    /// Per layer, the values of positions `0..pos`, each `kv_dim` wide.
    values: Vec<Vec<f64>>,
    pos: usize,
}

impl Reference {
    /// Reads every weight `config` implies from `tensors` (any of F32, BF16, F16; each widened
    /// exactly to `f64`), for a cache of `max_positions` tokens. Errors name a missing tensor or
    /// one of the wrong shape, or the config field that does not validate.
    pub fn new(
        config: &LlamaConfig,
        tensors: &dyn Tensors,
        max_positions: usize,
    ) -> Result<Reference, CheckpointError> {
        config.validate()?;
        let mut shapes = config.expected_tensors().into_iter();
        let mut next = |tensors: &dyn Tensors| -> Result<Matrix, CheckpointError> {
            // `expected_tensors` lists the tensors in the order read below.
            let (name, shape) = shapes.next().unwrap_or_default();
            load_matrix(tensors, &name, &shape)
        };
        let embed = next(tensors)?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for _ in 0..config.num_hidden_layers {
            layers.push(Layer {
                input_norm: next(tensors)?.data,
                q: next(tensors)?,
                k: next(tensors)?,
                v: next(tensors)?,
                o: next(tensors)?,
                post_norm: next(tensors)?.data,
                gate: next(tensors)?,
                up: next(tensors)?,
                down: next(tensors)?,
            });
        }
        let final_norm = next(tensors)?.data;
        let lm_head = if config.tie_word_embeddings {
            None
        } else {
            Some(next(tensors)?)
        };
        Ok(Reference {
            config: config.clone(),
            inv_freq: config.inv_freq_f64(),
            embed,
            final_norm,
            lm_head,
            max_positions,
            keys: vec![Vec::new(); layers.len()],
            values: vec![Vec::new(); layers.len()],
            layers,
            pos: 0,
        })
    }

    /// The config it was made with.
    pub fn config(&self) -> &LlamaConfig {
        &self.config
    }

    /// The position the next token will take (= tokens consumed since the last reset).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The KV cache's length in tokens.
    pub fn max_positions(&self) -> usize {
        self.max_positions
    }

    /// Empties the KV cache: the next token is at position 0.
    pub fn reset(&mut self) {
        self.pos = 0;
        self.keys.iter_mut().for_each(Vec::clear);
        self.values.iter_mut().for_each(Vec::clear);
    }

    /// Consumes `token` at position [`pos`](Self::pos) and returns the logits of the next token
    /// (`vocab_size` of them).
    ///
    /// The math of transformers' `LlamaForCausalLM`: `x = embed[token]`; per layer,
    /// `h = rms_norm(x) · w_in`, `q, k, v = Wq h, Wk h, Wv h`, rope on each head of `q` and `k`,
    /// `k, v` appended to the cache, each query head `h` attends (scores `q·k / sqrt(head_dim)`,
    /// softmax over positions `0..=pos`) over key/value head [`kv_head`]`(h)`,
    /// `x += Wo · attention`, `h2 = rms_norm(x) · w_post`,
    /// `x += Wdown · (silu(Wgate h2) ⊙ Wup h2)`; then `logits = W_head · (rms_norm(x) · w_final)`
    /// with `W_head` the embedding when tied.
    pub fn step(&mut self, token: u32) -> Result<Vec<f64>, StepError> {
        let c = &self.config;
        if token as usize >= c.vocab_size {
            return Err(StepError::TokenOutOfRange {
                token,
                vocab_size: c.vocab_size,
            });
        }
        if self.pos >= self.max_positions {
            return Err(StepError::CacheFull {
                max_positions: self.max_positions,
            });
        }
        let pos = self.pos;
        let head_dim = c.head_dim;
        let kv_dim = c.kv_dim();
        let eps = c.rms_norm_eps;

        let mut x = self.embed.row(token as usize).to_vec();
        for (l, layer) in self.layers.iter().enumerate() {
            // Attention.
            let h = rms_norm(&x, &layer.input_norm, eps);
            let mut q = layer.q.mul(&h);
            let mut k = layer.k.mul(&h);
            let v = layer.v.mul(&h);
            for head in q.chunks_exact_mut(head_dim) {
                rope(head, pos, &self.inv_freq);
            }
            for head in k.chunks_exact_mut(head_dim) {
                rope(head, pos, &self.inv_freq);
            }
            self.keys[l].extend_from_slice(&k);
            self.values[l].extend_from_slice(&v);

            let mut attention = vec![0.0; c.q_dim()];
            for head in 0..c.num_attention_heads {
                let kvh = kv_head(c, head);
                let q_head = &q[head * head_dim..(head + 1) * head_dim];
                let scores: Vec<f64> = (0..=pos)
                    .map(|t| {
                        let start = t * kv_dim + kvh * head_dim;
                        let k_t = &self.keys[l][start..start + head_dim];
                        let dot: f64 = q_head.iter().zip(k_t).map(|(a, b)| a * b).sum();
                        dot / (head_dim as f64).sqrt()
                    })
                    .collect();
                let probs = softmax(&scores);
                let out = &mut attention[head * head_dim..(head + 1) * head_dim];
                for (t, p) in probs.iter().enumerate() {
                    let start = t * kv_dim + kvh * head_dim;
                    let v_t = &self.values[l][start..start + head_dim];
                    for (o, v) in out.iter_mut().zip(v_t) {
                        *o += p * v;
                    }
                }
            }
            let attn_out = layer.o.mul(&attention);
            for (xi, a) in x.iter_mut().zip(&attn_out) {
                *xi += a;
            }

            // MLP.
            let h2 = rms_norm(&x, &layer.post_norm, eps);
            let gate = layer.gate.mul(&h2);
            let up = layer.up.mul(&h2);
            let act: Vec<f64> = gate.iter().zip(&up).map(|(g, u)| silu(*g) * u).collect();
            let mlp_out = layer.down.mul(&act);
            for (xi, m) in x.iter_mut().zip(&mlp_out) {
                *xi += m;
            }
        }
        let normed = rms_norm(&x, &self.final_norm, eps);
        let head = self.lm_head.as_ref().unwrap_or(&self.embed);
        self.pos += 1;
        Ok(head.mul(&normed))
    }

    /// Greedy decoding from an empty cache: [`reset`](Self::reset), feed `prompt`, then pick the
    /// [`argmax`] token `max_new` times, feeding each but the last back. Returns the `max_new`
    /// new tokens (it does not stop at an end-of-sequence token). Needs
    /// `prompt.len() + max_new - 1` positions.
    pub fn greedy(&mut self, prompt: &[u32], max_new: usize) -> Result<Vec<u32>, StepError> {
        if prompt.is_empty() {
            return Err(StepError::EmptyPrompt);
        }
        self.reset();
        let mut logits = Vec::new();
        for &token in prompt {
            logits = self.step(token)?;
        }
        let mut out = Vec::with_capacity(max_new);
        for i in 0..max_new {
            let next = argmax(&logits);
            out.push(next);
            if i + 1 < max_new {
                logits = self.step(next)?;
            }
        }
        Ok(out)
    }
}
