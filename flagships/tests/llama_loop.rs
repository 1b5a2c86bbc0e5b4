//! A whole generation in one launch (the generation graph: prefill, then a WHILE loop of
//! decode steps, tokens read from mapped host memory) against the float64 reference, on 2-layer
//! checkpoints the test writes: greedy ids after prompts of 1, 8, 40 and 150 tokens (the
//! prefill empty, inside one tile, and past two attention chunks), the logits after the
//! prefill, bf16 weights, stopping at an end id and at the host's request, and the errors a bad
//! input gives.

mod llama_common;

use cuda_graph::half::bf16;
use cuda_graph_flagships::harness::Gpu;
use cuda_graph_flagships::llama::checkpoint::Checkpoint;
use cuda_graph_flagships::llama::config::{DType, LlamaConfig};
use cuda_graph_flagships::llama::decoder::{LlamaError, Shape, State, Weights};
use cuda_graph_flagships::llama::reference::Reference;
use cuda_graph_flagships::llama::{Generator, Prefill};
use llama_common::*;

const PROMPTS: [usize; 4] = [1, 8, 40, 150];

fn greedy(cfg: &LlamaConfig, ckpt: &Checkpoint, prompt: &[u32], new: usize) -> Vec<u32> {
    let mut r = Reference::new(cfg, ckpt, prompt.len() + new).unwrap();
    r.greedy(prompt, new).unwrap()
}

