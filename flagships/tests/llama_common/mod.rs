//! What the Llama GPU tests share: 2-layer model configurations, random checkpoints written
//! to a temporary directory, token walks, the float64 reference's logits, error measures and
//! poisoned buffers.
#![allow(dead_code)]

use std::path::PathBuf;

use cuda_graph::cudarc::driver::CudaStream;
use cuda_graph_flagships::harness::Gpu;
use cuda_graph_flagships::llama::checkpoint::{Checkpoint, MemTensors};
use cuda_graph_flagships::llama::config::{DType, Llama3Scaling, LlamaConfig};
use cuda_graph_flagships::llama::decoder::{Element, State};
use cuda_graph_flagships::llama::reference::Reference;
use cuda_graph_flagships::llama::Prefill;

pub fn config(tied: bool, llama3: bool) -> LlamaConfig {
    LlamaConfig {
        hidden_size: 256,
        intermediate_size: 512,
        num_hidden_layers: 2,
        num_attention_heads: 8,
        num_key_value_heads: 2,
        head_dim: 64,
        rms_norm_eps: 1e-5,
        rope_theta: if llama3 { 500_000.0 } else { 10_000.0 },
        rope_scaling: llama3.then_some(Llama3Scaling {
            factor: 32.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position_embeddings: 64,
        }),
        tie_word_embeddings: tied,
        // Not a multiple of the head's 4 rows a block: the last block is partly empty.
        vocab_size: 1001,
        max_position_embeddings: 4096,
        eos_token_ids: vec![2],
        bos_token_id: Some(1),
        dtype: None,
    }
}

/// A fresh checkpoint directory with random weights.
pub fn checkpoint(name: &str, cfg: &LlamaConfig, dtype: DType, seed: u64) -> (PathBuf, Checkpoint) {
    let dir = std::env::temp_dir().join(format!("cg-llama-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = cfg.clone();
    cfg.dtype = Some(dtype);
    let t = MemTensors::random(&cfg, dtype, seed).expect("random weights");
    t.save(&cfg, &dir).expect("write the checkpoint");
    let ckpt = Checkpoint::open(&dir).expect("read it back");
    (dir, ckpt)
}

/// Tokens that walk the vocabulary.
pub fn tokens(n: usize, vocab: usize) -> Vec<u32> {
    (0..n).map(|i| ((i * 7919 + 13) % vocab) as u32).collect()
}

/// max |a - b| over max |b|, per row of `vocab`.
pub fn worst_row_error(ours: &[f32], reference: &[Vec<f64>]) -> f64 {
    let vocab = reference[0].len();
    let mut worst: f64 = 0.0;
    for (row, r) in ours.chunks(vocab).zip(reference) {
        let top = r.iter().fold(0f64, |m, v| m.max(v.abs()));
        let err = row
            .iter()
            .zip(r)
            .fold(0f64, |m, (a, b)| m.max((*a as f64 - b).abs()));
        assert!(row.iter().all(|v| v.is_finite()), "a logit is not finite");
        worst = worst.max(err / top);
    }
    worst
}

pub fn reference_logits(cfg: &LlamaConfig, ckpt: &Checkpoint, ids: &[u32]) -> Vec<Vec<f64>> {
    let mut r = Reference::new(cfg, ckpt, ids.len()).expect("reference");
    ids.iter()
        .map(|&t| r.step(t).expect("reference step"))
        .collect()
}

/// Every activation and cache element starts as a NaN, so a value read before it is written
/// shows up in the logits.
pub fn poison<T: Element>(gpu: &Gpu, s: &mut State<T>) {
    poison_on(&gpu.stream, s);
}

/// [`poison`] on a stream of the state's device.
pub fn poison_on<T: Element>(stream: &std::sync::Arc<CudaStream>, s: &mut State<T>) {
    let nan = T::from_f32(f32::NAN);
    for b in [
        &mut s.k_cache,
        &mut s.v_cache,
        &mut s.x,
        &mut s.q,
        &mut s.att,
        &mut s.h,
    ] {
        let n = b.len();
        stream.memcpy_htod(&vec![nan; n], b).unwrap();
    }
    for b in [&mut s.part_o, &mut s.part_ml, &mut s.logits, &mut s.best] {
        let n = b.len();
        stream.memcpy_htod(&vec![f32::NAN; n], b).unwrap();
    }
}

/// Every prefill activation starts as a NaN too.
pub fn poison_prefill<T: Element>(gpu: &Gpu, p: &mut Prefill<T>) {
    let nan = T::from_f32(f32::NAN);
    for b in [
        &mut p.xs,
        &mut p.ns,
        &mut p.qkvs,
        &mut p.atts,
        &mut p.hs,
        &mut p.acts,
    ] {
        let n = b.len();
        gpu.stream.memcpy_htod(&vec![nan; n], b).unwrap();
    }
    let n = p.parts.len();
    gpu.stream
        .memcpy_htod(&vec![f32::NAN; n], &mut p.parts)
        .unwrap();
}

/// The index of the largest value (the first on ties).
pub fn argmax<T: Copy + Into<f64>>(v: &[T]) -> usize {
    v.iter()
        .enumerate()
        .fold((0, f64::MIN), |b, (i, &x)| {
            let x: f64 = x.into();
            if x > b.1 {
                (i, x)
            } else {
                b
            }
        })
        .0
}
