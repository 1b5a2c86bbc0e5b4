//! The live-edit paths' ratios to the raw driver floor, run by run and GPU by GPU.
//!
//! Every `rust.json` of the graphs benchmark under `docs/bench/raw/` (the folder itself and
//! one folder down, a folder a machine) adds its run to `docs/bench/raw/history/graphs.json`,
//! which keeps every run seen. A run is one GPU and the time the benchmark started (its rows'
//! `run` field); files written before rows carried it count as one undated run a GPU. The
//! section shows each GPU's last runs side by side, so a regression is visible in the next
//! run.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Map, Value};

/// The cases followed, and the target of each (cuda-graph's median over the floor's, in the
/// same run; none for `instantiate`, the driver's own call on the same graph).
pub const TRACKED: [(&str, Option<f64>); 7] = [
    ("node_setter", Some(1.05)),
    ("node_setter_same_exec", Some(1.05)),
    ("param_setter", Some(1.10)),
    ("param_setter_same_exec", Some(1.10)),
    ("build", Some(1.10)),
    ("instantiate", None),
    ("exec_update", Some(1.10)),
];

/// How many of a GPU's last runs the section shows.
const SHOWN: usize = 8;

/// The label of a run whose rows carry no `run` field.
const UNDATED: &str = "undated";

/// One run's ratios: `"case shape nodes"` to cuda-graph's median over the floor's.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub gpu: String,
    pub run: String,
    pub ratios: BTreeMap<String, f64>,
}

/// The runs in the graphs benchmark's rows (one per GPU and `run` field).
pub fn runs_of(rows: &[Value]) -> Vec<Run> {
    // (case, shape, nodes) and the implementation.
    type Cell = (String, String, u64);
    let mut medians: BTreeMap<(String, String), BTreeMap<(Cell, String), f64>> = BTreeMap::new();
    for r in rows {
        let (Some(case), Some(shape), Some(n), Some(imp), Some(us)) = (
            r["case"].as_str(),
            r["shape"].as_str(),
            r["nodes"].as_u64(),
            r["impl"].as_str(),
            r["median_us"].as_f64(),
        ) else {
            continue;
        };
        if !TRACKED.iter().any(|(c, _)| *c == case) || !matches!(imp, "raw" | "cuda_graph") {
            continue;
        }
        let gpu = r["gpu"].as_str().unwrap_or("").to_owned();
        let run = r["run"].as_str().unwrap_or(UNDATED).to_owned();
        let cell = (case.to_owned(), shape.to_owned(), n);
        medians
            .entry((gpu, run))
            .or_default()
            .insert((cell, imp.to_owned()), us);
    }
    medians
        .into_iter()
        .map(|((gpu, run), m)| {
            let mut ratios = BTreeMap::new();
            for ((cell, imp), us) in &m {
                if imp != "cuda_graph" {
                    continue;
                }
                let (case, shape, n) = cell;
                if let Some(&b) = m.get(&(cell.clone(), "raw".to_owned())) {
                    if b > 0.0 {
                        // To three decimals, as the history keeps them.
                        let r = (us / b * 1000.0).round() / 1000.0;
                        ratios.insert(format!("{case} {shape} {n}"), r);
                    }
                }
            }
            Run { gpu, run, ratios }
        })
        .filter(|r| !r.ratios.is_empty())
        .collect()
}

/// `history` with `new` runs added: a dated run replaces the one of the same GPU and time; an
/// undated one is added unless the same GPU already has an undated run with the same ratios.
pub fn merge(mut history: Vec<Run>, new: Vec<Run>) -> Vec<Run> {
    for n in new {
        let same = |h: &Run| {
            h.gpu == n.gpu && h.run == n.run && (n.run != UNDATED || h.ratios == n.ratios)
        };
        match history.iter_mut().find(|h| same(h)) {
            Some(h) => *h = n,
            None => history.push(n),
        }
    }
    // Undated runs first (they were before rows carried the time), then by time.
    history.sort_by(|a, b| {
        (a.gpu.as_str(), a.run != UNDATED, a.run.as_str()).cmp(&(
            b.gpu.as_str(),
            b.run != UNDATED,
            b.run.as_str(),
        ))
    });
    history
}

fn to_json(runs: &[Run]) -> Value {
    Value::Array(
        runs.iter()
            .map(|r| {
                let ratios: Map<String, Value> = r
                    .ratios
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect();
                json!({"gpu": r.gpu, "run": r.run, "ratios": ratios})
            })
            .collect(),
    )
}

fn from_json(v: &Value) -> Vec<Run> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            Some(Run {
                gpu: r["gpu"].as_str()?.to_owned(),
                run: r["run"].as_str()?.to_owned(),
                ratios: r["ratios"]
                    .as_object()?
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
                    .collect(),
            })
        })
        .collect()
}

/// The graphs benchmark's rows of every `rust.json` in `dir` and its folders.
fn rows_under(dir: &Path) -> Vec<Value> {
    let mut files = vec![dir.join("rust.json")];
    if let Ok(rd) = std::fs::read_dir(dir) {
        let mut subs: Vec<_> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        subs.sort();
        files.extend(subs.into_iter().map(|d| d.join("rust.json")));
    }
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .filter_map(|t| serde_json::from_str::<Value>(&t).ok())
        .filter_map(|v| v.as_array().cloned())
        .flatten()
        .collect()
}

