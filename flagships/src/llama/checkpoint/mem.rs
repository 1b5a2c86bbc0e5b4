//! [`MemTensors`]: tensors in memory; random weights for tests, written as a checkpoint.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;

use safetensors::{Dtype as StDtype, View};

use super::{to_st, CheckpointError, IndexFile, TensorRef, Tensors};
use crate::llama::config::{DType, LlamaConfig};

/// One tensor held by [`MemTensors`].
#[derive(Debug, Clone, PartialEq)]
pub struct MemTensor {
    /// Element type.
    pub dtype: DType,
    /// Shape, outermost first.
    pub shape: Vec<usize>,
    /// Little-endian bytes, row-major.
    pub data: Vec<u8>,
}

impl View for &MemTensor {
    fn dtype(&self) -> StDtype {
        to_st(self.dtype)
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

/// Tensors in memory, by name: random weights for tests and benchmarks, writable as a checkpoint
/// directory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemTensors {
    tensors: BTreeMap<String, MemTensor>,
}

/// splitmix64: a small, good, deterministic generator (no dependency needed).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn symmetric(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// FNV-1a of a tensor name, so each tensor's stream depends on its name, not on the order.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

impl MemTensors {
    /// No tensors.
    pub fn new() -> MemTensors {
        MemTensors::default()
    }

