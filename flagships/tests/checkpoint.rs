//! Llama checkpoints on the host (no GPU): `config.json` parsing (both rope layouts, every field
//! that would change the math rejected by name), the llama3 rotary frequencies against the
//! transformers formula written out here, and checkpoint directories (one file and sharded, F32
//! and BF16, tied and untied) read back bit for bit, with an error, never a panic, for every
//! broken one.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use cuda_graph_flagships::llama::checkpoint::{
    Checkpoint, CheckpointError, MemTensors, TensorRef, Tensors,
};
use cuda_graph_flagships::llama::config::{DType, Llama3Scaling, LlamaConfig};
use serde_json::{json, Value};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "cuda-graph-flagships-checkpoint-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// 2 layers, hidden 64, 4 heads, 2 kv heads, head_dim 16, ffn 128, vocab 256.
fn tiny(tied: bool, dtype: Option<DType>) -> LlamaConfig {
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
        dtype,
    }
}

/// The tiny config as transformers 4 writes it, as a JSON object to edit.
fn tiny_json() -> Value {
    serde_json::from_str(&tiny(false, Some(DType::BF16)).to_json()).unwrap()
}

fn parse(v: &Value) -> Result<LlamaConfig, CheckpointError> {
    LlamaConfig::from_json(&v.to_string())
}

/// `tiny_json()` with `key` set to `value`, which must be an error mentioning every needle.
fn assert_rejected(key: &str, value: Value, needles: &[&str]) {
    let mut v = tiny_json();
    v[key] = value;
    let err = parse(&v).expect_err(key).to_string();
    for needle in needles {
        assert!(err.contains(needle), "`{err}` should mention {needle}");
    }
}

fn same_tensor(a: &TensorRef<'_>, b: &TensorRef<'_>) {
    assert_eq!(a.name, b.name);
    assert_eq!(a.dtype, b.dtype);
    assert_eq!(a.shape, b.shape);
    assert!(a.data == b.data, "tensor `{}` differs", a.name);
}

#[test]
fn good_checkpoints_load_and_read_back_bit_identical() {
    for dtype in [DType::F32, DType::BF16] {
        for tied in [false, true] {
            for shards in [None, Some(3)] {
                let dir = TempDir::new("good");
                let config = tiny(tied, Some(dtype));
                let mem = MemTensors::random(&config, dtype, 7).unwrap();
                match shards {
                    None => mem.save(&config, dir.path()).unwrap(),
                    Some(n) => mem.save_sharded(&config, dir.path(), n).unwrap(),
                }
                let ckpt = Checkpoint::open(dir.path()).unwrap();
                ckpt.check().unwrap();
                assert_eq!(ckpt.config, config);
                assert_eq!(ckpt.dtype(), dtype);
                let expected = config.expected_tensors();
                assert_eq!(expected.len(), if tied { 20 } else { 21 });
                assert_eq!(ckpt.names().count(), expected.len());
                for (name, shape) in &expected {
                    let got = ckpt.tensor(name).unwrap();
                    assert!(matches!(got.data, std::borrow::Cow::Borrowed(_)));
                    got.check(shape, dtype).unwrap();
                    same_tensor(&got, &mem.tensor(name).unwrap());
                }
            }
        }
    }
}

#[test]
fn sharded_checkpoint_has_transformers_file_names() {
    let dir = TempDir::new("names");
    let config = tiny(false, Some(DType::F32));
    MemTensors::random(&config, DType::F32, 1)
        .unwrap()
        .save_sharded(&config, dir.path(), 2)
        .unwrap();
    for file in [
        "config.json",
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
        "model.safetensors.index.json",
    ] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("model.safetensors.index.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index["weight_map"].as_object().unwrap().len(), 21);
    assert_eq!(
        index["metadata"]["total_size"].as_u64().unwrap(),
        config
            .expected_tensors()
            .iter()
            .map(|(_, s)| s.iter().product::<usize>() as u64 * 4)
            .sum::<u64>()
    );
}

#[test]
fn dtype_comes_from_the_tensors_when_the_config_has_none() {
    let dir = TempDir::new("infer");
    let config = tiny(true, None);
    MemTensors::random(&config, DType::BF16, 3)
        .unwrap()
        .save(&config, dir.path())
        .unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(ckpt.config.dtype, None);
    assert_eq!(ckpt.dtype(), DType::BF16);
    ckpt.check().unwrap();

    // Mixed dtypes and no dtype in the config: an error naming both tensors.
    let dir = TempDir::new("mixed");
    let mut mem = MemTensors::random(&config, DType::BF16, 3).unwrap();
    let name = "model.layers.1.mlp.up_proj.weight";
    let values = mem.tensor(name).unwrap().to_f32();
    mem.insert_f32(name, DType::F32, vec![128, 64], &values)
        .unwrap();
    mem.save(&config, dir.path()).unwrap();
    let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("model.embed_tokens.weight") && err.contains(name),
        "{err}"
    );
    assert!(err.contains("BF16") && err.contains("F32"), "{err}");
}

