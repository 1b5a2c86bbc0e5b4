//! The Llama decode section of `results.md`: `flagships/scripts/llama_hf.py all` (Hugging Face
//! transformers three ways and the step graph, one process per model, one run), with the
//! comparison against transformers and the targets.

use std::fmt::Write as _;

use serde_json::Value;

const IMPLS: [&str; 4] = ["hf_eager", "hf_compile", "pytorch_graph", "cuda_graph_step"];

/// The section, or nothing when there are no `decode` rows.
pub fn section(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "decode").collect();
    let Some(first) = rows.first() else {
        return String::new();
    };
    let rate = |model: &str, dtype: &str, imp: &str| {
        rows.iter()
            .find(|v| v["model"] == model && v["dtype"] == dtype && v["impl"] == imp)
            .and_then(|v| v["tokens_per_s"].as_f64())
    };
    let mut shapes: Vec<(String, String)> = Vec::new();
    for v in &rows {
        let key = (
            v["model"].as_str().unwrap_or("").to_owned(),
            v["dtype"].as_str().unwrap_or("").to_owned(),
        );
        if !shapes.contains(&key) {
            shapes.push(key);
        }
    }
    let mut md = format!(
        "\n## Llama decode: one launch per token\n\nOn an {}, one run of `flagships/scripts/llama_hf.py all`: random checkpoints saved with `save_pretrained` (tiny: hidden 1024, 8 layers, vocab 32000; 1b: the Llama-3.2-1B shape, llama3 rope scaling, tied head), batch 1, an 8-token prompt, 128 new tokens, greedy; tokens per second, best of 3 (of 5 for the step graph). `hf_eager`: `generate`; `hf_compile`: `generate` with a static cache (it compiles its step); `pytorch_graph`: a gpt-fast-style loop (static cache, a one-token step under `torch.compile(mode=\"reduce-overhead\")`); `cuda_graph_step`: the `llama` example, one launch of the step graph per token, the position advanced on the device. The floor is the bytes read per token over the measured copy bandwidth.\n\n| model | dtype | {} | floor | step graph ÷ pytorch_graph | step graph, share of the floor | matches transformers |\n|---|---|{}---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU"),
        IMPLS.join(" | "),
        "---|".repeat(IMPLS.len())
    );
    let mut ratios = Vec::new();
    for (model, dtype) in &shapes {
        let Some(row) = rows.iter().find(|v| {
            v["model"] == model.as_str()
                && v["dtype"] == dtype.as_str()
                && v["impl"] == "cuda_graph_step"
        }) else {
            continue;
        };
        let floor = row["floor_tokens_per_s"].as_f64().unwrap_or(f64::NAN);
        let ours = rate(model, dtype, "cuda_graph_step").unwrap_or(f64::NAN);
        let peer = rate(model, dtype, "pytorch_graph").unwrap_or(f64::NAN);
        let cells: Vec<String> = IMPLS
            .iter()
            .map(|imp| match rate(model, dtype, imp) {
                Some(r) => format!("{r:.0}"),
                None => "–".to_owned(),
            })
            .collect();
        let _ = writeln!(
            md,
            "| {model} | {dtype} | {} | {floor:.0} | {:.2}× | {:.1}% | {} |",
            cells.join(" | "),
            ours / peer,
            100.0 * ours / floor,
            if row["matches_hf"] == true {
                "yes"
            } else {
                "no"
            }
        );
        ratios.push((model.clone(), dtype.clone(), ours / peer, row));
    }
    let _ = writeln!(
        md,
        "\nHow the position advances (the step graph, best of 5): the device counter launches the steps back to back with no host work between them; the graph-level setter (`exec.set_pos`) sends the position to every node that reads it before each launch.\n\n| model | dtype | counter: tokens/s | host µs per token | setter: tokens/s | host µs per token |\n|---|---|---|---|---|---|"
    );
    for (model, dtype, _, row) in &ratios {
        let f = |k: &str| row[k].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(
            md,
            "| {model} | {dtype} | {:.0} | {:.1} | {:.0} | {:.1} |",
            f("tokens_per_s_counter"),
            f("host_us_per_token_counter"),
            f("tokens_per_s_setter"),
            f("host_us_per_token_setter")
        );
    }
    let checks: Vec<&Value> = raw.iter().filter(|v| v["case"] == "decode_check").collect();
    if !checks.is_empty() {
        let _ = writeln!(
            md,
            "\nAgainst transformers on the same checkpoint (eager, the checkpoint's dtype): greedy ids of the 128 new tokens, and the teacher-forced logits of every step. f32 passes with identical ids up to the first step whose top-2 margin is under 1e-4 and every row's largest error within 2e-3 of its largest logit; bf16 with top-1 agreement of at least 97% (a row whose largest logit several tokens share agrees with any of them; the strict rate beside it) and a mean error of at most 2% of the logits' standard deviation.\n\n| model | dtype | first differing id | top-1 agreement (strict) | mean error ÷ std | largest error ÷ largest logit | passes |\n|---|---|---|---|---|---|---|"
        );
        for c in checks {
            let first = match c["first_divergence"].as_u64() {
                Some(i) => format!("step {i}"),
                None => "none".to_owned(),
            };
            let f = |k: &str| c[k].as_f64().unwrap_or(f64::NAN);
            let _ = writeln!(
                md,
                "| {} | {} | {first} | {:.1}% ({:.1}%) | {:.4} | {:.1e} | {} |",
                c["model"].as_str().unwrap_or(""),
                c["dtype"].as_str().unwrap_or(""),
                100.0 * f("top1_agreement"),
                100.0 * f("top1_agreement_strict"),
                f("mean_err_over_std"),
                f("max_rel_logit_err"),
                if c["matches_hf"] == true { "yes" } else { "no" }
            );
        }
    }
    let target = |model: &str, want: f64| {
        ratios
            .iter()
            .find(|(m, d, _, _)| m == model && d == "bf16")
            .map(|(_, _, r, _)| {
                format!(
                    "{model} bf16 at least {want}× the gpt-fast-style loop: **{r:.2}×** ({})",
                    if *r >= want { "met" } else { "missed" }
                )
            })
    };
    let targets: Vec<String> = [target("tiny", 2.0), target("1b", 1.5)]
        .into_iter()
        .flatten()
        .collect();
    if !targets.is_empty() {
        let _ = writeln!(md, "\nTargets: {}.", targets.join("; "));
    }
    md.push_str(&products(raw));
    md
}

