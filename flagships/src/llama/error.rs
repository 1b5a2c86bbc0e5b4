//! Why loading or decoding a Llama checkpoint failed.

use cuda_graph::cudarc::driver::DriverError;

use super::checkpoint::CheckpointError;
use super::config::DType;

/// Why decoding failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlamaError {
    /// Reading the checkpoint failed.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// Building, editing or launching the graph failed.
    #[error(transparent)]
    Graph(#[from] cuda_graph::Error),
    /// A copy or allocation failed.
    #[error("CUDA: {0}")]
    Driver(#[from] DriverError),
    /// A model shape the kernels do not support.
    #[error("the model's {what} is {value}, but the decoder needs {need}")]
    Shape {
        /// The dimension.
        what: &'static str,
        /// Its value.
        value: usize,
        /// What the kernels need.
        need: &'static str,
    },
    /// The checkpoint's element type is not the decoder's.
    #[error("the checkpoint holds {found} weights; this decoder was made for {expected}")]
    DType {
        /// The decoder's.
        expected: DType,
        /// The checkpoint's.
        found: DType,
    },
    /// A token id past the vocabulary.
    #[error("token id {id} is not below the vocabulary size {vocab}")]
    Token {
        /// The id.
        id: u32,
        /// Tokens in the vocabulary.
        vocab: usize,
    },
    /// More positions than the cache holds.
    #[error("{needed} positions are needed but the cache holds {max_ctx}; make the decoder with a larger context")]
    TooLong {
        /// Positions asked for.
        needed: usize,
        /// The cache's length.
        max_ctx: usize,
    },
    /// A prompt longer than the generation graph's prefill was made for.
    #[error("the prompt has {tokens} tokens but the prefill holds at most {max}; make the Prefill with a larger max_prompt")]
    PromptRows {
        /// Tokens in the prompt.
        tokens: usize,
        /// The longest prompt the prefill takes.
        max: usize,
    },
    /// More end ids than the generation graph holds.
    #[error("{count} end ids were given but the generation graph holds at most {max}")]
    EndIds {
        /// Ids given.
        count: usize,
        /// The most it holds.
        max: usize,
    },
    /// A node name the decode loop does not have.
    #[error("the decode loop has no node `{0}`; the nodes it can leave out are qkv, attn, o_proj, mlp_up, mlp_down")]
    NoNode(String),
    /// An empty prompt.
    #[error("the prompt is empty; give at least one token")]
    EmptyPrompt,
}

impl From<cuda_graph::error::CommError> for LlamaError {
    fn from(e: cuda_graph::error::CommError) -> Self {
        LlamaError::Graph(e.into())
    }
}

impl From<cuda_graph::error::EditError> for LlamaError {
    fn from(e: cuda_graph::error::EditError) -> Self {
        LlamaError::Graph(e.into())
    }
}
impl From<cuda_graph::error::LaunchError> for LlamaError {
    fn from(e: cuda_graph::error::LaunchError) -> Self {
        LlamaError::Graph(e.into())
    }
}
impl From<cuda_graph::error::AccessError> for LlamaError {
    fn from(e: cuda_graph::error::AccessError) -> Self {
        LlamaError::Graph(e.into())
    }
}
impl From<cuda_graph::error::InstantiateError> for LlamaError {
    fn from(e: cuda_graph::error::InstantiateError) -> Self {
        LlamaError::Graph(e.into())
    }
}
