//! The tensor-parallel generation graph (`llama::tp_loop`: the prefill and the WHILE loop of
//! decode steps split over ranks, all-reduces inside both conditional bodies): at world size 1
//! and, when two GPUs are present (`CUDA_GRAPH_REQUIRE_GPUS=2` makes their absence a failure),
//! 2, bit for bit the single-GPU generation graph (f32 and bf16), and against the float64 reference after prompts of 1, 8 and 150 tokens, stopping at an end id
//! and when the host asks (every rank stops after the same step: a later generation runs), and
//! a prompt longer than the prefill refused. Activations, caches and the prefill's buffers are
//! poisoned first.

mod llama_common;

use std::time::Duration;

use cuda_graph::comm::Communicator;
use cuda_graph::half::bf16;
use cuda_graph_flagships::harness::Gpu;
use cuda_graph_flagships::llama::checkpoint::Checkpoint;
use cuda_graph_flagships::llama::config::{DType, LlamaConfig};
use cuda_graph_flagships::llama::decoder::{Element, LlamaError, Shape, State, Weights};
use cuda_graph_flagships::llama::reference::Reference;
use cuda_graph_flagships::llama::tp::Rank;
use cuda_graph_flagships::llama::tp_loop::{TpGenElement, TpGenerator};
use cuda_graph_flagships::llama::{Generator, Prefill};
use llama_common::*;

const WAIT: Duration = Duration::from_secs(120);
const PROMPTS: [usize; 3] = [1, 8, 150];

/// Every rank of a communicator over `gpus`, each holding its share of `ckpt` (state
/// poisoned), and its prefill buffers for prompts of up to `max_prompt` tokens (poisoned).
fn ranks<T: TpGenElement>(
    gpus: &[Gpu],
    ckpt: &Checkpoint,
    shape: &Shape,
    max_prompt: usize,
) -> (Vec<Rank<T>>, Vec<Prefill<T>>) {
    let ctxs: Vec<_> = gpus.iter().map(|g| g.ctx.clone()).collect();
    let local = shape.shard(gpus.len()).unwrap();
    let mut prefills = Vec::new();
    let ranks = Communicator::local(&ctxs, WAIT)
        .unwrap()
        .into_iter()
        .zip(gpus)
        .map(|(c, gpu)| {
            let mut r = Rank::<T>::new(c, &ckpt.config, ckpt, shape).unwrap();
            poison_on(&r.stream, &mut r.state);
            let mut p = Prefill::<T>::new(&r.stream, &local, max_prompt).unwrap();
            r.stream.synchronize().unwrap();
            poison_prefill(gpu, &mut p);
            gpu.stream.synchronize().unwrap();
            prefills.push(p);
            r
        })
        .collect();
    (ranks, prefills)
}

fn greedy(cfg: &LlamaConfig, ckpt: &Checkpoint, prompt: &[u32], new: usize) -> Vec<u32> {
    let mut r = Reference::new(cfg, ckpt, prompt.len() + new).unwrap();
    r.greedy(prompt, new).unwrap()
}

/// The single-GPU generation graph's logits after each prompt of `PROMPTS` and its greedy
/// ids after the 8-token one.
fn single<T: Element>(gpu: &Gpu, ckpt: &Checkpoint, shape: &Shape) -> (Vec<Vec<f32>>, Vec<u32>) {
    let cfg = &ckpt.config;
    let weights = Weights::<T>::upload(&gpu.stream, cfg, ckpt, shape).unwrap();
    let mut state = State::<T>::new(&gpu.stream, shape).unwrap();
    let mut prefill = Prefill::<T>::new(&gpu.stream, shape, 150).unwrap();
    poison(gpu, &mut state);
    poison_prefill(gpu, &mut prefill);
    let mut gen = Generator::new(&gpu.ctx, shape, &weights, &mut state, &mut prefill, &[]).unwrap();
    let mut rows = Vec::new();
    for n in PROMPTS {
        gen.generate(&tokens(n, cfg.vocab_size), 1, |_| true)
            .unwrap();
        rows.push(gen.logits().unwrap());
    }
    let ids = gen
        .generate(&tokens(8, cfg.vocab_size), 40, |_| true)
        .unwrap();
    (rows, ids)
}

/// The same from the tensor-parallel generation over `gpus`.
fn split<T: TpGenElement>(
    gpus: &[Gpu],
    ckpt: &Checkpoint,
    shape: &Shape,
) -> (Vec<Vec<f32>>, Vec<u32>) {
    let vocab = ckpt.config.vocab_size;
    let (mut ranks, mut prefills) = ranks::<T>(gpus, ckpt, shape, 150);
    let mut gen = TpGenerator::new(shape, &mut ranks, &mut prefills, &[]).unwrap();
    assert_eq!(gen.world(), gpus.len());
    let mut rows = Vec::new();
    for n in PROMPTS {
        gen.generate(&tokens(n, vocab), 1, |_| true).unwrap();
        rows.push(gen.logits().unwrap());
    }
    let mut seen = Vec::new();
    let ids = gen
        .generate(&tokens(8, vocab), 40, |t| {
            seen.push(t);
            true
        })
        .unwrap();
    assert_eq!(seen, ids, "streamed as made");
    (rows, ids)
}