/// The matrix-vector products of a step (`gemv` rows): the step graph's kernels measured one
/// at a time by ncu in the decode itself, beside cuBLAS through PyTorch (`gemv_peer.py`),
/// both reading weights that are not in L2.
fn products(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "gemv").collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "\nThe matrix-vector products of a step, bf16, µs per call (TB/s of weights): the step graph's kernels measured one at a time by ncu (`--cache-control none`) inside the decode, with the work they fuse; cuBLAS through PyTorch's `F.linear`, replayed from a CUDA graph over enough copies of the weight that none is in L2 (`flagships/scripts/gemv_peer.py`), the product alone. Same run.\n\n| model | product | rows × cols | step graph kernel | fused into it | cuBLAS | cuBLAS ÷ kernel |\n|---|---|---|---|---|---|---|\n",
    );
    for v in rows.iter().filter(|v| v["impl"] == "cuda_graph_kernel") {
        let Some(peer) = rows.iter().find(|p| {
            p["impl"] == "cublas_f_linear"
                && p["model"] == v["model"]
                && p["product"] == v["product"]
        }) else {
            continue;
        };
        let f = |r: &Value, k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(
            md,
            "| {} | {} | {} × {} | {:.1} ({:.2}) | {} | {:.1} ({:.2}) | {:.2} |",
            v["model"].as_str().unwrap_or(""),
            v["product"].as_str().unwrap_or(""),
            v["rows"],
            v["cols"],
            f(v, "us_per_call"),
            f(v, "tb_per_s"),
            v["fused"].as_str().unwrap_or(""),
            f(peer, "us_per_call"),
            f(peer, "tb_per_s"),
            f(peer, "us_per_call") / f(v, "us_per_call"),
        );
    }
    md
}
