//! The Llama decode section of `results.md` and `decode.md`, and `decode.svg`: `flagships/scripts/llama_hf.py
//! all` (Hugging Face transformers three ways, the step graph and the generation graph, one
//! process per model, one run), the long-context rows, the comparison against transformers in
//! both modes, the targets, and where the time of a 1B step goes (ncu on the step graph's
//! kernels, and the generation graph timed with each kind of node left out).

use std::fmt::Write as _;

use plotters::prelude::*;
use serde_json::Value;

const IMPLS: [&str; 5] = [
    "hf_eager",
    "hf_compile",
    "pytorch_graph",
    "cuda_graph_step",
    "cuda_graph_loop",
];

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(f64::NAN)
}

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// The row of `set` for a model, dtype and implementation.
fn find<'a>(set: &[&'a Value], model: &str, dtype: &str, imp: &str) -> Option<&'a Value> {
    set.iter()
        .copied()
        .find(|v| v["model"] == model && v["dtype"] == dtype && v["impl"] == imp)
}

/// The section, or nothing when there are no `decode` rows; draws `svg` beside it.
pub fn section(raw: &[Value], svg: &str) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "decode").collect();
    let Some(first) = rows.first() else {
        return String::new();
    };
    let short: Vec<&Value> = rows
        .iter()
        .copied()
        .filter(|v| v.get("context").is_none())
        .collect();
    let mut shapes: Vec<(String, String)> = Vec::new();
    for v in &short {
        let key = (text(v, "model").to_owned(), text(v, "dtype").to_owned());
        if !shapes.contains(&key) {
            shapes.push(key);
        }
    }
    let mut md = format!(
        "\n## Llama decode: one launch per generation, one launch per token\n\nOn an {}, one run of `flagships/scripts/llama_hf.py all`: random checkpoints saved with `save_pretrained` (tiny: hidden 1024, 8 layers, vocab 32000; 1b: the Llama-3.2-1B shape, llama3 rope scaling, tied head), batch 1, an 8-token prompt, 128 new tokens, greedy; tokens per second, best of 3 (of 5 for cuda-graph). `hf_eager`: `generate`; `hf_compile`: `generate` with a static cache (it compiles its step); `pytorch_graph`: a gpt-fast-style loop (static cache, a one-token step under `torch.compile(mode=\"reduce-overhead\")`, decode steps only); `cuda_graph_step`: the `llama` example, one launch of the step graph per token, the position advanced on the device; `cuda_graph_loop`: its default mode, one launch of the generation graph (prefill, then a WHILE node of decode steps), tokens after the first over the time between the first and the last reaching the host. The floor is the bytes read per token over the copy bandwidth measured in the same process. Time to first token: from the call to the first token at the host, the prompt's prefill included.\n\n![tokens per second](decode.svg)\n\n| model | dtype | {} | floor | loop ÷ pytorch_graph | loop, share of the floor | first token: loop / pytorch_graph | matches transformers |\n|---|---|{}---|---|---|---|---|\n",
        text(first, "gpu"),
        IMPLS.join(" | "),
        "---|".repeat(IMPLS.len())
    );
    let mut ratios = Vec::new();
    for (model, dtype) in &shapes {
        let Some(row) = find(&short, model, dtype, "cuda_graph_loop") else {
            continue;
        };
        let floor = num(row, "floor_tokens_per_s");
        let ours = num(row, "tokens_per_s");
        let peer = find(&short, model, dtype, "pytorch_graph");
        let peer_rate = peer.map_or(f64::NAN, |p| num(p, "tokens_per_s"));
        let cells: Vec<String> = IMPLS
            .iter()
            .map(|imp| match find(&short, model, dtype, imp) {
                Some(r) => format!("{:.0}", num(r, "tokens_per_s")),
                None => "–".to_owned(),
            })
            .collect();
        let _ = writeln!(
            md,
            "| {model} | {dtype} | {} | {floor:.0} | {:.2}× | {:.1}% | {:.1} / {:.1} ms | {} |",
            cells.join(" | "),
            ours / peer_rate,
            100.0 * ours / floor,
            num(row, "ttft_ms"),
            peer.map_or(f64::NAN, |p| num(p, "ttft_ms")),
            if row["matches_hf"] == true {
                "yes"
            } else {
                "no"
            }
        );
        ratios.push((model.clone(), dtype.clone(), ours / peer_rate, ours / floor));
    }
    let long: Vec<&Value> = rows
        .iter()
        .copied()
        .filter(|v| v.get("context").is_some())
        .collect();
    let mut long_ratio = None;
    if let Some(l) = long.iter().find(|v| v["impl"] == "cuda_graph_loop") {
        let peer = long
            .iter()
            .find(|v| v["impl"] == "pytorch_graph" && v["model"] == l["model"]);
        let p = peer.map_or(f64::NAN, |p| num(p, "tokens_per_s"));
        let ours = num(l, "tokens_per_s");
        let _ = writeln!(
            md,
            "\nLong context, same run: a prompt of {} tokens, so the 128 new tokens take positions {} to {}.\n\n| model | dtype | pytorch_graph | cuda_graph_loop | loop ÷ pytorch_graph | loop, share of the floor | first token: loop / pytorch_graph |\n|---|---|---|---|---|---|---|\n| {} | {} | {p:.0} | {ours:.0} | {:.2}× | {:.1}% | {:.0} / {:.0} ms |",
            l["prompt"],
            l["prompt"],
            l["context"],
            text(l, "model"),
            text(l, "dtype"),
            ours / p,
            100.0 * ours / num(l, "floor_tokens_per_s"),
            num(l, "ttft_ms"),
            peer.map_or(f64::NAN, |p| num(p, "ttft_ms")),
        );
        long_ratio = Some(ours / p);
    }
    let _ = writeln!(
        md,
        "\nHow the step graph learns the position (best of 5): the device counter launches the steps back to back with no host work between them; the graph-level setter (`exec.set_pos`) sends the position to every node that reads it before each launch.\n\n| model | dtype | counter: tokens/s | host µs per token | setter: tokens/s | host µs per token |\n|---|---|---|---|---|---|"
    );
    for (model, dtype) in &shapes {
        if let Some(row) = find(&short, model, dtype, "cuda_graph_step") {
            let _ = writeln!(
                md,
                "| {model} | {dtype} | {:.0} | {:.1} | {:.0} | {:.1} |",
                num(row, "tokens_per_s_counter"),
                num(row, "host_us_per_token_counter"),
                num(row, "tokens_per_s_setter"),
                num(row, "host_us_per_token_setter")
            );
        }
    }
    md.push_str(&checks(raw));
    let mut targets = Vec::new();
    let met = |ok: bool| if ok { "met" } else { "missed" };
    if let Some((_, _, r, _)) = ratios
        .iter()
        .find(|(m, d, _, _)| m == "tiny" && d == "bf16")
    {
        targets.push(format!(
            "tiny bf16 at least 3× the gpt-fast-style loop: **{r:.2}×** ({})",
            met(*r >= 3.0)
        ));
    }
    if let Some((_, _, r, share)) = ratios.iter().find(|(m, d, _, _)| m == "1b" && d == "bf16") {
        targets.push(format!(
            "1B bf16 at least 85% of the floor: **{:.1}%** ({})",
            100.0 * share,
            met(*share >= 0.85)
        ));
        let best_peer = short
            .iter()
            .filter(|v| v["model"] == "1b" && !text(v, "impl").starts_with("cuda_graph"))
            .map(|v| num(v, "tokens_per_s"))
            .fold(0.0, f64::max);
        let ours = r * find(&short, "1b", "bf16", "pytorch_graph")
            .map_or(f64::NAN, |p| num(p, "tokens_per_s"));
        targets.push(format!(
            "1B bf16 ahead of every PyTorch row: **{:.2}×** the best ({})",
            ours / best_peer,
            met(ours > best_peer)
        ));
    }
    if let Some(r) = long_ratio {
        targets.push(format!(
            "the long-context row at least 1.5× the loop: **{r:.2}×** ({})",
            met(r >= 1.5)
        ));
    }
    if !targets.is_empty() {
        let _ = writeln!(md, "\nTargets: {}.", targets.join("; "));
    }
    md.push_str(&profile(raw));
    md.push_str(&products(raw));
    plot(&short, &long, svg);
    md
}

