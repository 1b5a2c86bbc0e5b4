//! The float64 reference decoder on the host (no GPU): each piece of the math (RMSNorm, rope,
//! softmax, SiLU, the grouped-query head mapping) on inputs worked out by hand, whole 1-layer
//! models whose logits are computed here step by step, tied and untied heads, random weights
//! whose logits have a clear argmax, and greedy decoding that repeats itself.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use cuda_graph_flagships::llama::checkpoint::{Checkpoint, MemTensors, Tensors};
use cuda_graph_flagships::llama::config::{DType, LlamaConfig};
use cuda_graph_flagships::llama::reference::{
    argmax, kv_head, rms_norm, rope, silu, softmax, Reference, StepError,
};

fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "element {i}: {x} vs {y}"
        );
    }
}

fn config(
    hidden: usize,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    vocab: usize,
) -> LlamaConfig {
    LlamaConfig {
        hidden_size: hidden,
        intermediate_size: 2,
        num_hidden_layers: 1,
        num_attention_heads: heads,
        num_key_value_heads: kv_heads,
        head_dim,
        rms_norm_eps: 0.0,
        rope_theta: 10_000.0,
        rope_scaling: None,
        tie_word_embeddings: false,
        vocab_size: vocab,
        max_position_embeddings: 64,
        eos_token_ids: vec![],
        bos_token_id: None,
        dtype: Some(DType::F32),
    }
}

/// `rows x cols` row-major with ones on the diagonal.
fn identity(rows: usize, cols: usize) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| if i / cols == i % cols { 1.0 } else { 0.0 })
        .collect()
}

/// Weights for a 1-layer `config`: the given embedding, q/k/v/o projections, lm_head = identity
/// (so logits = the final normalized residual), norms all ones, and an MLP that adds nothing
/// (down_proj = 0).
fn weights(
    config: &LlamaConfig,
    embed: &[f32],
    q: &[f32],
    k: &[f32],
    v: &[f32],
    o: &[f32],
) -> MemTensors {
    let mut m = MemTensors::new();
    let h = config.hidden_size;
    let f = DType::F32;
    let put = |m: &mut MemTensors, name: &str, shape: Vec<usize>, values: &[f32]| {
        m.insert_f32(name, f, shape, values).unwrap();
    };
    put(
        &mut m,
        "model.embed_tokens.weight",
        vec![config.vocab_size, h],
        embed,
    );
    put(
        &mut m,
        "model.layers.0.input_layernorm.weight",
        vec![h],
        &vec![1.0; h],
    );
    put(
        &mut m,
        "model.layers.0.self_attn.q_proj.weight",
        vec![config.q_dim(), h],
        q,
    );
    put(
        &mut m,
        "model.layers.0.self_attn.k_proj.weight",
        vec![config.kv_dim(), h],
        k,
    );
    put(
        &mut m,
        "model.layers.0.self_attn.v_proj.weight",
        vec![config.kv_dim(), h],
        v,
    );
    put(
        &mut m,
        "model.layers.0.self_attn.o_proj.weight",
        vec![h, config.q_dim()],
        o,
    );
    put(
        &mut m,
        "model.layers.0.post_attention_layernorm.weight",
        vec![h],
        &vec![1.0; h],
    );
    put(
        &mut m,
        "model.layers.0.mlp.gate_proj.weight",
        vec![2, h],
        &vec![0.5; 2 * h],
    );
    put(
        &mut m,
        "model.layers.0.mlp.up_proj.weight",
        vec![2, h],
        &vec![0.25; 2 * h],
    );
    put(
        &mut m,
        "model.layers.0.mlp.down_proj.weight",
        vec![h, 2],
        &vec![0.0; 2 * h],
    );
    put(&mut m, "model.norm.weight", vec![h], &vec![1.0; h]);
    put(
        &mut m,
        "lm_head.weight",
        vec![config.vocab_size, h],
        &identity(config.vocab_size, h),
    );
    m
}

