//! Reading `config.json`: [`LlamaConfig::from_json`], with errors that name the field.

use serde_json::{Map, Value};

use super::{field_err, DType, Llama3Scaling, LlamaConfig};
use crate::llama::checkpoint::error::CheckpointError;

/// The fields of a JSON object, read with errors that name the field.
struct Fields<'a> {
    obj: &'a Map<String, Value>,
    /// Prefix of the field names in errors (`""` or `"rope_scaling."`).
    prefix: &'a str,
}

/// A JSON value as it appears in an error, cut short if long.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

fn unsupported(field: &str, value: &Value, why: &str) -> CheckpointError {
    CheckpointError::Unsupported {
        field: field.to_string(),
        value: show(value),
        why: why.to_string(),
    }
}

impl<'a> Fields<'a> {
    fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// The value of `key`, `None` when absent or `null`.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    fn opt_usize(&self, key: &str) -> Result<Option<usize>, CheckpointError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) => Ok(Some(n)),
                None => Err(field_err(
                    &self.name(key),
                    format!("expected a non-negative integer, found {}", show(v)),
                )),
            },
        }
    }

    fn usize(&self, key: &str) -> Result<usize, CheckpointError> {
        self.opt_usize(key)?
            .ok_or_else(|| field_err(&self.name(key), "missing (a required field)"))
    }

    /// A size that must be present and non-zero.
    fn size(&self, key: &str) -> Result<usize, CheckpointError> {
        let n = self.usize(key)?;
        if n == 0 {
            return Err(field_err(&self.name(key), "must be at least 1, found 0"));
        }
        Ok(n)
    }

    fn opt_f64(&self, key: &str) -> Result<Option<f64>, CheckpointError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) => Ok(Some(x)),
                None => Err(field_err(
                    &self.name(key),
                    format!("expected a number, found {}", show(v)),
                )),
            },
        }
    }

    fn f64(&self, key: &str) -> Result<f64, CheckpointError> {
        self.opt_f64(key)?
            .ok_or_else(|| field_err(&self.name(key), "missing (a required field)"))
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>, CheckpointError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_bool() {
                Some(b) => Ok(Some(b)),
                None => Err(field_err(
                    &self.name(key),
                    format!("expected true or false, found {}", show(v)),
                )),
            },
        }
    }

    fn opt_str(&self, key: &str) -> Result<Option<&'a str>, CheckpointError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_str() {
                Some(s) => Ok(Some(s)),
                None => Err(field_err(
                    &self.name(key),
                    format!("expected a string, found {}", show(v)),
                )),
            },
        }
    }

    fn opt_object(&self, key: &str) -> Result<Option<&'a Map<String, Value>>, CheckpointError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_object() {
                Some(o) => Ok(Some(o)),
                None => Err(field_err(
                    &self.name(key),
                    format!("expected an object, found {}", show(v)),
                )),
            },
        }
    }

    fn token_id(&self, key: &str, v: &Value) -> Result<u32, CheckpointError> {
        v.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                field_err(
                    &self.name(key),
                    format!("expected a token id (0 to 2^32-1), found {}", show(v)),
                )
            })
    }

    /// Errors when `key` is present and `bad` says its value changes the math.
    fn reject(
        &self,
        key: &str,
        bad: impl Fn(&Value) -> bool,
        why: &str,
    ) -> Result<(), CheckpointError> {
        match self.get(key) {
            Some(v) if bad(v) => Err(unsupported(&self.name(key), v, why)),
            _ => Ok(()),
        }
    }
}

/// Whether a JSON value is a number other than 1.
fn not_one(v: &Value) -> bool {
    v.as_f64() != Some(1.0)
}

impl LlamaConfig {
    /// Parses a `config.json`.
    ///
    /// Required: `hidden_size`, `intermediate_size`, `num_hidden_layers`, `num_attention_heads`,
    /// `vocab_size`, `max_position_embeddings`, `rms_norm_eps` (transformers has defaults for
    /// these, but a loader silently using Llama-2-7B's sizes helps nobody). Defaults as in
    /// transformers: `num_key_value_heads` = `num_attention_heads`, `head_dim` =
    /// `hidden_size / num_attention_heads`, `rope_theta` = 10000, `tie_word_embeddings` = false,
    /// `hidden_act` = "silu". `null` counts as absent. Unknown fields are ignored.
    ///
    /// ```
    /// use cuda_graph_flagships::llama::config::LlamaConfig;
    /// let config = LlamaConfig::from_json(r#"{"hidden_size": 64, "intermediate_size": 128,
    ///     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    ///     "vocab_size": 256, "max_position_embeddings": 512, "rms_norm_eps": 1e-5}"#)?;
    /// assert_eq!(config.head_dim, 16);
    /// # Ok::<(), cuda_graph_flagships::llama::checkpoint::CheckpointError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<LlamaConfig, CheckpointError> {
        let root: Value = serde_json::from_str(text).map_err(|e| CheckpointError::Json {
            what: "config.json".to_string(),
            message: e.to_string(),
        })?;
        let obj = root.as_object().ok_or_else(|| CheckpointError::Json {
            what: "config.json".to_string(),
            message: format!("expected an object at the top, found {}", show(&root)),
        })?;
        let f = Fields { obj, prefix: "" };