/// The generation over `gpus` is the single-GPU one bit for bit (its logits after each prompt
/// and its greedy ids), f32 and bf16: one rank, or two, each summing its half of a row-split
/// projection as the single-GPU kernels sum that half.
fn bit_for_bit(gpus: &[Gpu]) {
    let world = gpus.len();
    let (dir, ckpt) = checkpoint(
        &format!("tploop{world}-f32"),
        &config(false, true),
        DType::F32,
        5,
    );
    let shape = Shape::new(&ckpt.config, 256).unwrap();
    let (rows, ids) = split::<f32>(gpus, &ckpt, &shape);
    assert_eq!(
        (rows.clone(), ids.clone()),
        single::<f32>(&gpus[0], &ckpt, &shape),
        "f32 over {world} GPU(s)"
    );
    let prompt = tokens(8, ckpt.config.vocab_size);
    assert_eq!(ids, greedy(&ckpt.config, &ckpt, &prompt, 40));
    let _ = std::fs::remove_dir_all(dir);

    let (dir, ckpt) = checkpoint(
        &format!("tploop{world}-bf16"),
        &config(true, false),
        DType::BF16,
        9,
    );
    let shape = Shape::new(&ckpt.config, 256).unwrap();
    let got = split::<bf16>(gpus, &ckpt, &shape);
    assert!(got.0.iter().flatten().all(|v| v.is_finite()));
    assert_eq!(
        got,
        single::<bf16>(&gpus[0], &ckpt, &shape),
        "bf16 over {world} GPU(s)"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn world_one_is_the_single_gpu_generation_bit_for_bit() {
    let Some(gpu) = Gpu::find() else { return };
    bit_for_bit(&[gpu]);
}

#[test]
fn world_two_is_the_single_gpu_generation_bit_for_bit() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    bit_for_bit(&gpus);
}

/// Against the float64 reference: the logits after each prompt within 1e-4 of the row's
/// largest, the first token its argmax, greedy ids its; then stopping.
fn check_f32(gpus: &[Gpu], seed: u64) {
    let world = gpus.len();
    let (dir, ckpt) = checkpoint(
        &format!("tploop{world}-{seed}"),
        &config(false, false),
        DType::F32,
        seed,
    );
    let cfg = ckpt.config.clone();
    let shape = Shape::new(&cfg, 256).unwrap();
    let (rows, ids) = split::<f32>(gpus, &ckpt, &shape);
    for (n, ours) in PROMPTS.into_iter().zip(&rows) {
        let prompt = tokens(n, cfg.vocab_size);
        let reference = reference_logits(&cfg, &ckpt, &prompt);
        let err = worst_row_error(ours, &reference[n - 1..]);
        assert!(err < 1e-4, "world {world}, prompt {n}: logit error {err}");
    }
    let prompt = tokens(8, cfg.vocab_size);
    let want = greedy(&cfg, &ckpt, &prompt, 40);
    assert_eq!(ids, want, "world {world}: greedy ids");

    // The end id: the first token greedy decoding reaches at step k >= 3 that it has not made
    // before. Every rank stops there (else the next generation would hang on a rank still in
    // the loop).
    let k = (3..want.len())
        .find(|&k| !want[..k].contains(&want[k]))
        .expect("a new token after step 3");
    let (mut ranks, mut prefills) = ranks::<f32>(gpus, &ckpt, &shape, 8);
    let ends = [cfg.vocab_size as u32 + 5, want[k]];
    let mut gen = TpGenerator::new(&shape, &mut ranks, &mut prefills, &ends).unwrap();
    gen.set_timeout(Duration::from_secs(30));
    let mut seen = 0;
    let got = gen
        .generate(&prompt, 40, |_| {
            seen += 1;
            true
        })
        .unwrap();
    assert_eq!(
        got,
        want[..=k],
        "world {world}: stops at the end id, step {k}"
    );
    assert_eq!(
        seen,
        k + 1,
        "the host saw exactly the tokens up to the end id"
    );
    gen.stop_at_end_ids(false);
    assert_eq!(gen.generate(&prompt, 40, |_| true).unwrap(), want);
    // The host asks to stop after 5 tokens: it gets 5, every rank stops, and the next
    // generation runs on every rank.
    let mut n = 0;
    let few = gen
        .generate(&prompt, 40, |_| {
            n += 1;
            n < 5
        })
        .unwrap();
    assert_eq!(few, want[..5]);
    gen.stop_at_end_ids(true);
    assert_eq!(gen.generate(&prompt, 40, |_| true).unwrap(), want[..=k]);
    // A prompt longer than the prefill holds is refused before anything runs.
    let e = gen
        .generate(&tokens(9, cfg.vocab_size), 4, |_| true)
        .unwrap_err();
    assert!(
        matches!(e, LlamaError::PromptRows { tokens: 9, max: 8 }),
        "{e}"
    );
    let (timed, t) = gen.timed(&prompt, 40).unwrap();
    assert_eq!(timed, want[..=k]);
    assert!(t.ttft_ms > 0.0 && t.tokens_per_s > 0.0, "{t:?}");
    drop(gen);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn world_one_matches_the_reference_and_stops() {
    let Some(gpu) = Gpu::find() else { return };
    check_f32(&[gpu], 21);
}

#[test]
fn world_two_matches_the_reference_and_every_rank_stops_alike() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    check_f32(&gpus, 22);
}