/// The comparison against transformers, per model and mode, and the prefill's.
fn checks(raw: &[Value]) -> String {
    let checks: Vec<&Value> = raw.iter().filter(|v| v["case"] == "decode_check").collect();
    if checks.is_empty() {
        return String::new();
    }
    let mut md = String::from("\nAgainst transformers on the same checkpoint (eager, the checkpoint's dtype), in each mode: greedy ids of the 128 new tokens, and the teacher-forced logits of every step (`step`: one step at a time; `loop`: one generation of one token after each prefix, its prefill included; `tp`: the tensor-parallel step of `llama::tp`, its attention heads and MLP split over the ranks with NCCL all-reduces as nodes, one step at a time; `tp-loop`: the tensor-parallel generation of `llama::tp_loop`, one generation of one token after each prefix; the GPUs column says over how many GPUs, the `tp` rows come from later runs on the same GPU model). f32 passes with identical ids up to the first step whose top-2 margin is under 1e-4 and every row's largest error within 2e-3 of its largest logit; bf16 with top-1 agreement of at least 97% (a row whose largest logit several tokens share agrees with any of them; the strict rate beside it) and a mean error of at most 2% of the logits' standard deviation.\n\n| model | dtype | mode | GPUs | first differing id | top-1 agreement (strict) | mean error ÷ std | largest error ÷ largest logit | passes |\n|---|---|---|---|---|---|---|---|---|\n");
    for c in checks {
        let first = match c["first_divergence"].as_u64() {
            Some(i) => format!("step {i}"),
            None => "none".to_owned(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {first} | {:.1}% ({:.1}%) | {:.4} | {:.1e} | {} |",
            text(c, "model"),
            text(c, "dtype"),
            text(c, "mode"),
            c["gpus"].as_u64().unwrap_or(1),
            100.0 * num(c, "top1_agreement"),
            100.0 * num(c, "top1_agreement_strict"),
            num(c, "mean_err_over_std"),
            num(c, "max_rel_logit_err"),
            if c["matches_hf"] == true { "yes" } else { "no" }
        );
    }
    let pre: Vec<&Value> = raw
        .iter()
        .filter(|v| v["case"] == "decode_prefill_check")
        .collect();
    if !pre.is_empty() {
        md.push_str("\nThe prefill alone: the logits after prompts of 1, 8 and 512 tokens (one generation of one new token) against transformers' last row, same thresholds.\n\n| model | dtype | mode | GPUs | prompt tokens | top-1 | largest error ÷ largest logit | mean error ÷ std | passes |\n|---|---|---|---|---|---|---|---|---|\n");
        for p in pre {
            let list = |k: &str, f: &dyn Fn(&Value) -> String| {
                p[k].as_array()
                    .map(|a| a.iter().map(f).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                text(p, "model"),
                text(p, "dtype"),
                p["mode"].as_str().unwrap_or("loop"),
                p["gpus"].as_u64().unwrap_or(1),
                list("prompt_lens", &|v| v.to_string()),
                list("top1", &|v| if v == true {
                    "yes".into()
                } else {
                    "no".into()
                }),
                list("max_rel_logit_err", &|v| format!(
                    "{:.1e}",
                    v.as_f64().unwrap_or(f64::NAN)
                )),
                list("err_over_std", &|v| format!(
                    "{:.4}",
                    v.as_f64().unwrap_or(f64::NAN)
                )),
                if p["matches_hf"] == true { "yes" } else { "no" }
            );
        }
    }
    md
}

/// Where the time of a step goes (`decode_trace` rows, `flagships/scripts/step_trace.cu`): each
/// kind of kernel's cost on the step's critical path, beside what its bytes cost at the copy
/// bandwidth.
fn profile(raw: &[Value]) -> String {
    let traces: Vec<&Value> = raw.iter().filter(|v| v["case"] == "decode_trace").collect();
    if traces.is_empty() {
        return String::new();
    }
    let mut md = String::from("\n### Where the time of a step goes\n");
    let _ = writeln!(
        md,
        "\nncu cannot profile the kernels of a graph that holds a conditional node, and Nsight Systems cannot make a report on these machines, so `flagships/scripts/step_trace.cu` traces the step itself: the step graph's kernels (`kernels.cu`, the same grids, programmatic edges between all of them) captured into a graph with random bf16 weights and launched back to back as `llama --bench` launches its steps, block 0 of every kernel writing the global timer as its wait on the kernel before it returns (a hook of `kernels.cu` compiled in only there). A kernel's cost is the time from its release to the next kernel's: its own work, plus whatever gap its end leaves before the next can go on. Steps 8 to 127, in the same run as the table above (`llama_hf.py all`). The hook itself costs the step time, so the step's own time is that of a second build without it (`-DSTEP_TRACE_OFF`), given first below; the kernels' costs are those of the traced build and add up to its slower step."
    );
    for t in &traces {
        let kernels = t["kernels"].as_array().cloned().unwrap_or_default();
        let (step, floor): (f64, f64) = kernels.iter().fold((0.0, 0.0), |(a, b), k| {
            (a + num(k, "us_per_step"), b + num(k, "floor_us_per_step"))
        });
        let _ = writeln!(
            md,
            "\n{} bf16, position {} on: {}traced, {:.0} tokens/s, {:.0} µs a step ({:.0} GB/s copy bandwidth: the bytes at that rate take {:.0} µs, {:.1}% of the traced step).\n\n| kernel | launches a step | µs a step | µs a launch | its bytes at the copy bandwidth, µs a step | over them, µs a step |\n|---|---|---|---|---|---|",
            text(t, "model"),
            num(t, "position"),
            untraced(t, floor),
            num(t, "tokens_per_s"),
            step,
            num(t, "copy_gbps"),
            floor,
            100.0 * floor / step
        );
        for k in &kernels {
            let (us, n, fl) = (
                num(k, "us_per_step"),
                num(k, "launches_per_step"),
                num(k, "floor_us_per_step"),
            );
            let _ = writeln!(
                md,
                "| `{}` | {n:.0} | {us:.1} | {:.2} | {fl:.1} | {:.1} |",
                text(k, "kernel"),
                us / n.max(1.0),
                us - fl
            );
        }
    }
    let _ = writeln!(
        md,
        "\nReading: the projections that stream most of the bytes (gate/up, down, the head) run within a few percent of the copy bandwidth; the rest of the step is the attention block. Attention reads almost nothing at these lengths but is a chain of dependent steps (the position, the cache, the merge across warps) that the next kernel must wait for; the query/key/value and output projections each pay a start (the RMSNorm, the input) on that chain. Loading the next kernel's weights into L2 while attention runs, or earlier, only moved the time: the loads queue in front of attention's own. What was tried to close the gap, with what each change moved, is in [`decode.md`](decode.md)."
    );
    md
}

/// The untraced build's step (`-DSTEP_TRACE_OFF`), when the row has it, and its share of the
/// bytes' time `floor`.
fn untraced(t: &Value, floor: f64) -> String {
    let us = num(t, "untraced_us_per_step");
    if us.is_nan() {
        return "not timed untraced; ".to_owned();
    }
    format!(
        "untraced, {:.0} tokens/s, {us:.0} µs a step ({:.1}% of it the bytes' time); ",
        num(t, "untraced_tokens_per_s"),
        100.0 * floor / us
    )
}

/// A model's bars in the plot: its label, (implementation, tokens/s), and its floor.
type Group = (String, Vec<(&'static str, f64)>, f64);

/// Tokens per second per implementation, and the floor, per model.
fn plot(short: &[&Value], long: &[&Value], path: &str) {
    let mut groups: Vec<Group> = Vec::new();
    let mut add = |label: String, set: Vec<&Value>| {
        if set.is_empty() {
            return;
        }
        let floor = num(set[0], "floor_tokens_per_s");
        let bars = IMPLS
            .iter()
            .filter_map(|imp| {
                set.iter()
                    .find(|v| v["impl"] == *imp)
                    .map(|v| (*imp, num(v, "tokens_per_s")))
            })
            .collect();
        groups.push((label, bars, floor));
    };
    let mut keys: Vec<(String, String)> = Vec::new();
    for v in short {
        let k = (text(v, "model").to_owned(), text(v, "dtype").to_owned());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for (m, d) in &keys {
        add(
            format!("{m} {d}"),
            short
                .iter()
                .copied()
                .filter(|v| v["model"] == m.as_str() && v["dtype"] == d.as_str())
                .collect(),
        );
    }
    if let Some(l) = long.first() {
        add(
            format!(
                "{} {}, positions to {}",
                text(l, "model"),
                text(l, "dtype"),
                l["context"]
            ),
            long.to_vec(),
        );
    }
    let root = SVGBackend::new(path, (1000, 460)).into_drawing_area();
    root.fill(&WHITE).expect("draw");
    let n = groups.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Llama decode, batch 1: tokens per second (log scale), the floor dashed",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(10)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..n as f64, (20f64..20000f64).log_scale())
        .expect("chart");
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("tokens/s")
        .draw()
        .expect("mesh");
    chart
        .draw_series(groups.iter().enumerate().map(|(g, (label, _, _))| {
            Text::new(label.clone(), (g as f64 + 0.1, 24.0), ("sans-serif", 14))
        }))
        .expect("labels");
    let colors = [
        RGBColor(160, 160, 160),
        RGBColor(110, 110, 200),
        MAGENTA,
        BLUE,
        RED,
    ];
    let width = 0.8 / IMPLS.len() as f64;
    for (k, (imp, color)) in IMPLS.iter().zip(colors).enumerate() {
        let bars: Vec<(f64, f64)> = groups
            .iter()
            .enumerate()
            .filter_map(|(g, (_, b, _))| {
                b.iter()
                    .find(|(i, _)| i == imp)
                    .map(|(_, r)| (g as f64 + 0.1 + k as f64 * width, *r))
            })
            .collect();
        if bars.is_empty() {
            continue;
        }
        chart
            .draw_series(
                bars.iter().map(|&(x, r)| {
                    Rectangle::new([(x, 30.0), (x + width * 0.9, r)], color.filled())
                }),
            )
            .expect("bars")
            .label(*imp)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    for (g, (_, _, floor)) in groups.iter().enumerate() {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(g as f64 + 0.05, *floor), (g as f64 + 0.95, *floor)],
                6,
                4,
                BLACK.stroke_width(2),
            ))
            .expect("floor");
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()
        .expect("legend");
    root.present().expect("write the plot");
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
        "\nThe matrix-vector products of a step, bf16, µs per call (TB/s of weights), from an earlier run (the step graph as it was then; since, the head has become a streaming kernel and every weight load carries an L2 evict-first hint): the step graph's kernels measured one at a time by ncu (`--cache-control none`) inside the decode, with the work they fuse; cuBLAS through PyTorch's `F.linear`, replayed from a CUDA graph over enough copies of the weight that none is in L2 (`flagships/scripts/gemv_peer.py`), the product alone, in that same run.\n\n| model | product | rows × cols | step graph kernel | fused into it | cuBLAS | cuBLAS ÷ kernel |\n|---|---|---|---|---|---|---|\n",
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
