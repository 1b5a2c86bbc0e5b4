//! Realistic workloads built with cuda-graph, shared by their examples, tests and benchmarks
//! (this crate is not published):
//!
//! - [`cg`]: conjugate gradient on 2-D Poisson matrices, the whole solve one launch (a WHILE
//!   node), beside one graph launch per iteration and a host loop;
//! - [`mlp`]: a 3-layer MLP inference step with cuBLAS GEMMs captured as nodes;
//! - [`tp_mlp`]: a Megatron-style tensor-parallel MLP block, one graph a rank (the same
//!   `cuda_graph!` program: weight-streaming kernels of this crate for small batches, cuBLAS
//!   for larger), the partial outputs summed by an NCCL all-reduce node;
//! - [`harness`]: what every benchmark and GPU test here shares: a GPU or a printed skip,
//!   medians of repeated timings, results written as JSON;
//! - [`llama`]: a Llama checkpoint (the Hugging Face directory format) decoded with one launch
//!   of a step graph per token, every layer written once as a repeat block; the checkpoint
//!   loader and a float64 CPU reference decoder.
//!
//! Run the examples with `cargo run --release -p cuda-graph-flagships --example cg` (or `mlp`,
//! `tp_mlp`, or `llama -- <checkpoint dir>`).
#![warn(missing_docs)]

pub mod cg;
pub mod harness;
pub mod llama;
pub mod mlp;
pub mod tp_mlp;
