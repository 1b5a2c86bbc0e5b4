//! [`LlamaConfig`]: a Hugging Face Llama `config.json`, checked for everything that changes the
//! math, and the tensors and rotary frequencies it implies.
//!
//! Both rope layouts transformers writes are read: the 4.x one (top-level `rope_theta`, and
//! `rope_scaling` with `rope_type` or the older `type`) and the 5.x one (`rope_parameters`, a dict
//! holding `rope_type`, `rope_theta` and, for llama3, the scaling keys). As transformers 5 does
//! (`RotaryEmbeddingConfigMixin.convert_rope_params_to_dict` and `standardize_rope_params` in
//! `modeling_rope_utils.py`): a non-empty `rope_scaling` wins over `rope_parameters`; the dict's
//! `rope_theta` wins over the top-level one, and 10000 is used when neither is given; a llama3
//! `original_max_position_embeddings` missing from the dict is `max_position_embeddings` (a
//! top-level `original_max_position_embeddings` wins over both).

use serde_json::{json, Value};

use super::checkpoint::error::CheckpointError;
pub use super::dtype::DType;

mod parse;

/// Llama 3.1's rope scaling (`rope_type: "llama3"`): low frequencies divided by `factor`, high
/// ones kept, the band between interpolated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Llama3Scaling {
    /// What the lowest frequencies are divided by (8 for Llama 3.1, 32 for Llama 3.2).
    pub factor: f64,
    /// Wavelengths above `original_max_position_embeddings / low_freq_factor` are scaled.
    pub low_freq_factor: f64,
    /// Wavelengths below `original_max_position_embeddings / high_freq_factor` are kept.
    pub high_freq_factor: f64,
    /// The context length the model was pretrained with (8192 for Llama 3).
    pub original_max_position_embeddings: usize,
}

/// A Llama model's shape and constants, from a Hugging Face `config.json`.
///
/// [`from_json`](Self::from_json) rejects whatever would change the math this crate implements
/// (biases, another activation, another rope type, sliding windows, partial rotary, tensor-parallel
/// pretraining); [`validate`](Self::validate) checks a config built by hand the same way.
#[derive(Debug, Clone, PartialEq)]
pub struct LlamaConfig {
    /// Width of the residual stream.
    pub hidden_size: usize,
    /// Width of the MLP's gate/up projections.
    pub intermediate_size: usize,
    /// Decoder layers.
    pub num_hidden_layers: usize,
    /// Query heads.
    pub num_attention_heads: usize,
    /// Key/value heads (grouped-query attention); divides `num_attention_heads`.
    pub num_key_value_heads: usize,
    /// Width of one head (`hidden_size / num_attention_heads` unless the config says); even.
    pub head_dim: usize,
    /// The epsilon of every RMSNorm.
    pub rms_norm_eps: f64,
    /// The rotary base.
    pub rope_theta: f64,
    /// Llama 3.1 frequency scaling, or `None` for plain rope.
    pub rope_scaling: Option<Llama3Scaling>,
    /// Whether the output head is the embedding matrix (no `lm_head.weight`).
    pub tie_word_embeddings: bool,
    /// Rows of the embedding and of the output head.
    pub vocab_size: usize,
    /// The context length the model supports (informational; the rope works past it).
    pub max_position_embeddings: usize,
    /// `eos_token_id`: one id, several, or none.
    pub eos_token_ids: Vec<u32>,
    /// `bos_token_id`, if given.
    pub bos_token_id: Option<u32>,
    /// `dtype` (or the older `torch_dtype`); `None` when absent, and then the checkpoint's
    /// tensors decide.
    pub dtype: Option<DType>,
}

fn field_err(field: &str, problem: impl Into<String>) -> CheckpointError {
    CheckpointError::ConfigField {
        field: field.to_string(),
        problem: problem.into(),
    }
}

