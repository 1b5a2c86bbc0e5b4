//! Llama decoding: a Hugging Face checkpoint decoded on the GPU with one launch of a generation
//! graph per generation, or one launch of a step graph per token, and what that needs and is
//! checked against.
//!
//! - [`loop_graph`]: the generation graph (prefill of the prompt, then a WHILE node of decode
//!   steps); [`generator`]: [`Generator`] (one launch a generation, tokens read from mapped
//!   host memory while it runs, stopped at end ids or from the host; [`Streamed`] timings);
//! - [`graph`]: the step graph in `cuda_graph!` (every layer written once, a repeat block) and
//!   the kernels both graphs share (`kernels.cu`, `project.cuh`, `prefill.cuh`); [`device`]: the weights
//!   uploaded once, the KV cache, the prefill's buffers ([`Prefill`]); [`either`]: an
//!   executable graph of either element type;
//!   [`decoder`]: [`Decoder`] (greedy generation, streamed or back to back; teacher-forced
//!   logits; the position advanced on the device or set from the host);
//! - [`tp`]: the step graph split over the GPUs of one machine (tensor parallel: attention
//!   heads and the MLP's inner width shared out, NCCL all-reduces as nodes), one graph a rank,
//!   and [`TpDecoder`](tp::TpDecoder); [`tp_loop`]: the generation graph split the same way,
//!   collectives inside its conditional bodies under conditions agreed on the communicator,
//!   and [`TpGenerator`](tp_loop::TpGenerator) (one launch a generation on every GPU);
//! - [`config`]: [`LlamaConfig`](config::LlamaConfig), a `config.json` checked for everything
//!   that changes the math (both the transformers 4 and 5 rope layouts), the tensors it implies,
//!   and the rotary frequencies as transformers computes them;
//! - [`checkpoint`]: [`Checkpoint`], a directory of safetensors files
//!   (one file or sharded), memory-mapped and checked; [`MemTensors`](checkpoint::MemTensors),
//!   random weights in memory that can be written as a checkpoint;
//! - [`reference`](mod@reference): [`Reference`](reference::Reference), the float64 decoder the GPU decoder is
//!   tested against.

pub mod checkpoint;
pub mod config;
pub mod decoder;
pub mod device;
pub mod dtype;
pub mod either;
pub mod error;
pub mod generator;
pub mod graph;
pub mod loop_graph;
pub mod reference;
pub mod tp;
pub mod tp_loop;

pub use checkpoint::Checkpoint;
pub use decoder::{Decoder, Position, Shape, State, Steps, Weights};
pub use device::Prefill;
pub use generator::{Generator, Streamed};
