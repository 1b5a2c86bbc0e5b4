//! The Llama decoder on the GPU against the float64 reference (`llama::reference`), on
//! 2-layer checkpoints the test writes (random weights, the Hugging Face directory format):
//! teacher-forced logits at every step past two attention chunks, greedy ids, both ways of
//! advancing the position, tied and untied heads, llama3 rope scaling, bf16 weights; the
//! errors a bad input gives; and the programmatic edges the macro proved.

mod llama_common;

use cuda_graph::half::bf16;
use cuda_graph_flagships::harness::Gpu;
use cuda_graph_flagships::llama::checkpoint::Checkpoint;
use cuda_graph_flagships::llama::config::{DType, LlamaConfig};
use cuda_graph_flagships::llama::decoder::{
    Decoder, LlamaError, Position, Shape, State, Steps, Weights,
};
use cuda_graph_flagships::llama::reference::Reference;
use llama_common::*;

fn run_f32(gpu: &Gpu, cfg: &LlamaConfig, ckpt: &Checkpoint, position: Position) {
    // 260 positions: three attention chunks of 128.
    let ids = tokens(260, cfg.vocab_size);
    let shape = Shape::new(cfg, 300).unwrap();
    let weights = Weights::<f32>::upload(&gpu.stream, cfg, ckpt, &shape).unwrap();
    let mut state = State::<f32>::new(&gpu.stream, &shape).unwrap();
    poison(gpu, &mut state);
    let mut dec = Decoder::new(&gpu.ctx, &shape, &weights, &mut state, position).unwrap();
    let ours = dec.teacher_forced(&ids).unwrap();
    let reference = reference_logits(cfg, ckpt, &ids);
    let err = worst_row_error(&ours, &reference);
    assert!(
        err < 1e-4,
        "{position:?}: worst logit error {err} of the row's largest"
    );

    // Greedy ids: the same as the reference's, and the same through the streaming and the
    // timed paths.
    let prompt = &ids[..8];
    let mut r = Reference::new(cfg, ckpt, 64).unwrap();
    let want = r.greedy(prompt, 40).unwrap();
    let mut seen = Vec::new();
    let got = dec
        .generate(prompt, 40, |t| {
            seen.push(t);
            true
        })
        .unwrap();
    assert_eq!(got, want, "{position:?}: greedy ids");
    assert_eq!(seen, want);
    let (timed, timing) = dec.timed(prompt, 40).unwrap();
    assert_eq!(timed, want, "{position:?}: back-to-back steps");
    assert!(timing.tokens_per_s > 0.0);
    // Stopping early.
    let mut k = 0;
    let few = dec
        .generate(prompt, 40, |_| {
            k += 1;
            k < 6
        })
        .unwrap();
    assert_eq!(few, want[..6]);
}