impl LlamaConfig {
    /// Checks what [`from_json`](Self::from_json) checks on a config built by hand: non-zero sizes,
    /// `num_key_value_heads` dividing `num_attention_heads`, an even `head_dim`, finite positive
    /// constants, and sizes small enough that every tensor's byte count fits in a `usize`.
    pub fn validate(&self) -> Result<(), CheckpointError> {
        for (field, n) in [
            ("hidden_size", self.hidden_size),
            ("intermediate_size", self.intermediate_size),
            ("num_hidden_layers", self.num_hidden_layers),
            ("num_attention_heads", self.num_attention_heads),
            ("num_key_value_heads", self.num_key_value_heads),
            ("head_dim", self.head_dim),
            ("vocab_size", self.vocab_size),
            ("max_position_embeddings", self.max_position_embeddings),
        ] {
            if n == 0 {
                return Err(field_err(field, "must be at least 1, found 0"));
            }
        }
        if !self
            .num_attention_heads
            .is_multiple_of(self.num_key_value_heads)
        {
            return Err(field_err(
                "num_key_value_heads",
                format!(
                    "{} does not divide num_attention_heads ({})",
                    self.num_key_value_heads, self.num_attention_heads
                ),
            ));
        }
        if !self.head_dim.is_multiple_of(2) {
            return Err(field_err(
                "head_dim",
                format!("must be even (rope rotates pairs), found {}", self.head_dim),
            ));
        }
        if !(self.rms_norm_eps.is_finite() && self.rms_norm_eps >= 0.0) {
            return Err(field_err(
                "rms_norm_eps",
                format!(
                    "must be finite and not negative, found {}",
                    self.rms_norm_eps
                ),
            ));
        }
        if !(self.rope_theta.is_finite() && self.rope_theta > 0.0) {
            return Err(field_err(
                "rope_theta",
                format!("must be finite and positive, found {}", self.rope_theta),
            ));
        }
        if let Some(s) = &self.rope_scaling {
            let ok = |x: f64| x.is_finite() && x > 0.0;
            if !ok(s.factor) {
                return Err(field_err(
                    "rope_scaling.factor",
                    format!("must be finite and positive, found {}", s.factor),
                ));
            }
            if !ok(s.low_freq_factor)
                || !ok(s.high_freq_factor)
                || s.high_freq_factor <= s.low_freq_factor
            {
                return Err(field_err(
                    "rope_scaling.high_freq_factor",
                    format!(
                        "must be finite and above low_freq_factor (> 0), found high_freq_factor {} \
                         and low_freq_factor {}",
                        s.high_freq_factor, s.low_freq_factor
                    ),
                ));
            }
            if s.original_max_position_embeddings == 0 {
                return Err(field_err(
                    "rope_scaling.original_max_position_embeddings",
                    "must be at least 1, found 0",
                ));
            }
        }
        // Every tensor's byte count (as f32) fits, so shape products never overflow.
        let fits = |a: usize, b: usize| a.checked_mul(b).and_then(|n| n.checked_mul(4)).is_some();
        let q = self.num_attention_heads.checked_mul(self.head_dim);
        let too_big = match q {
            None => true,
            Some(q) => {
                !fits(self.vocab_size, self.hidden_size)
                    || !fits(q, self.hidden_size)
                    || !fits(self.intermediate_size, self.hidden_size)
                    || self.bytes_per_token_checked(DType::F32).is_none()
            }
        };
        if too_big {
            return Err(field_err(
                "hidden_size",
                "the sizes in this config give tensors too large to address",
            ));
        }
        Ok(())
    }

