//! Reading a Hugging Face Llama checkpoint directory ([`Checkpoint`]), an in-memory stand-in
//! that makes and writes random checkpoints ([`MemTensors`]), and what both offer the decoders
//! ([`Tensors`], [`TensorRef`]).
//!
//! A checkpoint directory holds `config.json` and either `model.safetensors` or
//! `model.safetensors.index.json`, whose `weight_map` names the shard file of every tensor.
//! Every file is memory-mapped and its safetensors header checked against its length before any
//! tensor is read, so a truncated or corrupt file is an error, never a panic or an
//! out-of-bounds read.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

use memmap2::Mmap;
use safetensors::tensor::Metadata;
use safetensors::{Dtype as StDtype, SafeTensors};
use serde::{Deserialize, Serialize};

use super::config::{DType, LlamaConfig};

pub mod error;
mod mem;

pub use error::CheckpointError;
pub use mem::{MemTensor, MemTensors};

fn st_error(path: &Path, e: safetensors::SafeTensorError) -> CheckpointError {
    CheckpointError::Safetensors {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn from_st(dtype: StDtype) -> Option<DType> {
    match dtype {
        StDtype::F32 => Some(DType::F32),
        StDtype::BF16 => Some(DType::BF16),
        StDtype::F16 => Some(DType::F16),
        _ => None,
    }
}

fn to_st(dtype: DType) -> StDtype {
    match dtype {
        DType::F32 => StDtype::F32,
        DType::BF16 => StDtype::BF16,
        DType::F16 => StDtype::F16,
    }
}

/// One tensor: its dtype, shape and raw little-endian bytes (row-major), borrowed from a
/// memory-mapped file or a [`MemTensors`].
#[derive(Debug, Clone, PartialEq)]
pub struct TensorRef<'a> {
    /// The tensor's name (`model.layers.0.self_attn.q_proj.weight`).
    pub name: String,
    /// Its element type.
    pub dtype: DType,
    /// Its shape, outermost first.
    pub shape: Vec<usize>,
    /// `shape.product() * dtype.size()` bytes.
    pub data: Cow<'a, [u8]>,
}

impl TensorRef<'_> {
    /// The elements widened to `f32` (exact).
    pub fn to_f32(&self) -> Vec<f32> {
        self.dtype.decode(&self.data)
    }

    /// The elements widened to `f64` (exact).
    pub fn to_f64(&self) -> Vec<f64> {
        self.to_f32().into_iter().map(f64::from).collect()
    }

    /// Errors naming the tensor unless it has this shape and dtype.
    pub fn check(&self, shape: &[usize], dtype: DType) -> Result<(), CheckpointError> {
        if self.shape != shape {
            return Err(CheckpointError::Shape {
                name: self.name.clone(),
                expected: shape.to_vec(),
                found: self.shape.clone(),
            });
        }
        if self.dtype != dtype {
            return Err(CheckpointError::DType {
                name: self.name.clone(),
                expected: dtype,
                found: self.dtype,
            });
        }
        Ok(())
    }
}

/// A source of named tensors: a [`Checkpoint`] on disk or [`MemTensors`] in memory.
pub trait Tensors {
    /// The tensor `name`, or an error naming it (missing, or stored in an unsupported dtype).
    fn tensor(&self, name: &str) -> Result<TensorRef<'_>, CheckpointError>;
}

/// One memory-mapped safetensors file, its header parsed and checked against its length.
#[derive(Debug)]
struct Shard {
    path: PathBuf,
    map: Mmap,
    /// Offset of the data section (8 + header length).
    data_start: usize,
    metadata: Metadata,
}

impl Shard {
    fn open(path: &Path) -> Result<Shard, CheckpointError> {
        let read = |source| CheckpointError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(read)?;
        // SAFETY: the map is read-only and lives in the `Shard` beside nothing that writes the
        // file. Another process truncating or rewriting the file while it is mapped would change
        // the bytes under us (or fault): the caveat every memory-mapped checkpoint loader accepts.
        let map = unsafe { Mmap::map(&file) }.map_err(read)?;
        let (header_len, metadata) =
            SafeTensors::read_metadata(&map).map_err(|e| st_error(path, e))?;
        Ok(Shard {
            path: path.to_path_buf(),
            data_start: 8 + header_len,
            map,
            metadata,
        })
    }
}

/// The index of a sharded checkpoint (`model.safetensors.index.json`).
#[derive(Serialize, Deserialize)]
struct IndexFile {
    #[serde(default)]
    metadata: BTreeMap<String, serde_json::Value>,
    weight_map: BTreeMap<String, String>,
}

/// A checkpoint directory, its files memory-mapped. Tensors are read in place
/// ([`Cow::Borrowed`]).
#[derive(Debug)]
pub struct Checkpoint {
    /// The parsed `config.json`.
    pub config: LlamaConfig,
    dir: PathBuf,
    dtype: DType,
    shards: Vec<Shard>,
    /// Tensor name -> index in `shards`.
    names: BTreeMap<String, usize>,
    /// The index file, for a sharded checkpoint.
    index: Option<PathBuf>,
}

impl Checkpoint {
    /// Opens the checkpoint in `dir`: parses `config.json`, maps `model.safetensors` (or the
    /// shards `model.safetensors.index.json` names) and checks every file's header, and settles
    /// the dtype (the config's, else the one all tensors share). Tensor shapes are checked by
    /// [`check`](Self::check), not here.
    pub fn open(dir: impl AsRef<Path>) -> Result<Checkpoint, CheckpointError> {
        let dir = dir.as_ref().to_path_buf();
        let config_path = dir.join("config.json");
        let text = match std::fs::read_to_string(&config_path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(CheckpointError::NotACheckpoint { dir })
            }
            Err(source) => {
                return Err(CheckpointError::Read {
                    path: config_path,
                    source,
                })
            }
        };
        let config = LlamaConfig::from_json(&text).map_err(|e| CheckpointError::InFile {
            path: config_path.clone(),
            error: Box::new(e),
        })?;