/// Adds the runs found under `raw_dir` to its `history/graphs.json` and returns the section.
pub fn section(raw_dir: &str) -> String {
    let dir = Path::new(raw_dir);
    let path = dir.join("history").join("graphs.json");
    let kept = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .map(|v| from_json(&v))
        .unwrap_or_default();
    let history = merge(kept, runs_of(&rows_under(dir)));
    if history.is_empty() {
        return String::new();
    }
    let _ = std::fs::create_dir_all(dir.join("history"));
    let text = serde_json::to_string_pretty(&to_json(&history)).expect("serialise") + "\n";
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("bench_report: cannot write {}: {e}", path.display());
    }
    render(&history)
}

/// The markdown of the history: a table a GPU, a column a run (its last [`SHOWN`]).
pub fn render(history: &[Run]) -> String {
    let mut md = String::from("\n## Live edits against the floor, run by run\n\n");
    let _ = writeln!(
        md,
        "Each cell: cuda-graph's median over the raw driver floor's in the same run of `benches/graphs` (the floor measured interleaved with it). `node_setter_same_exec` is the node setter over the raw call on cuda-graph's own executable graph and node (its raw handles), so the driver's records are the same on both sides and the ratio is cuda-graph's own cost; `param_setter_same_exec` is the same for the graph-level setter (a raw call per kernel node of cuda-graph's executable graph). Targets: `node_setter` and `node_setter_same_exec` ≤ 1.05, `param_setter`, `param_setter_same_exec`, `build` and `exec_update` ≤ 1.10; a cell over its target is in bold. Every run of the benchmark adds a column (`docs/bench/raw/history/graphs.json` keeps them); `undated` is a run from before the rows carried the time they were taken."
    );
    let mut gpus: Vec<&str> = history.iter().map(|r| r.gpu.as_str()).collect();
    gpus.dedup();
    for gpu in gpus {
        let runs: Vec<&Run> = history.iter().filter(|r| r.gpu == gpu).collect();
        let runs = &runs[runs.len().saturating_sub(SHOWN)..];
        let _ = writeln!(md, "\n### {gpu}\n");
        let mut head = String::from("| case | shape | nodes |");
        let mut rule = String::from("|---|---|---:|");
        for r in runs {
            let _ = write!(head, " {} |", r.run);
            rule.push_str("---:|");
        }
        let _ = writeln!(md, "{head}\n{rule}");
        for (case, target) in TRACKED {
            for shape in ["chain", "fanout"] {
                for n in [10u64, 100, 1000, 10000] {
                    let key = format!("{case} {shape} {n}");
                    if !runs.iter().any(|r| r.ratios.contains_key(&key)) {
                        continue;
                    }
                    let mut line = format!("| `{case}` | {shape} | {n} |");
                    for r in runs {
                        let cell = match r.ratios.get(&key) {
                            Some(&v) if target.is_some_and(|t| v > t) => format!("**{v:.2}×**"),
                            Some(&v) => format!("{v:.2}×"),
                            None => "–".to_owned(),
                        };
                        let _ = write!(line, " {cell} |");
                    }
                    let _ = writeln!(md, "{line}");
                }
            }
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(case: &str, n: u64, imp: &str, us: f64, gpu: &str, run: Option<&str>) -> Value {
        let mut v = json!({"case": case, "shape": "chain", "nodes": n, "impl": imp,
                           "median_us": us, "gpu": gpu});
        if let Some(r) = run {
            v["run"] = json!(r);
        }
        v
    }

    #[test]
    fn runs_are_ratios_of_the_same_run_and_gpu() {
        let rows = vec![
            row("node_setter", 10, "raw", 0.2, "A", Some("t1")),
            row("node_setter", 10, "cuda_graph", 0.25, "A", Some("t1")),
            row("node_setter", 10, "raw", 0.4, "B", None),
            row("node_setter", 10, "cuda_graph", 0.42, "B", None),
            // Not followed, or without its floor: no ratio.
            row("launch", 10, "raw", 1.0, "A", Some("t1")),
            row("launch", 10, "cuda_graph", 1.0, "A", Some("t1")),
            row("build", 100, "cuda_graph", 3.0, "A", Some("t1")),
        ];
        let runs = runs_of(&rows);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].gpu, "A");
        assert_eq!(runs[0].ratios.len(), 1);
        assert!((runs[0].ratios["node_setter chain 10"] - 1.25).abs() < 1e-12);
        assert_eq!(runs[1].run, UNDATED);
        assert!((runs[1].ratios["node_setter chain 10"] - 1.05).abs() < 1e-12);
    }

    #[test]
    fn merging_keeps_every_run_once() {
        let r = |gpu: &str, run: &str, v: f64| Run {
            gpu: gpu.into(),
            run: run.into(),
            ratios: [("node_setter chain 10".to_owned(), v)]
                .into_iter()
                .collect(),
        };
        let h = merge(vec![], vec![r("A", UNDATED, 1.1), r("A", "t1", 1.2)]);
        // The same files read again add nothing; a new dated run adds a column; an undated
        // run with other ratios is another run.
        let h = merge(h, vec![r("A", UNDATED, 1.1), r("A", "t1", 1.2)]);
        assert_eq!(h.len(), 2);
        let h = merge(h, vec![r("A", "t2", 1.0), r("A", UNDATED, 1.3)]);
        assert_eq!(h.len(), 4);
        assert_eq!(
            h.iter().map(|x| x.run.as_str()).collect::<Vec<_>>(),
            [UNDATED, UNDATED, "t1", "t2"]
        );
        // The JSON form reads back as it was (to three decimals).
        assert_eq!(from_json(&to_json(&h)), h);
        let md = render(&h);
        assert!(
            md.contains(
                "| `node_setter` | chain | 10 | **1.10×** | **1.30×** | **1.20×** | 1.00× |"
            ),
            "{md}"
        );
    }
}