    /// The config as `config.json` text that transformers 4 and 5 both read back: `rope_theta`
    /// and `rope_scaling` at the top level (transformers 5 moves them into `rope_parameters`
    /// itself), and the dtype as both `dtype` and the older `torch_dtype`.
    pub fn to_json(&self) -> String {
        let rope_scaling = match &self.rope_scaling {
            None => Value::Null,
            Some(s) => json!({
                "rope_type": "llama3",
                "factor": s.factor,
                "low_freq_factor": s.low_freq_factor,
                "high_freq_factor": s.high_freq_factor,
                "original_max_position_embeddings": s.original_max_position_embeddings,
            }),
        };
        let eos = match self.eos_token_ids.as_slice() {
            [] => Value::Null,
            [one] => json!(one),
            many => json!(many),
        };
        let mut v = json!({
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_act": "silu",
            "attention_bias": false,
            "mlp_bias": false,
            "hidden_size": self.hidden_size,
            "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_hidden_layers,
            "num_attention_heads": self.num_attention_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim,
            "rms_norm_eps": self.rms_norm_eps,
            "rope_theta": self.rope_theta,
            "rope_scaling": rope_scaling,
            "tie_word_embeddings": self.tie_word_embeddings,
            "vocab_size": self.vocab_size,
            "max_position_embeddings": self.max_position_embeddings,
            "bos_token_id": self.bos_token_id,
            "eos_token_id": eos,
        });
        if let (Some(dtype), Some(obj)) = (self.dtype, v.as_object_mut()) {
            obj.insert("dtype".into(), dtype.config_name().into());
            obj.insert("torch_dtype".into(), dtype.config_name().into());
        }
        // Serializing a `Value` cannot fail; fall back to compact text all the same.
        serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string())
    }

    /// Rows of `q_proj` (`num_attention_heads * head_dim`).
    pub fn q_dim(&self) -> usize {
        self.num_attention_heads * self.head_dim
    }

    /// Rows of `k_proj` and `v_proj` (`num_key_value_heads * head_dim`).
    pub fn kv_dim(&self) -> usize {
        self.num_key_value_heads * self.head_dim
    }

    /// The names and shapes of the tensors of one decoder layer, in the order of the math.
    pub fn layer_tensors(&self, layer: usize) -> Vec<(String, Vec<usize>)> {
        let (h, i, q, kv) = (
            self.hidden_size,
            self.intermediate_size,
            self.q_dim(),
            self.kv_dim(),
        );
        let p = format!("model.layers.{layer}");
        vec![
            (format!("{p}.input_layernorm.weight"), vec![h]),
            (format!("{p}.self_attn.q_proj.weight"), vec![q, h]),
            (format!("{p}.self_attn.k_proj.weight"), vec![kv, h]),
            (format!("{p}.self_attn.v_proj.weight"), vec![kv, h]),
            (format!("{p}.self_attn.o_proj.weight"), vec![h, q]),
            (format!("{p}.post_attention_layernorm.weight"), vec![h]),
            (format!("{p}.mlp.gate_proj.weight"), vec![i, h]),
            (format!("{p}.mlp.up_proj.weight"), vec![i, h]),
            (format!("{p}.mlp.down_proj.weight"), vec![h, i]),
        ]
    }

    /// Every tensor a checkpoint of this config holds, with its shape (Hugging Face names,
    /// row-major `[out, in]` for projections): the embedding, each layer's nine tensors, the
    /// final norm, and `lm_head.weight` unless the head is tied to the embedding.
    pub fn expected_tensors(&self) -> Vec<(String, Vec<usize>)> {
        let mut all = vec![(
            "model.embed_tokens.weight".to_string(),
            vec![self.vocab_size, self.hidden_size],
        )];
        for layer in 0..self.num_hidden_layers {
            all.extend(self.layer_tensors(layer));
        }
        all.push(("model.norm.weight".to_string(), vec![self.hidden_size]));
        if !self.tie_word_embeddings {
            all.push((
                "lm_head.weight".to_string(),
                vec![self.vocab_size, self.hidden_size],
            ));
        }
        all
    }

    /// Bytes of weights one decoded token reads, stored as `dtype`: every layer tensor, the final
    /// norm, the head matrix (the embedding when tied) and one embedding row. Saturates at
    /// `u64::MAX` for a config [`validate`](Self::validate) would reject.
    pub fn bytes_per_token(&self, dtype: DType) -> u64 {
        self.bytes_per_token_checked(dtype).unwrap_or(u64::MAX)
    }

    fn bytes_per_token_checked(&self, dtype: DType) -> Option<u64> {
        let n = |x: usize| u64::try_from(x).ok();
        let prod = |shape: &[usize]| {
            shape
                .iter()
                .try_fold(1u64, |acc, &d| acc.checked_mul(n(d)?))
        };
        let layer: u64 = self
            .layer_tensors(0)
            .iter()
            .try_fold(0u64, |acc, (_, shape)| acc.checked_add(prod(shape)?))?;
        let elements = layer
            .checked_mul(n(self.num_hidden_layers)?)?
            .checked_add(n(self.hidden_size)?)? // final norm
            .checked_add(prod(&[self.vocab_size, self.hidden_size])?)? // head
            .checked_add(n(self.hidden_size)?)?; // one embedding row
        elements.checked_mul(n(dtype.size())?)
    }

    /// The rotary inverse frequencies (`head_dim / 2` of them) in `f32`, computed as transformers
    /// computes its `inv_freq` buffer on the CPU (`_compute_default_rope_parameters` and
    /// `_compute_llama3_parameters`), one float32 operation at a time in the same order:
    /// `1 / theta^((2i) / head_dim)`; for llama3 `wavelen = reciprocal(inv) * f32(2π)` (how torch
    /// evaluates `2 * math.pi / inv_freq`), low frequencies divided by `factor`, the medium band
    /// `(1 - s) * inv / factor + s * inv` with `s = (reciprocal(wavelen) * old_len - low) / (high -
    /// low)`; Python scalars are rounded to f32 where torch rounds them, the wavelength bounds
    /// `old_len / low_freq_factor` and `old_len / high_freq_factor` are computed in f64 first, as
    /// Python does.
    ///
    /// Where this cannot match bit for bit: torch's `pow` on a float32 tensor is its own
    /// vectorized kernel (SLEEF on x86 CPUs, `powf` on a GPU), accurate to about 1 ulp but not
    /// correctly rounded; here `theta^e` is rounded correctly (computed in f64, then rounded),
    /// so an entry can differ from torch's by 1 ulp, and the llama3 steps carry that difference
    /// along. Every other step is an IEEE-rounded float32 operation on both sides.
    pub fn inv_freq_f32(&self) -> Vec<f32> {
        let dim = self.head_dim;
        let base = self.rope_theta as f32;
        let default: Vec<f32> = (0..dim)
            .step_by(2)
            .map(|i| {
                let exponent = i as f32 / dim as f32;
                let p = (base as f64).powf(exponent as f64) as f32;
                1.0f32 / p
            })
            .collect();
        let Some(s) = &self.rope_scaling else {
            return default;
        };
        let factor = s.factor as f32;
        let low = s.low_freq_factor as f32;
        let old_len = s.original_max_position_embeddings as f64;
        let low_freq_wavelen = (old_len / s.low_freq_factor) as f32;
        let high_freq_wavelen = (old_len / s.high_freq_factor) as f32;
        let high_minus_low = (s.high_freq_factor - s.low_freq_factor) as f32;
        let two_pi = (2.0 * std::f64::consts::PI) as f32;
        default
            .iter()
            .map(|&inv| {
                let wavelen = (1.0f32 / inv) * two_pi;
                let inv_llama = if wavelen > low_freq_wavelen {
                    inv / factor
                } else {
                    inv
                };
                let smooth = ((1.0f32 / wavelen) * old_len as f32 - low) / high_minus_low;
                let smoothed = (1.0f32 - smooth) * inv_llama / factor + smooth * inv_llama;
                // torch: `~(wavelen < high) * ~(wavelen > low)`, the same for every non-NaN wavelength.
                let medium = wavelen >= high_freq_wavelen && wavelen <= low_freq_wavelen;
                if medium {
                    smoothed
                } else {
                    inv_llama
                }
            })
            .collect()
    }

    /// The same frequencies as [`inv_freq_f32`](Self::inv_freq_f32), every step in `f64`
    /// (`theta.powf(2i / head_dim)`, `2π / inv`, ...): what the reference decoder rotates with.
    pub fn inv_freq_f64(&self) -> Vec<f64> {
        let dim = self.head_dim;
        let default: Vec<f64> = (0..dim)
            .step_by(2)
            .map(|i| 1.0 / self.rope_theta.powf(i as f64 / dim as f64))
            .collect();
        let Some(s) = &self.rope_scaling else {
            return default;
        };
        let old_len = s.original_max_position_embeddings as f64;
        let low_freq_wavelen = old_len / s.low_freq_factor;
        let high_freq_wavelen = old_len / s.high_freq_factor;
        default
            .iter()
            .map(|&inv| {
                let wavelen = 2.0 * std::f64::consts::PI / inv;
                let inv_llama = if wavelen > low_freq_wavelen {
                    inv / s.factor
                } else {
                    inv
                };
                let smooth = (old_len / wavelen - s.low_freq_factor)
                    / (s.high_freq_factor - s.low_freq_factor);
                let smoothed = (1.0 - smooth) * inv_llama / s.factor + smooth * inv_llama;
                // torch: `~(wavelen < high) * ~(wavelen > low)`, the same for every non-NaN wavelength.
                let medium = wavelen >= high_freq_wavelen && wavelen <= low_freq_wavelen;
                if medium {
                    smoothed
                } else {
                    inv_llama
                }
            })
            .collect()
    }
}