#[test]
fn f32_generation_in_one_launch_matches_the_float64_reference() {
    let Some(gpu) = Gpu::find() else { return };
    for (tied, llama3) in [(false, false), (true, true)] {
        let cfg = config(tied, llama3);
        let (dir, ckpt) = checkpoint(&format!("loop-f32-{tied}-{llama3}"), &cfg, DType::F32, 5);
        let cfg = ckpt.config.clone();
        let shape = Shape::new(&cfg, 256).unwrap();
        let weights = Weights::<f32>::upload(&gpu.stream, &cfg, &ckpt, &shape).unwrap();
        let mut state = State::<f32>::new(&gpu.stream, &shape).unwrap();
        let mut prefill = Prefill::<f32>::new(&gpu.stream, &shape, 150).unwrap();
        poison(&gpu, &mut state);
        poison_prefill(&gpu, &mut prefill);
        let mut gen =
            Generator::new(&gpu.ctx, &shape, &weights, &mut state, &mut prefill, &[]).unwrap();
        for n in PROMPTS {
            let prompt = tokens(n, cfg.vocab_size);
            // The logits after the prefill and the first step: the prompt's last row.
            let one = gen.generate(&prompt, 1, |_| true).unwrap();
            let ours = gen.logits().unwrap();
            let reference = reference_logits(&cfg, &ckpt, &prompt);
            let last = &reference[n - 1..];
            let err = worst_row_error(&ours, last);
            assert!(
                err < 1e-4,
                "prompt {n}: logit error {err} of the row's largest"
            );
            assert_eq!(one, [argmax(&last[0]) as u32], "prompt {n}: first token");
            // Greedy ids, streamed as they come.
            let want = greedy(&cfg, &ckpt, &prompt, 40);
            let mut seen = Vec::new();
            let got = gen
                .generate(&prompt, 40, |t| {
                    seen.push(t);
                    true
                })
                .unwrap();
            assert_eq!(got, want, "prompt {n}: greedy ids");
            assert_eq!(seen, want, "prompt {n}: streamed ids");
            let (timed, t) = gen.timed(&prompt, 40).unwrap();
            assert_eq!(timed, want, "prompt {n}: timed");
            assert!(t.ttft_ms > 0.0 && t.tokens_per_s > 0.0, "{t:?}");
        }
        drop(gen);
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn bf16_generation_follows_the_reference() {
    let Some(gpu) = Gpu::find() else { return };
    let cfg = config(false, true);
    let (dir, ckpt) = checkpoint("loop-bf16", &cfg, DType::BF16, 13);
    let cfg = ckpt.config.clone();
    let shape = Shape::new(&cfg, 256).unwrap();
    let weights = Weights::<bf16>::upload(&gpu.stream, &cfg, &ckpt, &shape).unwrap();
    let mut state = State::<bf16>::new(&gpu.stream, &shape).unwrap();
    let mut prefill = Prefill::<bf16>::new(&gpu.stream, &shape, 150).unwrap();
    poison(&gpu, &mut state);
    poison_prefill(&gpu, &mut prefill);
    let mut gen =
        Generator::new(&gpu.ctx, &shape, &weights, &mut state, &mut prefill, &[]).unwrap();
    let vocab = cfg.vocab_size;
    let (mut agree, mut err) = (0, 0f64);
    for n in PROMPTS {
        let prompt = tokens(n, vocab);
        gen.generate(&prompt, 1, |_| true).unwrap();
        let ours = gen.logits().unwrap();
        assert!(ours.iter().all(|v| v.is_finite()), "prompt {n}");
        let reference = reference_logits(&cfg, &ckpt, &prompt);
        let r = &reference[n - 1];
        let mean = r.iter().sum::<f64>() / vocab as f64;
        let spread = (r.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / vocab as f64).sqrt();
        let e = ours
            .iter()
            .zip(r)
            .map(|(a, b)| (*a as f64 - b).abs())
            .sum::<f64>()
            / vocab as f64;
        err = f64::max(err, e / spread);
        agree += usize::from(argmax(&ours) == argmax(r));
    }
    // bf16 activations, rounded where transformers rounds them: close to the float64
    // reference, not equal.
    assert!(agree >= 3, "top-1 agreement {agree} of 4");
    assert!(err <= 0.03, "mean logit error {err} of the logits' spread");
    drop(gen);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_loop_stops_at_an_end_id_and_when_the_host_asks() {
    let Some(gpu) = Gpu::find() else { return };
    let cfg = config(false, false);
    let (dir, ckpt) = checkpoint("loop-stop", &cfg, DType::F32, 21);
    let cfg = ckpt.config.clone();
    let prompt = tokens(8, cfg.vocab_size);
    let want = greedy(&cfg, &ckpt, &prompt, 40);
    // The end id: the first token greedy decoding reaches at step k >= 3 that it has not
    // made before.
    let k = (3..want.len())
        .find(|&k| !want[..k].contains(&want[k]))
        .expect("a new token after step 3");
    let shape = Shape::new(&cfg, 128).unwrap();
    let weights = Weights::<f32>::upload(&gpu.stream, &cfg, &ckpt, &shape).unwrap();
    let mut state = State::<f32>::new(&gpu.stream, &shape).unwrap();
    let mut prefill = Prefill::<f32>::new(&gpu.stream, &shape, 8).unwrap();
    let ends = [cfg.vocab_size as u32 + 5, want[k]];
    let mut gen =
        Generator::new(&gpu.ctx, &shape, &weights, &mut state, &mut prefill, &ends).unwrap();
    let mut seen = 0;
    let got = gen
        .generate(&prompt, 40, |_| {
            seen += 1;
            true
        })
        .unwrap();
    assert_eq!(got, want[..=k], "stops at the end id, step {k}");
    assert_eq!(
        seen,
        k + 1,
        "the host saw exactly the tokens up to the end id"
    );
    // Without the end ids: all 40.
    gen.stop_at_end_ids(false);
    assert_eq!(gen.generate(&prompt, 40, |_| true).unwrap(), want);
    // The host asks to stop after 5 tokens: it gets 5, and the graph runs on next time.
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
    drop(gen);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_generation_inputs_are_errors_and_leave_it_usable() {
    let Some(gpu) = Gpu::find() else { return };
    let cfg = config(false, false);
    let (dir, ckpt) = checkpoint("loop-errors", &cfg, DType::F32, 3);
    let cfg = ckpt.config.clone();
    let shape = Shape::new(&cfg, 64).unwrap();
    let weights = Weights::<f32>::upload(&gpu.stream, &cfg, &ckpt, &shape).unwrap();
    let mut state = State::<f32>::new(&gpu.stream, &shape).unwrap();
    let mut prefill = Prefill::<f32>::new(&gpu.stream, &shape, 16).unwrap();
    assert!(matches!(
        Generator::new(
            &gpu.ctx,
            &shape,
            &weights,
            &mut state,
            &mut prefill,
            &[7; 17]
        ),
        Err(LlamaError::EndIds { count: 17, max: 16 })
    ));
    let mut gen =
        Generator::new(&gpu.ctx, &shape, &weights, &mut state, &mut prefill, &[]).unwrap();
    assert!(matches!(
        gen.generate(&[5, 5000], 3, |_| true),
        Err(LlamaError::Token { id: 5000, .. })
    ));
    assert!(matches!(
        gen.generate(&[5; 16], 60, |_| true),
        Err(LlamaError::TooLong {
            needed: 76,
            max_ctx: 64
        })
    ));
    assert!(matches!(
        gen.generate(&[5; 17], 3, |_| true),
        Err(LlamaError::PromptRows {
            tokens: 17,
            max: 16
        })
    ));
    assert!(matches!(
        gen.generate(&[], 3, |_| true),
        Err(LlamaError::EmptyPrompt)
    ));
    assert!(gen.generate(&[5, 6], 0, |_| true).unwrap().is_empty());
    // Still usable after refusals.
    let want = greedy(&cfg, &ckpt, &[5, 6], 3);
    assert_eq!(gen.generate(&[5, 6], 3, |_| true).unwrap(), want);
    drop(gen);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_generation_kernels_start_while_their_predecessors_finish() {
    use cuda_graph_flagships::llama::loop_graph::{GenBf16, GenF32};
    for dot in [GenF32::DOT, GenBf16::DOT] {
        for (a, b) in [
            ("p_norm", "p_qkv"),
            ("p_qkv", "p_rope"),
            ("p_attn", "p_o"),
            ("p_act", "p_down"),
            ("qkv", "attn"),
            ("mlp_up", "mlp_down"),
        ] {
            let edge = format!("\"{a}\" -> \"{b}\" [style=bold, label=\"programmatic\"];");
            assert!(
                dot.contains(&edge),
                "{a} -> {b} is not programmatic:\n{dot}"
            );
        }
        assert!(dot.contains("label=\"run: while\""), "{dot}");
        assert!(dot.contains("label=\"fill: if\""), "{dot}");
    }
    // The picture in the docs is this graph's.
    let drawn = include_str!("../../docs/llama-generation.dot");
    assert_eq!(
        drawn.trim_end(),
        GenBf16::DOT.trim_end(),
        "docs/llama-generation.dot is stale"
    );
}