        let single = dir.join("model.safetensors");
        let index_path = dir.join("model.safetensors.index.json");
        let (shards, names, index) = if single.exists() {
            let shard = Shard::open(&single)?;
            let names = shard
                .metadata
                .offset_keys()
                .into_iter()
                .map(|n| (n, 0))
                .collect();
            (vec![shard], names, None)
        } else if index_path.exists() {
            let (shards, names) = open_sharded(&dir, &index_path)?;
            (shards, names, Some(index_path))
        } else {
            return Err(CheckpointError::NoWeights { dir });
        };
        let mut checkpoint = Checkpoint {
            config,
            dir,
            dtype: DType::F32,
            shards,
            names,
            index,
        };
        checkpoint.dtype = match checkpoint.config.dtype {
            Some(dtype) => dtype,
            None => checkpoint.infer_dtype()?,
        };
        Ok(checkpoint)
    }

    /// The directory it was opened from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The weights' dtype: `config.json`'s, or (when it names none) the one every expected tensor
    /// present shares.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Every tensor name the files hold (or the index maps), sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }

    /// Checks that every tensor the config implies is present with its shape and the
    /// checkpoint's dtype; returns the first problem. Tensors nobody asks for (rotary buffers,
    /// ...) are ignored.
    pub fn check(&self) -> Result<(), CheckpointError> {
        for (name, shape) in self.config.expected_tensors() {
            self.tensor(&name)?.check(&shape, self.dtype)?;
        }
        Ok(())
    }

    fn infer_dtype(&self) -> Result<DType, CheckpointError> {
        let mut first: Option<(String, DType)> = None;
        for (name, _) in self.config.expected_tensors() {
            if !self.names.contains_key(&name) {
                continue;
            }
            let dtype = self.tensor(&name)?.dtype;
            match &first {
                None => first = Some((name, dtype)),
                Some((first_name, first_dtype)) if *first_dtype != dtype => {
                    return Err(CheckpointError::MixedDTypes {
                        first: first_name.clone(),
                        first_dtype: *first_dtype,
                        name,
                        dtype,
                    })
                }
                Some(_) => {}
            }
        }
        match first {
            Some((_, dtype)) => Ok(dtype),
            None => Err(CheckpointError::MissingTensor {
                name: "model.embed_tokens.weight".to_string(),
                location: self.location(),
            }),
        }
    }

    fn location(&self) -> String {
        format!("the checkpoint in {}", self.dir.display())
    }
}

/// Reads the index and maps each shard it names once.
fn open_sharded(
    dir: &Path,
    index_path: &Path,
) -> Result<(Vec<Shard>, BTreeMap<String, usize>), CheckpointError> {
    let text = std::fs::read_to_string(index_path).map_err(|source| CheckpointError::Read {
        path: index_path.to_path_buf(),
        source,
    })?;
    let index: IndexFile = serde_json::from_str(&text).map_err(|e| CheckpointError::Index {
        index: index_path.to_path_buf(),
        problem: format!(
            "not an index (a JSON object with a `weight_map` of tensor name to shard file): {e}"
        ),
    })?;
    let mut shards = Vec::new();
    let mut by_file: HashMap<String, usize> = HashMap::new();
    let mut names = BTreeMap::new();
    for (tensor, file) in index.weight_map {
        let inside = !file.is_empty()
            && Path::new(&file)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if !inside {
            return Err(CheckpointError::ShardOutsideDir {
                index: index_path.to_path_buf(),
                tensor,
                shard: file,
            });
        }
        let slot = match by_file.get(&file) {
            Some(&slot) => slot,
            None => {
                let path = dir.join(&file);
                if !path.is_file() {
                    return Err(CheckpointError::MissingShard {
                        index: index_path.to_path_buf(),
                        shard: path,
                        tensor,
                    });
                }
                shards.push(Shard::open(&path)?);
                by_file.insert(file, shards.len() - 1);
                shards.len() - 1
            }
        };
        names.insert(tensor, slot);
    }
    Ok((shards, names))
}

impl Tensors for Checkpoint {
    fn tensor(&self, name: &str) -> Result<TensorRef<'_>, CheckpointError> {
        let missing = |location| CheckpointError::MissingTensor {
            name: name.to_string(),
            location,
        };
        let shard = self
            .names
            .get(name)
            .and_then(|&i| self.shards.get(i))
            .ok_or_else(|| missing(self.location()))?;
        let info = shard.metadata.info(name).ok_or_else(|| {
            let index = self.index.as_deref().unwrap_or(Path::new("the index"));
            missing(format!(
                "{} (where {} puts it)",
                shard.path.display(),
                index.display()
            ))
        })?;
        let dtype = from_st(info.dtype).ok_or_else(|| CheckpointError::UnsupportedDType {
            name: name.to_string(),
            found: format!("{:?}", info.dtype),
        })?;
        let (start, end) = info.data_offsets;
        let data = shard
            .data_start
            .checked_add(start)
            .zip(shard.data_start.checked_add(end))
            .and_then(|(s, e)| shard.map.get(s..e))
            .ok_or_else(|| CheckpointError::Safetensors {
                path: shard.path.clone(),
                message: format!("tensor `{name}` lies outside the file"),
            })?;
        Ok(TensorRef {
            name: name.to_string(),
            dtype,
            shape: info.shape.clone(),
            data: Cow::Borrowed(data),
        })
    }
}