/// `x / rms(x)`, the test's own RMSNorm (eps 0, weight 1).
fn normalize(x: &[f64]) -> Vec<f64> {
    let rms = (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt();
    x.iter().map(|v| v / rms).collect()
}

#[test]
fn rms_norm_by_hand() {
    // mean(9, 16) = 12.5.
    let r = 12.5f64.sqrt();
    close(
        &rms_norm(&[3.0, 4.0], &[1.0, 2.0], 0.0),
        &[3.0 / r, 8.0 / r],
        1e-15,
    );
    // eps adds under the root: mean(1, 1) + 3 = 4.
    close(
        &rms_norm(&[1.0, -1.0], &[1.0, 1.0], 3.0),
        &[0.5, -0.5],
        1e-15,
    );
}

#[test]
fn rope_pairs_element_i_with_i_plus_half() {
    let mut head = [1.0, 2.0, 3.0, 4.0];
    rope(&mut head, 2, &[1.0, 0.5]);
    // Pair (0, 2) turns by 2 * 1 = 2 rad; pair (1, 3) by 2 * 0.5 = 1 rad.
    let (s2, c2) = 2f64.sin_cos();
    let (s1, c1) = 1f64.sin_cos();
    close(
        &head,
        &[
            1.0 * c2 - 3.0 * s2,
            2.0 * c1 - 4.0 * s1,
            3.0 * c2 + 1.0 * s2,
            4.0 * c1 + 2.0 * s1,
        ],
        1e-15,
    );

    let mut head = [1.0, 2.0, 3.0, 4.0];
    rope(&mut head, 0, &[1.0, 0.5]);
    assert_eq!(head, [1.0, 2.0, 3.0, 4.0]);

    // q·k after rope depends only on the distance between the positions.
    let inv = config(8, 1, 1, 8, 2).inv_freq_f64();
    let dot = |m: usize, n: usize| {
        let mut q = [0.3, -1.0, 0.7, 2.0, 0.1, 0.5, -0.4, 1.5];
        let mut k = [1.1, 0.2, -0.6, 0.9, 1.3, -0.8, 0.25, 0.6];
        rope(&mut q, m, &inv);
        rope(&mut k, n, &inv);
        q.iter().zip(&k).map(|(a, b)| a * b).sum::<f64>()
    };
    assert!((dot(5, 2) - dot(13, 10)).abs() < 1e-12);
    assert!((dot(5, 2) - dot(2, 5)).abs() > 1e-3);
}

#[test]
fn softmax_silu_and_argmax() {
    assert_eq!(softmax(&[3.7]), vec![1.0]);
    close(&softmax(&[0.0, 3f64.ln()]), &[0.25, 0.75], 1e-15);
    close(&softmax(&[1000.0, 1000.0]), &[0.5, 0.5], 1e-15);
    assert_eq!(silu(0.0), 0.0);
    assert!((silu(1.0) - 1.0 / (1.0 + (-1f64).exp())).abs() < 1e-15);
    assert!(silu(-1000.0).abs() < 1e-300);
    assert_eq!(argmax(&[0.5, 2.0, -1.0, 2.0]), 1);
    assert_eq!(argmax(&[f64::NAN, -3.0, 1.0]), 2);
    assert_eq!(argmax(&[]), 0);
}

#[test]
fn grouped_query_heads_map_to_consecutive_kv_heads() {
    let map = |heads, kv| {
        (0..heads)
            .map(|h| kv_head(&config(64, heads, kv, 16, 8), h))
            .collect::<Vec<_>>()
    };
    assert_eq!(map(4, 2), [0, 0, 1, 1]);
    assert_eq!(map(8, 2), [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(map(4, 4), [0, 1, 2, 3]);
    assert_eq!(map(4, 1), [0, 0, 0, 0]);
}

#[test]
fn one_layer_with_zero_queries_averages_the_values() {
    // hidden 4, 2 query heads sharing 1 kv head of width 2. q = k = 0: every score is 0, so
    // attention is the plain mean of the values so far (and exactly v at position 0).
    let c = config(4, 2, 1, 2, 4);
    let embed = [
        1.0, 2.0, 3.0, 4.0, 4.0, 3.0, 2.0, 1.0, 1.0, -1.0, 1.0, -1.0, 2.0, 0.0, 0.0, 1.0,
    ];
    let v = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]; // v = (h0, h1)
    let m = weights(&c, &embed, &[0.0; 16], &[0.0; 8], &v, &identity(4, 4));
    let mut r = Reference::new(&c, &m, 8).unwrap();
    let e = |t: usize| {
        embed[4 * t..4 * t + 4]
            .iter()
            .map(|&x| x as f64)
            .collect::<Vec<_>>()
    };

    let mut values: Vec<[f64; 2]> = Vec::new();
    for (step, token) in [0usize, 1, 3, 2].into_iter().enumerate() {
        assert_eq!(r.pos(), step);
        let h = normalize(&e(token));
        values.push([h[0], h[1]]);
        let n = values.len() as f64;
        let mean = [
            values.iter().map(|v| v[0]).sum::<f64>() / n,
            values.iter().map(|v| v[1]).sum::<f64>() / n,
        ];
        // Both query heads read kv head 0; o_proj = identity places them side by side.
        let x: Vec<f64> = (0..4).map(|i| e(token)[i] + mean[i % 2]).collect();
        close(&r.step(token as u32).unwrap(), &normalize(&x), 1e-12);
    }
}

#[test]
fn grouped_query_attention_reads_the_right_kv_head() {
    // hidden 8, 4 query heads, 2 kv heads of width 2: kv head 0's value is (h0, h1), kv head
    // 1's is (h2, h3). Query heads 0, 1 read kv head 0 and heads 2, 3 read kv head 1, so the
    // attention output is (h0, h1, h0, h1, h2, h3, h2, h3).
    let c = config(8, 4, 2, 2, 8);
    let embed: Vec<f32> = (0..64).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let m = weights(
        &c,
        &embed,
        &[0.0; 64],
        &[0.0; 32],
        &identity(4, 8),
        &identity(8, 8),
    );
    let mut r = Reference::new(&c, &m, 4).unwrap();
    let token = 5;
    let e: Vec<f64> = embed[8 * token..8 * token + 8]
        .iter()
        .map(|&x| x as f64)
        .collect();
    let h = normalize(&e);
    let attn = [h[0], h[1], h[0], h[1], h[2], h[3], h[2], h[3]];
    let x: Vec<f64> = e.iter().zip(attn).map(|(a, b)| a + b).collect();
    close(&r.step(token as u32).unwrap(), &normalize(&x), 1e-12);
}

#[test]
fn attention_scores_use_rope_and_the_square_root_of_head_dim() {
    // hidden 2 = one head of width 2, q = k = v = o = identity: inv_freq = [1], so position p
    // turns (a, b) by p radians.
    let c = config(2, 1, 1, 2, 2);
    let embed = [1.0, 0.5, -0.25, 1.0];
    let m = weights(
        &c,
        &embed,
        &identity(2, 2),
        &identity(2, 2),
        &identity(2, 2),
        &identity(2, 2),
    );
    let mut r = Reference::new(&c, &m, 2).unwrap();
    let turn = |v: &[f64], p: f64| {
        vec![
            v[0] * p.cos() - v[1] * p.sin(),
            v[1] * p.cos() + v[0] * p.sin(),
        ]
    };
    let dot = |a: &[f64], b: &[f64]| a[0] * b[0] + a[1] * b[1];

    let e0 = [1.0, 0.5];
    let h0 = normalize(&e0);
    // Position 0: one score, weight 1, attention = v0 = h0.
    let x0: Vec<f64> = (0..2).map(|i| e0[i] + h0[i]).collect();
    close(&r.step(0).unwrap(), &normalize(&x0), 1e-12);

    let e1 = [-0.25, 1.0];
    let h1 = normalize(&e1);
    let q1 = turn(&h1, 1.0);
    let k0 = turn(&h0, 0.0);
    let k1 = turn(&h1, 1.0);
    let s0 = dot(&q1, &k0) / 2f64.sqrt();
    let s1 = dot(&q1, &k1) / 2f64.sqrt();
    let p0 = s0.exp() / (s0.exp() + s1.exp());
    let p1 = 1.0 - p0;
    let x1: Vec<f64> = (0..2).map(|i| e1[i] + p0 * h0[i] + p1 * h1[i]).collect();
    close(&r.step(1).unwrap(), &normalize(&x1), 1e-12);

    assert_eq!(r.step(0), Err(StepError::CacheFull { max_positions: 2 }));
    r.reset();
    assert_eq!(r.pos(), 0);
    close(&r.step(0).unwrap(), &normalize(&x0), 1e-12);
}

fn tiny(tied: bool) -> LlamaConfig {
    LlamaConfig {
        hidden_size: 64,
        intermediate_size: 128,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        head_dim: 16,
        rms_norm_eps: 1e-5,
        rope_theta: 10_000.0,
        rope_scaling: None,
        tie_word_embeddings: tied,
        vocab_size: 256,
        max_position_embeddings: 512,
        eos_token_ids: vec![2],
        bos_token_id: Some(1),
        dtype: Some(DType::BF16),
    }
}

fn std_dev(x: &[f64]) -> f64 {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / x.len() as f64).sqrt()
}

#[test]
fn random_weights_give_logits_with_a_clear_spread() {
    for tied in [false, true] {
        let c = tiny(tied);
        let m = MemTensors::random(&c, DType::BF16, 11).unwrap();
        let mut r = Reference::new(&c, &m, 16).unwrap();
        for token in [1u32, 17, 200, 5, 5, 64] {
            let logits = r.step(token).unwrap();
            assert_eq!(logits.len(), 256);
            assert!(logits.iter().all(|v| v.is_finite()));
            let s = std_dev(&logits);
            assert!((1.0..=4.0).contains(&s), "tied {tied}: logit std {s}");
        }
    }
}

#[test]
fn tied_head_is_the_embedding() {
    let c = tiny(true);
    let tied = MemTensors::random(&c, DType::F32, 4).unwrap();
    let mut untied = tied.clone();
    let embed = tied.tensor("model.embed_tokens.weight").unwrap();
    untied
        .insert(
            "lm_head.weight",
            embed.dtype,
            embed.shape.clone(),
            embed.data.to_vec(),
        )
        .unwrap();
    let uc = LlamaConfig {
        tie_word_embeddings: false,
        ..c.clone()
    };
    let mut a = Reference::new(&c, &tied, 8).unwrap();
    let mut b = Reference::new(&uc, &untied, 8).unwrap();
    for token in [3u32, 9, 27] {
        assert_eq!(a.step(token).unwrap(), b.step(token).unwrap());
    }

    // Another lm_head gives other logits; and an untied config needs one.
    let other = MemTensors::random(&uc, DType::F32, 99).unwrap();
    let head = other.tensor("lm_head.weight").unwrap();
    untied
        .insert(
            "lm_head.weight",
            head.dtype,
            head.shape.clone(),
            head.data.to_vec(),
        )
        .unwrap();
    let mut b = Reference::new(&uc, &untied, 8).unwrap();
    a.reset();
    assert_ne!(a.step(3).unwrap(), b.step(3).unwrap());
    untied.remove("lm_head.weight");
    let err = Reference::new(&uc, &untied, 8).unwrap_err().to_string();
    assert!(
        err.contains("lm_head.weight") && err.contains("missing"),
        "{err}"
    );
}

#[test]
fn greedy_is_deterministic_and_matches_stepping() {
    let c = tiny(false);
    let m = MemTensors::random(&c, DType::BF16, 21).unwrap();
    let mut r = Reference::new(&c, &m, 32).unwrap();
    let prompt = [1u32, 45, 99, 7];
    let first = r.greedy(&prompt, 10).unwrap();
    assert_eq!(first.len(), 10);
    assert_eq!(r.pos(), prompt.len() + 9);
    assert_eq!(r.greedy(&prompt, 10).unwrap(), first);
    assert_eq!(
        Reference::new(&c, &m, 32)
            .unwrap()
            .greedy(&prompt, 10)
            .unwrap(),
        first
    );

    // By hand: feed the prompt, then argmax and feed back.
    r.reset();
    let mut logits = Vec::new();
    for &t in &prompt {
        logits = r.step(t).unwrap();
    }
    let mut by_hand = Vec::new();
    for _ in 0..10 {
        let next = argmax(&logits);
        by_hand.push(next);
        logits = r.step(next).unwrap();
    }
    assert_eq!(by_hand, first);

    assert_eq!(r.greedy(&prompt, 0).unwrap(), Vec::<u32>::new());
    assert_eq!(r.greedy(&[], 3), Err(StepError::EmptyPrompt));
    assert_eq!(
        r.greedy(&prompt, 30),
        Err(StepError::CacheFull { max_positions: 32 })
    );
    assert_eq!(
        r.step(256),
        Err(StepError::TokenOutOfRange {
            token: 256,
            vocab_size: 256
        })
    );
}

#[test]
fn a_checkpoint_on_disk_decodes_like_the_tensors_it_was_written_from() {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "cuda-graph-flagships-reference-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let c = tiny(true);
    let m = MemTensors::random(&c, DType::BF16, 8).unwrap();
    m.save_sharded(&c, &dir, 2).unwrap();
    let result = std::panic::catch_unwind(|| {
        let ckpt = Checkpoint::open(&dir).unwrap();
        ckpt.check().unwrap();
        let prompt = [9u32, 8, 7];
        let from_disk = Reference::new(&ckpt.config, &ckpt, 16)
            .unwrap()
            .greedy(&prompt, 6)
            .unwrap();
        let from_memory = Reference::new(&c, &m, 16)
            .unwrap()
            .greedy(&prompt, 6)
            .unwrap();
        assert_eq!(from_disk, from_memory);
    });
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn bad_configs_and_shapes_are_errors() {
    let c = tiny(false);
    let m = MemTensors::random(&c, DType::F32, 1).unwrap();
    let mut bad = c.clone();
    bad.num_key_value_heads = 3;
    let err = Reference::new(&bad, &m, 4).unwrap_err().to_string();
    assert!(err.contains("num_key_value_heads"), "{err}");
    let mut wider = c.clone();
    wider.intermediate_size = 256;
    let err = Reference::new(&wider, &m, 4).unwrap_err().to_string();
    assert!(
        err.contains("model.layers.0.mlp.gate_proj.weight") && err.contains("[256, 64]"),
        "{err}"
    );
    let mut empty = Reference::new(&c, &m, 0).unwrap();
    assert_eq!(
        empty.step(1),
        Err(StepError::CacheFull { max_positions: 0 })
    );
}
