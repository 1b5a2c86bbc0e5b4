//! The programmatic-launch section of `results.md` and `programmatic-launch.md`: the `pdl` benchmark's chains and
//! decode-like chains, three ways in one run, with the targets.

use std::fmt::Write as _;

use serde_json::Value;

/// The section, or nothing when there are no `pdl_*` rows.
pub fn section(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw
        .iter()
        .filter(|v| matches!(v["case"].as_str(), Some("pdl_chain" | "pdl_decode")))
        .collect();
    let Some(first) = rows.first() else {
        return String::new();
    };
    let us = |case: &str, shape: &str, n: u64, imp: &str| {
        rows.iter()
            .find(|v| {
                v["case"] == case
                    && v["shape"] == shape
                    && v["nodes"].as_u64() == Some(n)
                    && v["impl"] == imp
            })
            .and_then(|v| v["median_us"].as_f64())
    };
    let mut md = format!(
        "\n## Programmatic dependent launch\n\nOn an {}, one run of `benches/pdl.rs`. Chains of small kernels (32 threads each adding one) and a decode-like chain of 64 kernels (norm, elementwise, sum, scale on 4096 or 16384 floats), the same kernels three ways: the raw driver with plain edges (the floor as written today), the raw driver with programmatic edges (`cuGraphAddDependencies_v2`), and a `cuda_graph!` graph whose edges the macro made programmatic after proving from the source that each kernel waits before it reads (`#[programmatic]` on the graph). Each kernel triggers its dependent at once and waits for its predecessor first. A step is a launch and a synchronize; medians. The three results agree before timing.\n\n| chain | raw, plain edges | raw, programmatic | cuda-graph, programmatic | plain ÷ cuda-graph | cuda-graph ÷ raw programmatic |\n|---|---|---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU")
    );
    let mut targets = Vec::new();
    let mut line = |label: String, case: &str, shape: &str, n: u64, md: &mut String| {
        let (p, r, c) = (
            us(case, shape, n, "raw_plain"),
            us(case, shape, n, "raw_programmatic"),
            us(case, shape, n, "cuda_graph_programmatic"),
        );
        let (Some(p), Some(r), Some(c)) = (p, r, c) else {
            return;
        };
        let _ = writeln!(
            md,
            "| {label} | {p:.2} µs | {r:.2} µs | {c:.2} µs | {:.2}× | {:.3}× |",
            p / c,
            c / r
        );
        if case == "pdl_chain" && n == 1000 {
            targets.push((p / c, c / r));
        }
    };
    for n in [10u64, 100, 1000] {
        line(
            format!("{n} small kernels"),
            "pdl_chain",
            "chain",
            n,
            &mut md,
        );
    }
    for e in [4096u64, 16384] {
        line(
            format!("decode-like, 64 kernels, {e} floats"),
            "pdl_decode",
            &format!("n{e}"),
            64,
            &mut md,
        );
    }
    if let Some(&(speedup, over)) = targets.first() {
        let _ = writeln!(
            md,
            "\nTargets on the 1000-chain: cuda-graph with programmatic edges at least 1.3× faster than the raw floor with plain edges: **{speedup:.2}×** ({}); within 1.05× of the raw driver with programmatic edges: **{over:.3}×** ({}).",
            if speedup >= 1.3 { "met" } else { "missed" },
            if over <= 1.05 { "met" } else { "missed" }
        );
    }
    md
}