#[test]
fn bytes_per_token_counts_layers_norm_head_and_one_row() {
    let layer = 64 + 64 * 64 + 2 * (32 * 64) + 64 * 64 + 64 + 3 * (128 * 64);
    let elements = 2 * layer + 64 + 256 * 64 + 64;
    for tied in [false, true] {
        let config = tiny(tied, None);
        assert_eq!(config.bytes_per_token(DType::F32), elements as u64 * 4);
        assert_eq!(config.bytes_per_token(DType::BF16), elements as u64 * 2);
    }
}

#[test]
fn config_round_trips_through_json() {
    let mut config = tiny(true, Some(DType::F16));
    config.rope_theta = 500_000.0;
    config.rope_scaling = Some(Llama3Scaling {
        factor: 32.0,
        low_freq_factor: 1.0,
        high_freq_factor: 4.0,
        original_max_position_embeddings: 8192,
    });
    config.eos_token_ids = vec![128001, 128008, 128009];
    config.bos_token_id = None;
    assert_eq!(LlamaConfig::from_json(&config.to_json()).unwrap(), config);
    config.eos_token_ids.clear();
    config.dtype = None;
    assert_eq!(LlamaConfig::from_json(&config.to_json()).unwrap(), config);
}

/// Llama 3.2 1B's settings, in the layout transformers 4 writes.
fn llama32_legacy() -> Value {
    json!({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
        "attention_bias": false, "mlp_bias": false, "pretraining_tp": 1,
        "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
        "rms_norm_eps": 1e-05, "max_position_embeddings": 131072, "vocab_size": 128256,
        "tie_word_embeddings": true, "bos_token_id": 128000, "eos_token_id": 128001,
        "torch_dtype": "bfloat16", "transformers_version": "4.45.0",
        "rope_theta": 500000.0,
        "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"}
    })
}