    /// Adds (or replaces) a tensor; errors if `data` is not `shape.product() * dtype.size()`
    /// bytes.
    pub fn insert(
        &mut self,
        name: impl Into<String>,
        dtype: DType,
        shape: Vec<usize>,
        data: Vec<u8>,
    ) -> Result<(), CheckpointError> {
        let name = name.into();
        let bytes = shape
            .iter()
            .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d));
        if bytes != Some(data.len()) {
            return Err(CheckpointError::BadTensor {
                problem: format!(
                    "{} bytes do not make a {dtype} tensor of shape {shape:?}",
                    data.len()
                ),
                name,
            });
        }
        self.tensors.insert(name, MemTensor { dtype, shape, data });
        Ok(())
    }

    /// Adds (or replaces) a tensor from `f32` values, rounded to `dtype`.
    pub fn insert_f32(
        &mut self,
        name: impl Into<String>,
        dtype: DType,
        shape: Vec<usize>,
        values: &[f32],
    ) -> Result<(), CheckpointError> {
        self.insert(name, dtype, shape, dtype.encode(values))
    }

    /// Removes a tensor, returning it.
    pub fn remove(&mut self, name: &str) -> Option<MemTensor> {
        self.tensors.remove(name)
    }

    /// The tensor `name`, if held.
    pub fn get(&self, name: &str) -> Option<&MemTensor> {
        self.tensors.get(name)
    }

    /// The names held, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    /// Every tensor `config` implies, filled from a deterministic generator seeded by `seed`
    /// (and each tensor's name), rounded to `dtype`. Errors if the config does not
    /// [`validate`](LlamaConfig::validate).
    ///
    /// Scales (all uniform distributions), chosen so activations stay O(1) through the layers and
    /// the logits have a standard deviation near 2, so the argmax is clear:
    /// - embedding: standard deviation 1 (each row is a residual stream of RMS about 1);
    /// - projections `[out, in]`: standard deviation `1 / sqrt(in)`, so each output has about the
    ///   RMS of the input;
    /// - RMSNorm weights: `1 ± 0.1`;
    /// - `lm_head`: standard deviation `2 / sqrt(hidden)`, so a logit (a dot product with a
    ///   normalized vector of RMS 1) has a standard deviation near 2;
    /// - tied head: the embedding (std 1) is the head, so the final norm's weight is scaled by
    ///   `2 / sqrt(hidden)` instead, for the same spread of logits.
    pub fn random(
        config: &LlamaConfig,
        dtype: DType,
        seed: u64,
    ) -> Result<MemTensors, CheckpointError> {
        config.validate()?;
        let hidden = config.hidden_size as f64;
        let head_scale = 2.0 / hidden.sqrt();
        let mut out = MemTensors::new();
        for (name, shape) in config.expected_tensors() {
            let mut rng = SplitMix64(seed ^ name_hash(&name));
            let count: usize = shape.iter().product();
            // Uniform on [-a, a] has standard deviation a / sqrt(3).
            let values: Vec<f32> = if shape.len() == 1 {
                let scale = if name == "model.norm.weight" && config.tie_word_embeddings {
                    head_scale
                } else {
                    1.0
                };
                (0..count)
                    .map(|_| ((1.0 + 0.1 * rng.symmetric()) * scale) as f32)
                    .collect()
            } else {
                let std = match name.as_str() {
                    "model.embed_tokens.weight" => 1.0,
                    "lm_head.weight" => head_scale,
                    _ => 1.0 / (shape.get(1).copied().unwrap_or(1) as f64).sqrt(),
                };
                let a = std * 3f64.sqrt();
                (0..count).map(|_| (a * rng.symmetric()) as f32).collect()
            };
            out.insert_f32(name, dtype, shape, &values)?;
        }
        Ok(out)
    }

    /// Writes `config.json` (from `config`) and `model.safetensors` into `dir` (created if
    /// needed).
    pub fn save(&self, config: &LlamaConfig, dir: impl AsRef<Path>) -> Result<(), CheckpointError> {
        let dir = dir.as_ref();
        write_config(config, dir)?;
        let names: Vec<&String> = self.tensors.keys().collect();
        self.write_file(&names, &dir.join("model.safetensors"))
    }

    /// Writes `config.json`, the tensors split over `shards` files named as transformers names
    /// them (`model-00001-of-00002.safetensors`, ...; consecutive names, equal counts), and
    /// `model.safetensors.index.json` mapping each tensor to its file.
    pub fn save_sharded(
        &self,
        config: &LlamaConfig,
        dir: impl AsRef<Path>,
        shards: usize,
    ) -> Result<(), CheckpointError> {
        if shards == 0 {
            return Err(CheckpointError::Argument(
                "cannot split a checkpoint into 0 shards: give at least 1".to_string(),
            ));
        }
        let dir = dir.as_ref();
        write_config(config, dir)?;
        let names: Vec<&String> = self.tensors.keys().collect();
        let per_shard = names.len().div_ceil(shards).max(1);
        let mut index = IndexFile {
            metadata: BTreeMap::new(),
            weight_map: BTreeMap::new(),
        };
        let mut total = 0usize;
        for k in 0..shards {
            let file = format!("model-{:05}-of-{:05}.safetensors", k + 1, shards);
            let start = (k * per_shard).min(names.len());
            let end = ((k + 1) * per_shard).min(names.len());
            let part = &names[start..end];
            for name in part {
                index.weight_map.insert((*name).clone(), file.clone());
                total += self.tensors.get(*name).map_or(0, |t| t.data.len());
            }
            self.write_file(part, &dir.join(&file))?;
        }
        index.metadata.insert("total_size".into(), total.into());
        let path = dir.join("model.safetensors.index.json");
        let text = serde_json::to_string_pretty(&index).map_err(|e| CheckpointError::Write {
            path: path.clone(),
            source: io::Error::other(e),
        })?;
        std::fs::write(&path, text).map_err(|source| CheckpointError::Write { path, source })
    }

    fn write_file(&self, names: &[&String], path: &Path) -> Result<(), CheckpointError> {
        let items = names
            .iter()
            .filter_map(|n| self.tensors.get(*n).map(|t| (n.as_str(), t)));
        let metadata = HashMap::from([("format".to_string(), "pt".to_string())]);
        let bytes =
            safetensors::serialize(items, Some(metadata)).map_err(|e| CheckpointError::Write {
                path: path.to_path_buf(),
                source: io::Error::other(e.to_string()),
            })?;
        std::fs::write(path, bytes).map_err(|source| CheckpointError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

fn write_config(config: &LlamaConfig, dir: &Path) -> Result<(), CheckpointError> {
    std::fs::create_dir_all(dir).map_err(|source| CheckpointError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let path = dir.join("config.json");
    std::fs::write(&path, config.to_json())
        .map_err(|source| CheckpointError::Write { path, source })
}

impl Tensors for MemTensors {
    fn tensor(&self, name: &str) -> Result<TensorRef<'_>, CheckpointError> {
        let t = self
            .tensors
            .get(name)
            .ok_or_else(|| CheckpointError::MissingTensor {
                name: name.to_string(),
                location: "the in-memory tensors".to_string(),
            })?;
        Ok(TensorRef {
            name: name.to_string(),
            dtype: t.dtype,
            shape: t.shape.clone(),
            data: Cow::Borrowed(&t.data),
        })
    }
}
