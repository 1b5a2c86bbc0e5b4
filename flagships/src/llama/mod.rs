//! Llama decoding: a Hugging Face checkpoint loader and a float64 CPU reference decoder.
//!
//! - [`config`]: [`LlamaConfig`](config::LlamaConfig), a `config.json` checked for everything
//!   that changes the math (both the transformers 4 and 5 rope layouts), the tensors it implies,
//!   and the rotary frequencies as transformers computes them;
//! - [`checkpoint`]: [`Checkpoint`](checkpoint::Checkpoint), a directory of safetensors files
//!   (one file or sharded), memory-mapped and checked; [`MemTensors`](checkpoint::MemTensors),
//!   random weights in memory that can be written as a checkpoint;
//! - [`reference`](mod@reference): [`Reference`](reference::Reference), the float64 decoder the GPU decoder is
//!   tested against.

pub mod checkpoint;
pub mod config;
pub mod decoder;
pub mod graph;
pub mod reference;