#[test]
fn both_rope_layouts_parse_to_the_same_config() {
    let legacy = llama32_legacy();
    let want = parse(&legacy).unwrap();
    assert_eq!(want.rope_theta, 500_000.0);
    assert_eq!(
        want.rope_scaling,
        Some(Llama3Scaling {
            factor: 32.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position_embeddings: 8192
        })
    );
    assert_eq!(want.dtype, Some(DType::BF16));
    assert_eq!(want.eos_token_ids, vec![128001]);

    // transformers 5: everything in `rope_parameters`, `dtype` instead of `torch_dtype`.
    let mut v5 = legacy.clone();
    let obj = v5.as_object_mut().unwrap();
    obj.remove("rope_theta");
    obj.remove("rope_scaling");
    obj.remove("torch_dtype");
    obj.insert("dtype".into(), "bfloat16".into());
    obj.insert(
        "rope_parameters".into(),
        json!({"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0,
               "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 8192}),
    );
    assert_eq!(parse(&v5).unwrap(), want);

    // The older `type` key, and `original_max_position_embeddings` left to default.
    let mut old = legacy.clone();
    old["rope_scaling"] = json!({"type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                 "high_freq_factor": 4.0});
    old["max_position_embeddings"] = json!(8192);
    let mut want_old = want.clone();
    want_old.max_position_embeddings = 8192;
    assert_eq!(parse(&old).unwrap(), want_old);

    // Plain rope, both layouts; absent theta is transformers' default 10000.
    let mut plain = tiny_json();
    plain["rope_scaling"] = Value::Null;
    let plain_cfg = parse(&plain).unwrap();
    let obj = plain.as_object_mut().unwrap();
    obj.remove("rope_theta");
    obj.insert(
        "rope_parameters".into(),
        json!({"rope_type": "default", "rope_theta": 10000.0}),
    );
    assert_eq!(parse(&plain).unwrap(), plain_cfg);
    plain.as_object_mut().unwrap().remove("rope_parameters");
    assert_eq!(parse(&plain).unwrap().rope_theta, 10_000.0);
    assert_eq!(parse(&plain).unwrap().rope_scaling, None);
}

/// transformers' `_compute_llama3_parameters`, written out in f64 with the textbook formula.
fn llama3_by_hand(
    theta: f64,
    dim: usize,
    factor: f64,
    low: f64,
    high: f64,
    old_len: f64,
) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..dim / 2 {
        let freq = 1.0 / theta.powf((2 * i) as f64 / dim as f64);
        let wavelen = 2.0 * std::f64::consts::PI / freq;
        let scaled = if wavelen < old_len / high {
            freq
        } else if wavelen > old_len / low {
            freq / factor
        } else {
            let smooth = (old_len / wavelen - low) / (high - low);
            (1.0 - smooth) * freq / factor + smooth * freq
        };
        out.push(scaled);
    }
    out
}

#[test]
fn llama3_inv_freq_matches_the_transformers_formula() {
    let config = parse(&llama32_legacy()).unwrap();
    let want = llama3_by_hand(500_000.0, 64, 32.0, 1.0, 4.0, 8192.0);
    let got64 = config.inv_freq_f64();
    let got32 = config.inv_freq_f32();
    assert_eq!(got64.len(), 32);
    assert_eq!(got32.len(), 32);
    let plain: Vec<f64> = (0..32)
        .map(|i| 1.0 / 500_000f64.powf(2.0 * i as f64 / 64.0))
        .collect();
    let (mut kept, mut divided, mut smoothed) = (0, 0, 0);
    for i in 0..32 {
        assert!(
            (got64[i] - want[i]).abs() <= 1e-15 * want[i],
            "f64 entry {i}: {} vs {}",
            got64[i],
            want[i]
        );
        assert!(
            (got32[i] as f64 - want[i]).abs() <= 1e-6 * want[i],
            "f32 entry {i}: {} vs {}",
            got32[i],
            want[i]
        );
        let ratio = want[i] / plain[i];
        if ratio == 1.0 {
            kept += 1;
        } else if (ratio - 1.0 / 32.0).abs() < 1e-12 {
            divided += 1;
        } else {
            assert!(ratio > 1.0 / 32.0 && ratio < 1.0, "entry {i}");
            smoothed += 1;
        }
    }
    // All three bands are exercised.
    assert!(
        kept > 0 && divided > 0 && smoothed > 0,
        "{kept} {divided} {smoothed}"
    );
    assert_eq!(got32[0], 1.0);

    // Plain rope: every f32 entry is the f64 value rounded to f32, or one ulp off it.
    let config = tiny(false, None);
    let f32s = config.inv_freq_f32();
    for (i, (&a, b)) in f32s.iter().zip(config.inv_freq_f64()).enumerate() {
        let ulp = f32::from_bits((b as f32).to_bits() + 1) - b as f32;
        assert!((a as f64 - b).abs() <= ulp as f64, "entry {i}: {a} vs {b}");
    }
}

#[test]
fn fields_that_change_the_math_are_rejected_by_name_and_value() {
    assert_rejected("attention_bias", json!(true), &["attention_bias", "true"]);
    assert_rejected("mlp_bias", json!(true), &["mlp_bias", "true"]);
    assert_rejected("hidden_act", json!("gelu"), &["hidden_act", "\"gelu\""]);
    assert_rejected(
        "model_type",
        json!("mistral"),
        &["model_type", "\"mistral\""],
    );
    assert_rejected("sliding_window", json!(4096), &["sliding_window", "4096"]);
    assert_rejected("pretraining_tp", json!(2), &["pretraining_tp", "2"]);
    assert_rejected(
        "partial_rotary_factor",
        json!(0.5),
        &["partial_rotary_factor", "0.5"],
    );
    assert_rejected("dtype", json!("float64"), &["dtype", "\"float64\""]);
    let mut v = tiny_json();
    v.as_object_mut().unwrap().remove("dtype");
    v["torch_dtype"] = json!("int8");
    let err = parse(&v).unwrap_err().to_string();
    assert!(
        err.contains("torch_dtype") && err.contains("\"int8\""),
        "{err}"
    );
    assert_rejected(
        "rope_scaling",
        json!({"rope_type": "yarn", "factor": 4.0}),
        &["rope_scaling.rope_type", "\"yarn\""],
    );
    assert_rejected(
        "rope_scaling",
        json!({"type": "linear", "factor": 2.0}),
        &["rope_scaling.type", "\"linear\""],
    );
    assert_rejected(
        "rope_parameters",
        json!({"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}),
        &["rope_parameters.rope_type", "\"dynamic\""],
    );
    // What is harmless is accepted.
    for (key, value) in [
        ("attention_bias", json!(false)),
        ("pretraining_tp", json!(1)),
        ("sliding_window", Value::Null),
        ("partial_rotary_factor", json!(1.0)),
        ("model_type", json!("llama")),
        ("hidden_act", json!("silu")),
    ] {
        let mut v = tiny_json();
        v[key] = value;
        parse(&v).unwrap();
    }
}

#[test]
fn missing_fields_wrong_types_and_bad_sizes_are_errors_naming_the_field() {
    for field in [
        "hidden_size",
        "intermediate_size",
        "num_hidden_layers",
        "vocab_size",
        "rms_norm_eps",
    ] {
        let mut v = tiny_json();
        v.as_object_mut().unwrap().remove(field);
        let err = parse(&v).unwrap_err().to_string();
        assert!(err.contains(field) && err.contains("missing"), "{err}");
    }
    assert_rejected(
        "hidden_size",
        json!("64"),
        &["hidden_size", "\"64\"", "integer"],
    );
    assert_rejected("hidden_size", json!(-64), &["hidden_size", "-64"]);
    assert_rejected("rms_norm_eps", json!("1e-5"), &["rms_norm_eps", "number"]);
    assert_rejected(
        "tie_word_embeddings",
        json!(1),
        &["tie_word_embeddings", "true or false"],
    );
    assert_rejected("rope_scaling", json!([1, 2]), &["rope_scaling", "object"]);
    assert_rejected("eos_token_id", json!("2"), &["eos_token_id", "\"2\""]);
    assert_rejected("eos_token_id", json!([2, -1]), &["eos_token_id", "-1"]);
    assert_rejected("num_hidden_layers", json!(0), &["num_hidden_layers", "0"]);
    assert_rejected(
        "num_key_value_heads",
        json!(3),
        &["num_key_value_heads", "3"],
    );
    assert_rejected("head_dim", json!(15), &["head_dim", "even", "15"]);
    assert_rejected("rope_theta", json!(-1.0), &["rope_theta", "-1"]);
    assert_rejected("hidden_size", json!(u64::MAX), &["hidden_size"]);
    let mut v = tiny_json();
    v["rope_scaling"] = json!({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0});
    let err = parse(&v).unwrap_err().to_string();
    assert!(
        err.contains("rope_scaling.high_freq_factor") && err.contains("missing"),
        "{err}"
    );

    // eos: an int, a list, or nothing.
    let mut v = tiny_json();
    v["eos_token_id"] = json!([1, 2]);
    assert_eq!(parse(&v).unwrap().eos_token_ids, vec![1, 2]);
    v["eos_token_id"] = Value::Null;
    assert!(parse(&v).unwrap().eos_token_ids.is_empty());
    // head_dim absent or null: hidden / heads.
    v["head_dim"] = Value::Null;
    assert_eq!(parse(&v).unwrap().head_dim, 16);

    for garbage in [
        "",
        "{",
        "{not json}",
        "[1, 2]",
        "null",
        "\"llama\"",
        "{\"hidden_size\": 1e999}",
    ] {
        let err = LlamaConfig::from_json(garbage).unwrap_err();
        assert!(
            err.to_string().contains("config.json") || err.to_string().contains("hidden_size"),
            "{err}"
        );
    }
}

/// Saves the tiny F32 checkpoint after `edit` and returns what `open` then `check` say.
fn broken(tag: &str, edit: impl FnOnce(&mut MemTensors)) -> String {
    let dir = TempDir::new(tag);
    let config = tiny(false, Some(DType::F32));
    let mut mem = MemTensors::random(&config, DType::F32, 5).unwrap();
    edit(&mut mem);
    mem.save(&config, dir.path()).unwrap();
    let result = Checkpoint::open(dir.path()).and_then(|c| c.check());
    result.unwrap_err().to_string()
}

#[test]
fn missing_tensor_wrong_shape_and_wrong_dtype_are_named() {
    let name = "model.layers.1.mlp.up_proj.weight";
    let err = broken("missing", |m| {
        m.remove(name);
    });
    assert!(err.contains(name) && err.contains("missing"), "{err}");

    let name = "model.layers.0.self_attn.k_proj.weight";
    let err = broken("shape", |m| {
        m.insert_f32(name, DType::F32, vec![32, 63], &[0.5; 32 * 63])
            .unwrap();
    });
    assert!(
        err.contains(name) && err.contains("[32, 64]") && err.contains("[32, 63]"),
        "{err}"
    );

    let name = "model.norm.weight";
    let err = broken("dtype", |m| {
        m.insert_f32(name, DType::BF16, vec![64], &[1.0; 64])
            .unwrap();
    });
    assert!(
        err.contains(name) && err.contains("expected dtype F32") && err.contains("BF16"),
        "{err}"
    );

    // A dtype no Llama weight has: written with the safetensors crate itself.
    let dir = TempDir::new("i64");
    let config = tiny(false, Some(DType::F32));
    let mem = MemTensors::random(&config, DType::F32, 5).unwrap();
    mem.save(&config, dir.path()).unwrap();
    let name = "model.layers.0.input_layernorm.weight";
    let view = safetensors::tensor::TensorView::new(safetensors::Dtype::I64, vec![64], &[0u8; 512])
        .unwrap();
    let bytes = safetensors::serialize([(name, view)], None).unwrap();
    std::fs::write(dir.path().join("model.safetensors"), bytes).unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let err = ckpt.tensor(name).unwrap_err().to_string();
    assert!(err.contains(name) && err.contains("I64"), "{err}");
}

#[test]
fn truncated_and_corrupt_files_are_errors_not_panics() {
    let dir = TempDir::new("truncated");
    let config = tiny(false, Some(DType::F32));
    MemTensors::random(&config, DType::F32, 9)
        .unwrap()
        .save(&config, dir.path())
        .unwrap();
    let file = dir.path().join("model.safetensors");
    let good = std::fs::read(&file).unwrap();
    let header_len = u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
    let mut cuts = vec![
        0,
        1,
        4,
        7,
        8,
        9,
        8 + header_len / 2,
        8 + header_len - 1,
        8 + header_len,
    ];
    cuts.extend([
        8 + header_len + 1,
        8 + header_len + 1000,
        good.len() / 2,
        good.len() - 4,
        good.len() - 1,
    ]);
    cuts.extend((0..good.len()).step_by(good.len() / 37));
    for cut in cuts {
        std::fs::write(&file, &good[..cut]).unwrap();
        let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("model.safetensors"), "cut at {cut}: {err}");
    }
    // One byte too many is corrupt too.
    let mut longer = good.clone();
    longer.push(0);
    std::fs::write(&file, &longer).unwrap();
    assert!(Checkpoint::open(dir.path()).is_err());

    let mut corruptions: Vec<Vec<u8>> = Vec::new();
    for len in [u64::MAX, 1 << 40, 99_999_999, good.len() as u64] {
        let mut bad = good.clone();
        bad[..8].copy_from_slice(&len.to_le_bytes());
        corruptions.push(bad);
    }
    let mut bad = good.clone();
    bad[8..8 + header_len].fill(b'#');
    corruptions.push(bad);
    let mut bad = good.clone();
    bad[10] = 0xff; // not UTF-8
    corruptions.push(bad);
    // Offsets that overlap: edit a digit in the header's first data_offsets.
    let text = String::from_utf8(good[8..8 + header_len].to_vec()).unwrap();
    let at = text.find("\"data_offsets\":[").unwrap() + "\"data_offsets\":[".len();
    let mut bad = good.clone();
    bad[8 + at] = if bad[8 + at] == b'1' { b'2' } else { b'1' };
    corruptions.push(bad);
    for (i, bad) in corruptions.iter().enumerate() {
        std::fs::write(&file, bad).unwrap();
        let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("not a valid safetensors file"),
            "corruption {i}: {err}"
        );
    }
    std::fs::write(&file, &good).unwrap();
    Checkpoint::open(dir.path()).unwrap().check().unwrap();
}

#[test]
fn broken_indexes_are_errors_naming_the_shard() {
    let config = tiny(false, Some(DType::F32));
    let mem = MemTensors::random(&config, DType::F32, 2).unwrap();
    let index_name = "model.safetensors.index.json";

    let dir = TempDir::new("missing-shard");
    mem.save_sharded(&config, dir.path(), 3).unwrap();
    std::fs::remove_file(dir.path().join("model-00002-of-00003.safetensors")).unwrap();
    let err = Checkpoint::open(dir.path()).unwrap_err();
    assert!(matches!(err, CheckpointError::MissingShard { .. }), "{err}");
    let err = err.to_string();
    assert!(
        err.contains("model-00002-of-00003.safetensors") && err.contains(index_name),
        "{err}"
    );

    for outside in ["../x", "/etc/passwd", "a/../../x", ""] {
        let dir = TempDir::new("outside");
        mem.save_sharded(&config, dir.path(), 2).unwrap();
        let path = dir.path().join(index_name);
        let mut index: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        index["weight_map"]["model.norm.weight"] = json!(outside);
        std::fs::write(&path, index.to_string()).unwrap();
        let err = Checkpoint::open(dir.path()).unwrap_err();
        assert!(
            matches!(err, CheckpointError::ShardOutsideDir { .. }),
            "{outside}: {err}"
        );
        let err = err.to_string();
        assert!(
            err.contains("model.norm.weight") && err.contains(&format!("`{outside}`")),
            "{err}"
        );
    }

    // The index sends a tensor to a shard that does not hold it.
    let dir = TempDir::new("wrong-shard");
    mem.save_sharded(&config, dir.path(), 2).unwrap();
    let path = dir.path().join(index_name);
    let mut index: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let first = index["weight_map"]["lm_head.weight"]
        .as_str()
        .unwrap()
        .to_string();
    let other = if first.contains("00001") {
        "model-00002-of-00002.safetensors"
    } else {
        "model-00001-of-00002.safetensors"
    };
    index["weight_map"]["lm_head.weight"] = json!(other);
    std::fs::write(&path, index.to_string()).unwrap();
    let err = Checkpoint::open(dir.path())
        .unwrap()
        .check()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("lm_head.weight") && err.contains(other),
        "{err}"
    );

    for garbage in ["", "{}", "{\"weight_map\": 3}", "[]"] {
        std::fs::write(&path, garbage).unwrap();
        let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(index_name) && err.contains("weight_map"),
            "{err}"
        );
    }

    let err = mem
        .save_sharded(&config, dir.path(), 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("0 shards"), "{err}");
}

#[test]
fn directories_that_are_not_checkpoints_say_what_one_holds() {
    let dir = TempDir::new("empty");
    let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("config.json") && err.contains("model.safetensors"),
        "{err}"
    );
    let err = Checkpoint::open(dir.path().join("nowhere"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a checkpoint directory"), "{err}");

    std::fs::write(dir.path().join("config.json"), tiny(false, None).to_json()).unwrap();
    let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("no weights"), "{err}");

    std::fs::write(dir.path().join("config.json"), "{\"hidden_size\": true}").unwrap();
    let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("config.json") && err.contains("hidden_size"),
        "{err}"
    );
}

#[test]
fn mem_tensors_reject_bytes_that_do_not_fit_the_shape() {
    let mut mem = MemTensors::new();
    let err = mem
        .insert("w", DType::BF16, vec![2, 3], vec![0; 11])
        .unwrap_err()
        .to_string();
    assert!(err.contains("`w`") && err.contains("[2, 3]"), "{err}");
    mem.insert("w", DType::BF16, vec![2, 3], vec![0; 12])
        .unwrap();
    assert_eq!(mem.names().collect::<Vec<_>>(), ["w"]);
    let err = mem
        .insert("huge", DType::F32, vec![usize::MAX, 2], vec![])
        .unwrap_err();
    assert!(err.to_string().contains("huge"));
    // A config that does not validate makes no random tensors.
    let mut config = tiny(false, None);
    config.num_key_value_heads = 0;
    assert!(MemTensors::random(&config, DType::F32, 0).is_err());
}