        f.reject(
            "model_type",
            |v| v.as_str() != Some("llama"),
            "only \"llama\" is read",
        )?;
        f.reject(
            "attention_bias",
            |v| v.as_bool() != Some(false),
            "attention projections with biases",
        )?;
        f.reject(
            "mlp_bias",
            |v| v.as_bool() != Some(false),
            "MLP projections with biases",
        )?;
        f.reject(
            "hidden_act",
            |v| v.as_str() != Some("silu"),
            "the MLP activation must be \"silu\"",
        )?;
        f.reject(
            "pretraining_tp",
            |v| v.as_u64().is_none_or(|n| n > 1),
            "pretraining_tp > 1 splits the projections into slices computed apart",
        )?;
        f.reject("sliding_window", |_| true, "sliding-window attention")?;
        f.reject(
            "partial_rotary_factor",
            not_one,
            "rope on part of each head",
        )?;

        let hidden_size = f.size("hidden_size")?;
        let intermediate_size = f.size("intermediate_size")?;
        let num_hidden_layers = f.size("num_hidden_layers")?;
        let num_attention_heads = f.size("num_attention_heads")?;
        let vocab_size = f.size("vocab_size")?;
        let max_position_embeddings = f.size("max_position_embeddings")?;
        let num_key_value_heads = f
            .opt_usize("num_key_value_heads")?
            .unwrap_or(num_attention_heads);
        let head_dim = match f.opt_usize("head_dim")? {
            Some(d) => d,
            None if hidden_size.is_multiple_of(num_attention_heads) => {
                hidden_size / num_attention_heads
            }
            None => {
                return Err(field_err(
                    "head_dim",
                    format!(
                        "absent, and hidden_size ({hidden_size}) is not a multiple of \
                         num_attention_heads ({num_attention_heads})"
                    ),
                ))
            }
        };
        let rms_norm_eps = f.f64("rms_norm_eps")?;
        let tie_word_embeddings = f.opt_bool("tie_word_embeddings")?.unwrap_or(false);

        let eos_token_ids = match f.get("eos_token_id") {
            None => Vec::new(),
            Some(Value::Array(ids)) => ids
                .iter()
                .map(|v| f.token_id("eos_token_id", v))
                .collect::<Result<_, _>>()?,
            Some(v) => vec![f.token_id("eos_token_id", v)?],
        };
        let bos_token_id = match f.get("bos_token_id") {
            None => None,
            Some(v) => Some(f.token_id("bos_token_id", v)?),
        };

        let dtype_key = if f.get("dtype").is_some() {
            "dtype"
        } else {
            "torch_dtype"
        };
        let dtype = match f.opt_str(dtype_key)? {
            None => None,
            Some(name) => Some(DType::from_config_name(name).ok_or_else(|| {
                unsupported(
                    dtype_key,
                    &Value::from(name),
                    "weights must be \"float32\", \"bfloat16\" or \"float16\"",
                )
            })?),
        };

        let (rope_theta, rope_scaling) = parse_rope(&f, max_position_embeddings)?;

        let config = LlamaConfig {
            hidden_size,
            intermediate_size,
            num_hidden_layers,
            num_attention_heads,
            num_key_value_heads,
            head_dim,
            rms_norm_eps,
            rope_theta,
            rope_scaling,
            tie_word_embeddings,
            vocab_size,
            max_position_embeddings,
            eos_token_ids,
            bos_token_id,
            dtype,
        };
        config.validate()?;
        Ok(config)
    }
}

/// The rope settings, from either layout (see the module docs): `(rope_theta, scaling)`.
fn parse_rope(
    top: &Fields<'_>,
    max_position_embeddings: usize,
) -> Result<(f64, Option<Llama3Scaling>), CheckpointError> {
    let scaling = top.opt_object("rope_scaling")?.filter(|o| !o.is_empty());
    let (dict, prefix) = match scaling {
        Some(o) => (Some(o), "rope_scaling."),
        None => (top.opt_object("rope_parameters")?, "rope_parameters."),
    };
    let empty = Map::new();
    let d = Fields {
        obj: dict.unwrap_or(&empty),
        prefix,
    };
    let theta = match d.opt_f64("rope_theta")? {
        Some(t) => t,
        None => top.opt_f64("rope_theta")?.unwrap_or(10_000.0),
    };
    d.reject(
        "partial_rotary_factor",
        not_one,
        "rope on part of each head",
    )?;
    let type_key = if d.get("rope_type").is_some() {
        "rope_type"
    } else {
        "type"
    };
    let rope_type = d.opt_str(type_key)?.unwrap_or("default");
    match rope_type {
        "default" => Ok((theta, None)),
        "llama3" => {
            let original = match top.opt_usize("original_max_position_embeddings")? {
                Some(n) => n,
                None => d
                    .opt_usize("original_max_position_embeddings")?
                    .unwrap_or(max_position_embeddings),
            };
            let scaling = Llama3Scaling {
                factor: d.f64("factor")?,
                low_freq_factor: d.f64("low_freq_factor")?,
                high_freq_factor: d.f64("high_freq_factor")?,
                original_max_position_embeddings: original,
            };
            Ok((theta, Some(scaling)))
        }
        other => Err(unsupported(
            &d.name(type_key),
            &Value::from(other),
            "only plain rope (\"default\") and \"llama3\" scaling are implemented",
        )),
    }
}