#[test]
fn f32_decoder_matches_the_float64_reference() {
    let Some(gpu) = Gpu::find() else { return };
    for (tied, llama3) in [(false, false), (true, true)] {
        let cfg = config(tied, llama3);
        let (dir, ckpt) = checkpoint(&format!("f32-{tied}-{llama3}"), &cfg, DType::F32, 7);
        for position in [Position::Counter, Position::Setter] {
            run_f32(&gpu, &ckpt.config, &ckpt, position);
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn bf16_decoder_follows_the_reference() {
    let Some(gpu) = Gpu::find() else { return };
    let cfg = config(false, true);
    let (dir, ckpt) = checkpoint("bf16", &cfg, DType::BF16, 11);
    let cfg = ckpt.config.clone();
    let ids = tokens(200, cfg.vocab_size);
    let shape = Shape::new(&cfg, 256).unwrap();
    let weights = Weights::<bf16>::upload(&gpu.stream, &cfg, &ckpt, &shape).unwrap();
    let mut state = State::<bf16>::new(&gpu.stream, &shape).unwrap();
    poison(&gpu, &mut state);
    let mut dec = Decoder::new(&gpu.ctx, &shape, &weights, &mut state, Position::Counter).unwrap();
    let ours = dec.teacher_forced(&ids).unwrap();
    // The reference computes in float64 on the same (bf16) weights; the decoder rounds its
    // activations to bf16 where transformers does, so it is close, not equal.
    let reference = reference_logits(&cfg, &ckpt, &ids);
    let vocab = cfg.vocab_size;
    let (mut agree, mut err, mut spread) = (0usize, 0f64, 0f64);
    for (row, r) in ours.chunks(vocab).zip(&reference) {
        let am = |v: &mut dyn Iterator<Item = f64>| {
            v.enumerate()
                .fold((0, f64::MIN), |b, (i, x)| if x > b.1 { (i, x) } else { b })
                .0
        };
        agree += usize::from(am(&mut row.iter().map(|&v| v as f64)) == am(&mut r.iter().copied()));
        let mean = r.iter().sum::<f64>() / vocab as f64;
        spread += (r.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / vocab as f64).sqrt();
        err += row
            .iter()
            .zip(r)
            .map(|(a, b)| (*a as f64 - b).abs())
            .sum::<f64>()
            / vocab as f64;
    }
    let n = ids.len() as f64;
    let (agree, err) = (agree as f64 / n, err / spread);
    assert!(agree >= 0.95, "top-1 agreement {agree}");
    assert!(err <= 0.03, "mean logit error {err} of the logits' spread");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_inputs_are_errors() {
    let Some(gpu) = Gpu::find() else { return };
    let cfg = config(false, false);
    let (dir, ckpt) = checkpoint("errors", &cfg, DType::F32, 3);
    let shape = Shape::new(&ckpt.config, 64).unwrap();
    // An f32 checkpoint is not a bf16 model.
    match Weights::<bf16>::upload(&gpu.stream, &ckpt.config, &ckpt, &shape) {
        Err(LlamaError::DType {
            expected: DType::BF16,
            found: DType::F32,
        }) => {}
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("f32 weights were taken as bf16"),
    }
    let weights = Weights::<f32>::upload(&gpu.stream, &ckpt.config, &ckpt, &shape).unwrap();
    let mut state = State::<f32>::new(&gpu.stream, &shape).unwrap();
    let mut dec = Decoder::new(&gpu.ctx, &shape, &weights, &mut state, Position::Counter).unwrap();
    assert!(matches!(
        dec.generate(&[5, 5000], 3, |_| true),
        Err(LlamaError::Token { id: 5000, .. })
    ));
    assert!(matches!(
        dec.generate(&[5; 60], 10, |_| true),
        Err(LlamaError::TooLong {
            needed: 70,
            max_ctx: 64
        })
    ));
    assert!(matches!(
        dec.generate(&[], 10, |_| true),
        Err(LlamaError::EmptyPrompt)
    ));
    // Still usable after refusals.
    assert_eq!(dec.generate(&[5, 6], 3, |_| true).unwrap().len(), 3);
    // A shape the kernels do not take.
    let mut odd = ckpt.config.clone();
    odd.head_dim = 48;
    assert!(matches!(
        Shape::new(&odd, 64),
        Err(LlamaError::Shape { .. })
    ));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_intermediate_size_past_the_shared_memory_is_an_error_for_its_element_type() {
    let mut cfg = config(false, false);
    cfg.intermediate_size = 14336;
    let shape = Shape::new(&cfg, 64).unwrap();
    assert!(shape.check_element::<bf16>().is_ok());
    match shape.check_element::<f32>() {
        Err(
            e @ LlamaError::Shape {
                what: "intermediate size",
                value: 14336,
                ..
            },
        ) => assert!(e.to_string().contains("48 KiB"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_step_kernels_start_while_their_predecessors_finish() {
    // The macro proved from the source that each kernel waits for its predecessor before it
    // reads what that one writes (reading only weights before), so these edges are
    // programmatic; a change to a kernel that broke the proof would turn them back to plain.
    use cuda_graph_flagships::llama::graph::{StepBf16, StepF32};
    for dot in [StepF32::DOT, StepBf16::DOT] {
        for (a, b) in [
            ("qkv", "attn"),
            ("attn", "o_proj"),
            ("o_proj", "mlp_up"),
            ("mlp_up", "mlp_down"),
            ("head", "pick"),
        ] {
            let edge = format!("\"{a}\" -> \"{b}\" [style=bold, label=\"programmatic\"];");
            assert!(
                dot.contains(&edge),
                "{a} -> {b} is not programmatic:\n{dot}"
            );
        }
    }
}
