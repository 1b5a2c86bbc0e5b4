//! The tensor-parallel Llama step (`llama::tp`): at world size 1 on one GPU and at world size 2
//! when two GPUs are present (`CUDA_GRAPH_REQUIRE_GPUS=2` makes their absence a failure),
//! against the float64 reference with every rank's logits equal, and bit for bit against the
//! single-GPU step graph (f32 and bf16). Activations and caches are
//! poisoned first. Shapes that do not split over the ranks are errors.

mod llama_common;

use std::time::Duration;

use cuda_graph::comm::Communicator;
use cuda_graph::half::bf16;
use cuda_graph_flagships::harness::Gpu;
use cuda_graph_flagships::llama::checkpoint::Checkpoint;
use cuda_graph_flagships::llama::config::DType;
use cuda_graph_flagships::llama::decoder::{
    Decoder, Element, Position, Shape, State, Steps, Weights,
};
use cuda_graph_flagships::llama::reference::Reference;
use cuda_graph_flagships::llama::tp::{Rank, TpDecoder, TpElement};
use llama_common::*;

const WAIT: Duration = Duration::from_secs(120);

/// Every rank of a communicator over `gpus`, each holding its share of `ckpt`.
fn ranks<T: TpElement>(gpus: &[Gpu], ckpt: &Checkpoint, shape: &Shape) -> Vec<Rank<T>> {
    let ctxs: Vec<_> = gpus.iter().map(|g| g.ctx.clone()).collect();
    Communicator::local(&ctxs, WAIT)
        .unwrap()
        .into_iter()
        .map(|c| {
            let mut r = Rank::<T>::new(c, &ckpt.config, ckpt, shape).unwrap();
            poison_on(&r.stream, &mut r.state);
            r
        })
        .collect()
}

/// The single-GPU step graph's teacher-forced logits over `ids`.
fn single<T: Element>(gpu: &Gpu, ckpt: &Checkpoint, shape: &Shape, ids: &[u32]) -> Vec<f32> {
    let weights = Weights::<T>::upload(&gpu.stream, &ckpt.config, ckpt, shape).unwrap();
    let mut state = State::<T>::new(&gpu.stream, shape).unwrap();
    poison(gpu, &mut state);
    let mut dec = Decoder::new(&gpu.ctx, shape, &weights, &mut state, Position::Counter).unwrap();
    let out = dec.teacher_forced(ids).unwrap();
    drop(dec);
    out
}

/// Teacher-forced logits within 1e-4 of the float64 reference's (row's largest), greedy ids
/// equal to its, on every rank the same logits.
fn check_f32(gpus: &[Gpu], ckpt: &Checkpoint) -> Vec<f32> {
    let cfg = &ckpt.config;
    // 200 positions: two attention chunks of 128.
    let ids = tokens(200, cfg.vocab_size);
    let shape = Shape::new(cfg, 256).unwrap();
    let mut ranks = ranks::<f32>(gpus, ckpt, &shape);
    let mut dec = TpDecoder::new(&shape, &mut ranks).unwrap();
    assert_eq!(dec.world(), gpus.len());
    let ours = dec.teacher_forced(&ids).unwrap();
    let err = worst_row_error(&ours, &reference_logits(cfg, ckpt, &ids));
    assert!(err < 1e-4, "world {}: worst logit error {err}", gpus.len());
    let every = dec.logits_of_every_rank().unwrap();
    assert!(every.iter().all(|l| l == &every[0]), "the ranks disagree");
    let prompt = &ids[..8];
    let want = Reference::new(cfg, ckpt, 64)
        .unwrap()
        .greedy(prompt, 40)
        .unwrap();
    let mut seen = Vec::new();
    let got = dec
        .generate(prompt, 40, |t| {
            seen.push(t);
            true
        })
        .unwrap();
    assert_eq!(got, want, "world {}: greedy ids", gpus.len());
    assert_eq!(seen, want);
    let (timed, timing) = dec.timed(prompt, 40).unwrap();
    assert_eq!(timed, want, "back to back");
    assert!(timing.tokens_per_s > 0.0);
    ours
}

/// The step over `gpus` against the reference, and bit for bit the single-GPU step graph
/// (f32 and bf16): one rank, or two, each summing its half of a row-split projection as the
/// single-GPU kernels sum that half.
fn bit_for_bit(gpus: &[Gpu], seeds: (u64, u64)) {
    let world = gpus.len();
    let cfg = config(false, world == 1);
    let (dir, ckpt) = checkpoint(&format!("tp{world}-f32"), &cfg, DType::F32, seeds.0);
    let ours = check_f32(gpus, &ckpt);
    let shape = Shape::new(&ckpt.config, 256).unwrap();
    let ids = tokens(200, ckpt.config.vocab_size);
    assert_eq!(
        ours,
        single::<f32>(&gpus[0], &ckpt, &shape, &ids),
        "f32: world {world} is the single-GPU step"
    );
    let _ = std::fs::remove_dir_all(dir);

    // bf16, tied head: the same bits as the single-GPU step graph.
    let (dir, ckpt) = checkpoint(
        &format!("tp{world}-bf16"),
        &config(true, false),
        DType::BF16,
        seeds.1,
    );
    let shape = Shape::new(&ckpt.config, 256).unwrap();
    let ids = tokens(150, ckpt.config.vocab_size);
    let mut ranks = ranks::<bf16>(gpus, &ckpt, &shape);
    let mut dec = TpDecoder::new(&shape, &mut ranks).unwrap();
    let tp = dec.teacher_forced(&ids).unwrap();
    drop(dec);
    assert!(tp.iter().all(|v| v.is_finite()));
    assert_eq!(
        tp,
        single::<bf16>(&gpus[0], &ckpt, &shape, &ids),
        "bf16, world {world}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn world_one_matches_the_reference_and_the_single_gpu_step_bit_for_bit() {
    let Some(gpu) = Gpu::find() else { return };
    bit_for_bit(&[gpu], (5, 9));
}

#[test]
fn world_two_matches_the_reference_and_the_single_gpu_step_bit_for_bit() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    bit_for_bit(&gpus, (6, 10));
}

#[test]
fn ranks_out_of_order_are_an_error() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    let (dir, ckpt) = checkpoint("tp2-order", &config(false, false), DType::F32, 6);
    let shape = Shape::new(&ckpt.config, 64).unwrap();
    let mut r = ranks::<f32>(&gpus, &ckpt, &shape);
    r.swap(0, 1);
    let e = TpDecoder::new(&shape, &mut r).map(|_| ()).unwrap_err();
    assert!(
        e.to_string()
            .contains("rank 1 of a communicator of 2 is given as rank 0 of 2"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_shape_that_does_not_split_over_the_ranks_is_an_error() {
    let shape = Shape::new(&config(false, false), 64).unwrap();
    // 8 query heads, 2 KV heads, 512 wide MLP.
    assert_eq!(shape.shard(2).unwrap().kv_heads, 1);
    assert_eq!(shape.shard(2).unwrap().ffn, 256);
    let e = shape.shard(4).unwrap_err().to_string();
    assert_eq!(
        e,
        "the model's number of KV heads is 2, but the decoder needs a multiple of the number of ranks, so every rank holds an equal share"
    );
    let e = shape.shard(0).unwrap_err().to_string();
    assert!(e.contains("number of query heads is 8"), "{e}");
}
