//! [`CheckpointError`]: every way reading, checking or writing a checkpoint can fail.

use std::io;
use std::path::PathBuf;

use crate::llama::dtype::DType;

/// What went wrong reading, checking or writing a checkpoint or its config.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// The directory has no `config.json`.
    #[error(
        "{} is not a checkpoint directory: it has no config.json (a Hugging Face Llama checkpoint \
         directory holds config.json and either model.safetensors or model.safetensors.index.json \
         with the shard files it names)",
        dir.display()
    )]
    NotACheckpoint {
        /// The directory given.
        dir: PathBuf,
    },
    /// The directory has a `config.json` but no weights.
    #[error(
        "{} has a config.json but no weights: expected model.safetensors or \
         model.safetensors.index.json beside it",
        dir.display()
    )]
    NoWeights {
        /// The directory given.
        dir: PathBuf,
    },
    /// A file could not be read (or memory-mapped).
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file or directory could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// An error about the contents of one file.
    #[error("{}: {error}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong in it.
        error: Box<CheckpointError>,
    },
    /// Text that is not JSON, or not the JSON expected.
    #[error("{what} is not valid JSON: {message}")]
    Json {
        /// Which document (`config.json`).
        what: String,
        /// The parser's message.
        message: String,
    },
    /// A config field that is missing, of the wrong JSON type, or out of range.
    #[error("config field `{field}`: {problem}")]
    ConfigField {
        /// The field (`rope_scaling.factor` for a nested one).
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A config field whose value asks for math this crate does not implement.
    #[error("config field `{field}` is {value}, which is not supported: {why}")]
    Unsupported {
        /// The field.
        field: String,
        /// Its value, as JSON.
        value: String,
        /// What that value would mean.
        why: String,
    },
    /// A safetensors file whose header or length is wrong.
    #[error("{} is not a valid safetensors file (truncated or corrupt?): {message}", path.display())]
    Safetensors {
        /// The file.
        path: PathBuf,
        /// The safetensors crate's message.
        message: String,
    },
    /// `model.safetensors.index.json` is not an index.
    #[error("{}: {problem}", index.display())]
    Index {
        /// The index file.
        index: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The index names a shard outside the checkpoint directory.
    #[error(
        "{} puts tensor `{tensor}` in `{shard}`, which is outside the checkpoint directory (shard \
         names must be file names inside it, without `..` or an absolute path)",
        index.display()
    )]
    ShardOutsideDir {
        /// The index file.
        index: PathBuf,
        /// A tensor mapped to that shard.
        tensor: String,
        /// The shard name as written in the index.
        shard: String,
    },
    /// The index names a shard file that does not exist.
    #[error("shard {} named by {} (for tensor `{tensor}`) does not exist", shard.display(), index.display())]
    MissingShard {
        /// The index file.
        index: PathBuf,
        /// The missing file.
        shard: PathBuf,
        /// A tensor mapped to it.
        tensor: String,
    },
    /// A tensor the model needs is not there.
    #[error("tensor `{name}` is missing from {location}")]
    MissingTensor {
        /// The tensor.
        name: String,
        /// Where it was looked for.
        location: String,
    },
    /// A tensor of the wrong shape.
    #[error("tensor `{name}`: expected shape {expected:?}, found {found:?}")]
    Shape {
        /// The tensor.
        name: String,
        /// The shape the config implies.
        expected: Vec<usize>,
        /// The shape stored.
        found: Vec<usize>,
    },
    /// A tensor of another dtype than the checkpoint's.
    #[error("tensor `{name}`: expected dtype {expected}, found {found}")]
    DType {
        /// The tensor.
        name: String,
        /// The checkpoint's dtype.
        expected: DType,
        /// The dtype stored.
        found: DType,
    },
    /// A tensor stored in a dtype other than F32, BF16 or F16.
    #[error("tensor `{name}` is stored as {found}; only F32, BF16 and F16 weights are supported")]
    UnsupportedDType {
        /// The tensor.
        name: String,
        /// The safetensors dtype stored.
        found: String,
    },
    /// The config names no dtype and the tensors disagree.
    #[error(
        "config.json names no dtype and the tensors disagree: `{first}` is {first_dtype} but \
         `{name}` is {dtype}"
    )]
    MixedDTypes {
        /// The first tensor read.
        first: String,
        /// Its dtype.
        first_dtype: DType,
        /// A tensor of another dtype.
        name: String,
        /// That dtype.
        dtype: DType,
    },
    /// Bytes that do not match a tensor's shape and dtype.
    #[error("tensor `{name}`: {problem}")]
    BadTensor {
        /// The tensor.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// An argument out of range (zero shards, ...).
    #[error("{0}")]
    Argument(String),
}
