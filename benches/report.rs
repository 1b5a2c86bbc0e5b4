//! Turns the raw benchmark output (`docs/bench/raw/*.json`: the Rust benchmark, the PyTorch
//! script, macro expansion and crate build times) into `docs/bench/results.json`,
//! `docs/bench/results.md` (medians, ratios to the raw driver floor, the targets),
//! `docs/bench/launch.svg`, and the tables of the workload pages (`live-edits.md`, `decode.md`,
//! `mlp.md`, `programmatic-launch.md`, `tensor-parallel.md`: what lies between each page's
//! `bench_report` markers). No GPU needed.
//!
//! Run: `cargo run -p cuda-graph-bench --bin bench_report` (from anywhere: paths are the
//! repository's).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use plotters::prelude::*;
use serde_json::Value;

mod report_decode;
mod report_history;
mod report_pdl;
mod report_workloads;

const IMPLS: [&str; 5] = ["raw", "cuda_graph", "cudarc_capture", "stream", "pytorch"];
const CASES: [&str; 10] = [
    "build",
    "instantiate",
    "launch",
    "node_setter",
    "node_setter_same_exec",
    "param_setter",
    "param_setter_same_exec",
    "exec_update",
    "reinstantiate",
    "change_one_scalar",
];

#[derive(Clone)]
struct Row {
    case: String,
    shape: String,
    nodes: u64,
    imp: String,
    via: String,
    us: f64,
    gpu: String,
}

fn load(dir: &str) -> (Vec<Value>, Vec<Row>) {
    let mut raw = Vec::new();
    for name in [
        "rust.json",
        "pytorch.json",
        "expansion.json",
        "compile.json",
        "cg.json",
        "mlp.json",
        "pytorch_mlp.json",
        "tp_mlp.json",
        "pytorch_tp_mlp.json",
        "all_reduce.json",
        "pdl.json",
        "decode.json",
        "decode_tp.json",
        "while_limit.json",
    ] {
        let Ok(text) = std::fs::read_to_string(format!("{dir}/{name}")) else {
            continue;
        };
        if let Ok(Value::Array(rows)) = serde_json::from_str::<Value>(&text) {
            raw.extend(rows);
        }
    }
    let rows = raw
        .iter()
        .filter_map(|v| {
            Some(Row {
                case: v["case"].as_str()?.to_owned(),
                shape: v["shape"].as_str()?.to_owned(),
                nodes: v["nodes"].as_u64()?,
                imp: v["impl"].as_str()?.to_owned(),
                via: v["via"].as_str().unwrap_or("").to_owned(),
                us: v["median_us"].as_f64()?,
                gpu: v["gpu"].as_str().unwrap_or("").to_owned(),
            })
        })
        .collect();
    (raw, rows)
}

type Key = (String, String, u64, String);

fn index(rows: &[Row]) -> BTreeMap<Key, f64> {
    rows.iter()
        .map(|r| {
            (
                (r.case.clone(), r.shape.clone(), r.nodes, r.imp.clone()),
                r.us,
            )
        })
        .collect()
}

fn get(ix: &BTreeMap<Key, f64>, case: &str, shape: &str, n: u64, imp: &str) -> Option<f64> {
    ix.get(&(case.into(), shape.into(), n, imp.into())).copied()
}

fn fmt_us(v: Option<f64>) -> String {
    match v {
        Some(v) if v >= 1000.0 => format!("{:.2} ms", v / 1000.0),
        Some(v) => format!("{v:.2} µs"),
        None => "–".to_owned(),
    }
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/bench/raw");
    let (raw, rows) = load(dir);
    if !rows.iter().any(|r| r.imp == "raw") {
        println!("bench_report: no benchmark results in {dir} (run the benchmark on a GPU first)");
        return;
    }
    std::fs::write(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/bench/results.json"),
        serde_json::to_string_pretty(&raw).expect("serialise") + "\n",
    )
    .expect("write results.json");
    let ix = index(&rows);
    let gpu = rows
        .iter()
        .find(|r| r.imp == "raw")
        .map(|r| r.gpu.clone())
        .unwrap_or_default();
    let mut md = String::new();
    let _ = writeln!(md, "# Benchmark results\n");
    let _ = writeln!(
        md,
        "GPU: **{gpu}** (every row of the tables below; the CG, MLP, programmatic-launch and Llama sections name their own). \
Medians of repeated runs, host wall time; `launch` includes the stream synchronize. \
Reproduce: build the benches in release and run them on a GPU machine (`cargo bench -p \
cuda-graph-bench`, which writes `docs/bench/raw/*.json`) and `python3 benches/pytorch_graphs.py`, \
then `bash benches/compile_time.sh` and `cargo run -p cuda-graph-bench --bin bench_report` \
here. `cuda_graph` rows come from `cuda_graph!` graphs of 10 to 10000 nodes, except \
`exec_update` and `reinstantiate` (template edits, which the macro leaves to the runtime's \
`GraphExec` that the generated graph derefs to: measured through the runtime API). \
`cuda_graph` rows are instantiated with width capping (the default), the raw floor without: \
on the fan-outs of 1000 and 10000 nodes that is why cuda-graph's `instantiate` and `launch` \
are below 1. `build`, `instantiate`, `node_setter`, `param_setter` and `exec_update` of the floor \
are measured interleaved with cuda-graph's, on the same kernel function, so both see the same \
machine state: `build` and `instantiate` each in a loop of its own (a graph built and dropped; \
built, then instantiated and dropped), either side going first every other time; the setters \
and `exec_update` on two fresh pairs of executable graphs, one made in each order, each pair in \
a process of its own (where the driver's records of a graph land changes its cost).\n"
    );
    let _ = writeln!(md, "![launch time per node](launch.svg)\n");

    // Targets.
    let _ = writeln!(
        md,
        "## Targets\n\n| target | measured | verdict |\n|---|---|---|"
    );
    let target =
        |md: &mut String, what: &str, ratios: Vec<(String, f64)>, ok: &dyn Fn(f64) -> bool| {
            if ratios.is_empty() {
                return;
            }
            let failing: Vec<f64> = ratios.iter().map(|r| r.1).filter(|&r| !ok(r)).collect();
            // The failing ratio farthest from 1.
            let worst = failing.iter().copied().fold(1.0f64, |a, b| {
                if (b.ln()).abs() > (a.ln()).abs() {
                    b
                } else {
                    a
                }
            });
            let all_ok = failing.is_empty();
            let detail: Vec<String> = ratios
                .iter()
                .map(|(k, v)| format!("{k}: {v:.2}×"))
                .collect();
            let _ = writeln!(
                md,
                "| {what} | {} | {} |",
                detail.join(", "),
                if all_ok {
                    "met".to_owned()
                } else {
                    format!("missed (worst {worst:.2}×)")
                }
            );
        };
    let sizes: Vec<u64> = vec![10, 100, 1000, 10000];
    let ratio = |case: &str, shape: &str, n: u64, num: &str, den: &str| -> Option<f64> {
        Some(get(&ix, case, shape, n, num)? / get(&ix, case, shape, n, den)?)
    };
    let mut setter = Vec::new();
    let mut build = Vec::new();
    let mut launch = Vec::new();
    for shape in ["chain", "fanout"] {
        for &n in &sizes {
            if let Some(r) = ratio("node_setter", shape, n, "cuda_graph", "raw") {
                setter.push((format!("{shape} {n}"), r));
            }
            let sum = |imp: &str| {
                Some(get(&ix, "build", shape, n, imp)? + get(&ix, "instantiate", shape, n, imp)?)
            };
            if let (Some(a), Some(b)) = (sum("cuda_graph"), sum("raw")) {
                build.push((format!("{shape} {n}"), a / b));
            }
            if let Some(r) = ratio("launch", shape, n, "cuda_graph", "raw") {
                launch.push((format!("{shape} {n}"), r));
            }
        }
    }
    target(
        &mut md,
        "typed setter ≤ 1.10× raw set-params (`node_setter`)",
        setter,
        &|r| r <= 1.10,
    );
    target(
        &mut md,
        "build + instantiate ≤ 1.10× raw explicit construction",
        build,
        &|r| r <= 1.10,
    );
    target(
        &mut md,
        "launch ≤ 1.05× raw `cuGraphLaunch`",
        launch,
        &|r| r <= 1.05,
    );
    let mut change = Vec::new();
    for shape in ["chain", "fanout"] {
        let recapture = get(&ix, "build", shape, 1000, "cudarc_capture")
            .zip(get(&ix, "instantiate", shape, 1000, "cudarc_capture"))
            .map(|(a, b)| a + b);
        if let (Some(c), Some(s)) = (
            recapture,
            get(&ix, "node_setter", shape, 1000, "cuda_graph"),
        ) {
            change.push((format!("{shape} 1000"), c / s));
        }
    }
    target(
        &mut md,
        "changing one parameter of a 1000-node graph ≥ 1000× faster than cudarc re-capture + instantiate",
        change,
        &|r| r >= 1000.0,
    );
    let mut chain = Vec::new();
    if let Some(r) = ratio("launch", "chain", 1000, "stream", "cuda_graph") {
        chain.push(("chain 1000".to_owned(), r));
    }
    target(
        &mut md,
        "a 1000-kernel chain ≥ 3.5× faster than stream launches",
        chain,
        &|r| r >= 3.5,
    );

    // Medians and ratios, one table per case.
    let _ = writeln!(md, "\n## Medians and ratios to the raw driver floor\n");
    for case in CASES {
        let present: Vec<&str> = IMPLS
            .iter()
            .copied()
            .filter(|imp| rows.iter().any(|r| r.case == case && r.imp == *imp))
            .collect();
        if present.is_empty() {
            continue;
        }
        let _ = writeln!(md, "### `{case}`\n");
        let mut header = String::from("| shape | nodes |");
        let mut rule = String::from("|---|---|");
        for imp in &present {
            let _ = write!(header, " {imp} |");
            rule.push_str("---|");
        }
        let _ = writeln!(md, "{header}\n{rule}");
        for shape in ["chain", "fanout"] {
            for &n in &sizes {
                let base = get(&ix, case, shape, n, "raw");
                let mut line = format!("| {shape} | {n} |");
                for imp in &present {
                    let v = get(&ix, case, shape, n, imp);
                    let r = match (v, base) {
                        (Some(v), Some(b)) if *imp != "raw" => format!(" ({:.2}×)", v / b),
                        _ => String::new(),
                    };
                    let _ = write!(line, " {}{r} |", fmt_us(v));
                }
                let _ = writeln!(md, "{line}");
            }
        }
        md.push('\n');
    }

    let history = report_history::section(dir);
    md.push_str(&history);

    // The PyTorch way of changing one scalar.
    let _ = writeln!(
        md,
        "## Changing one scalar per step: PyTorch against cuda-graph\n\nPyTorch copies the value into a static tensor and replays; cuda-graph calls the node's setter and launches. The change overhead is the step minus a launch alone; for cuda-graph the setter is also measured by itself (`node_setter`), since at a millisecond per step the difference of two medians is within their noise (and can come out below zero).\n\n| shape | nodes | pytorch step | pytorch overhead | cuda_graph step | cuda_graph overhead | cuda_graph setter alone |\n|---|---|---|---|---|---|---|"
    );
    for shape in ["chain", "fanout"] {
        for &n in &sizes {
            let step = |imp| get(&ix, "change_one_scalar", shape, n, imp);
            let over = |imp| Some(step(imp)? - get(&ix, "launch", shape, n, imp)?);
            let _ = writeln!(
                md,
                "| {shape} | {n} | {} | {} | {} | {} | {} |",
                fmt_us(step("pytorch")),
                fmt_us(over("pytorch")),
                fmt_us(step("cuda_graph")),
                fmt_us(over("cuda_graph")),
                fmt_us(get(&ix, "node_setter", shape, n, "cuda_graph"))
            );
        }
    }

    // Compile time.
    let compile: Vec<&Row> = rows.iter().filter(|r| r.case == "compile").collect();
    if !compile.is_empty() {
        let _ = writeln!(md, "\n## Compile time of `cuda_graph!`\n\n| what | nodes | median | per node |\n|---|---|---|---|");
        for r in &compile {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                r.via,
                r.nodes,
                fmt_us(Some(r.us)),
                fmt_us(Some(r.us / r.nodes as f64))
            );
        }
    }
    let mlp = report_workloads::mlp(&raw);
    let tp = [
        report_workloads::tp_mlp(&raw),
        report_workloads::all_reduce(&raw),
        report_workloads::decode_tp(&raw),
    ]
    .concat();
    let pdl = report_pdl::section(&raw);
    let decode = report_decode::section(
        &raw,
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/bench/decode.svg"),
    );
    let misses = misses(&ix);
    md.push_str(&report_workloads::cg(&raw));
    md.push_str(&report_workloads::while_limit(&raw));
    md.push_str(&mlp);
    md.push_str(&tp);
    md.push_str(&pdl);
    md.push_str(&decode);
    md.push_str(&misses);
    let notes = "\n## Notes\n\n\
- `cudarc_capture`, `stream` and `pytorch` issue a fan-out on one stream, so it runs as a sequence; `raw` and `cuda_graph` build it as a real fan-out/fan-in graph.\n\
- cudarc's per-buffer stream-order tracking is off in this benchmark (it adds event calls to cudarc's launches and to cuda-graph's launches alike).\n\
- `param_setter` sets one argument on every node (k = all nodes): `cuda_graph` through the generated `set_a`, `raw` through one `cuGraphExecKernelNodeSetParams_v2` per node.\n\
- `node_setter_same_exec` is the node setter again, beside the raw call on cuda-graph's own executable graph and node (`cu_graph_exec`, `cu_node`): the driver's records are the same for both, so the ratio is cuda-graph's own cost, not where each graph's records landed.\n\
- `param_setter_same_exec` is the graph-level setter again, beside one raw call per kernel node of cuda-graph's own executable graph (its template's nodes as `cuGraphGetNodes` lists them): cuda-graph's own cost a node.\n\
- `exec_update` changes one node in the template, then `cuGraphExecUpdate_v2`; `reinstantiate` adds a node to the template and updates (the driver refuses in place, so the graph is instantiated anew).\n\
- `cudarc_capture`'s `change_one_scalar` re-captures and instantiates the whole graph; `stream` simply launches again with the new value.\n";
    md.push_str(notes);
    std::fs::write(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/bench/results.md"),
        md,
    )
    .expect("write results.md");
    plot(
        &rows,
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/bench/launch.svg"),
    );
    // The workload pages: each page's tables, between its markers (the rest of a page is
    // written by hand).
    let pages: [(&str, String); 5] = [
        ("live-edits.md", [history, misses].concat()),
        ("decode.md", demote(&decode)),
        ("mlp.md", demote(&mlp)),
        ("programmatic-launch.md", demote(&pdl)),
        ("tensor-parallel.md", demote(&tp)),
    ];
    for (page, tables) in pages {
        let path = format!("{}/../docs/bench/{page}", env!("CARGO_MANIFEST_DIR"));
        match std::fs::read_to_string(&path) {
            Ok(text) => match fill(&text, &tables) {
                Some(text) => std::fs::write(&path, text).expect("write a workload page"),
                None => println!(
                    "bench_report: {page} has no `{BEGIN}` ... `{END}` markers; left as it is"
                ),
            },
            Err(e) => println!("bench_report: {page}: {e}; left as it is"),
        }
    }
    println!("wrote docs/bench/results.json, docs/bench/results.md, docs/bench/launch.svg, docs/bench/decode.svg and the workload pages");
}

/// Where a workload page's generated tables begin and end.
const BEGIN: &str = "<!-- bench_report: begin -->";
const END: &str = "<!-- bench_report: end -->";

/// `page` with what lies between its markers replaced by `tables`; `None` without markers.
fn fill(page: &str, tables: &str) -> Option<String> {
    let start = page.find(BEGIN)? + BEGIN.len();
    let end = start + page[start..].find(END)?;
    Some(format!(
        "{}\n{}\n{}",
        &page[..start],
        tables.trim(),
        &page[end..]
    ))
}

/// A `results.md` section for a page of its own: its headings one level down (the page has the
/// title).
fn demote(section: &str) -> String {
    section
        .lines()
        .map(|l| {
            if l.starts_with('#') {
                format!("#{l}")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn misses(ix: &BTreeMap<Key, f64>) -> String {
    let cells = || {
        ["chain", "fanout"]
            .into_iter()
            .flat_map(|s| [10u64, 100, 1000, 10000].map(move |n| (s, n)))
    };
    let span = |v: Vec<f64>| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let over = |case: &str, s: &str, n: u64| {
        Some(get(ix, case, s, n, "cuda_graph")? - get(ix, case, s, n, "raw")?)
    };
    let ratio = |case: &str, s: &str, n: u64| {
        Some(get(ix, case, s, n, "cuda_graph")? / get(ix, case, s, n, "raw")?)
    };
    let setter_ns = span(
        cells()
            .filter_map(|(s, n)| over("node_setter", s, n))
            .map(|d| d * 1000.0)
            .collect(),
    );
    let setter_raw = span(
        cells()
            .filter_map(|(s, n)| get(ix, "node_setter", s, n, "raw"))
            .map(|d| d * 1000.0)
            .collect(),
    );
    // What a build adds to the floor's driver calls, where it is not lost in the floor's own
    // swings: graphs of 10 and 100 nodes, in µs a graph.
    let build_us = span(
        cells()
            .filter(|&(_, n)| n <= 100)
            .filter_map(|(s, n)| over("build", s, n))
            .collect(),
    );
    let inst = span(
        cells()
            .filter_map(|(s, n)| ratio("instantiate", s, n))
            .collect(),
    );
    let fan10 = (
        get(ix, "instantiate", "fanout", 10, "raw"),
        get(ix, "instantiate", "fanout", 10, "cuda_graph"),
    );
    let mut m = String::from("\n## Where targets are at the line, and why\n\n");
    let _ = writeln!(
        m,
        "- **`node_setter`.** cuda-graph spends {:.0}-{:.0} ns more per call than the floor's {:.0}-{:.0} ns. \
Per call it checks the handle, writes the argument in place into the executable graph's shadow (the old bytes \
kept on the stack, put back if the driver refuses), notes which argument the template has not taken yet (the \
template catches up when an update or a rebuild needs it), and makes the one driver call, handing the shadow's \
argument block to the driver whole as the kernel's parameter buffer (`extra`) where the driver reported the \
kernel's parameter offsets and they are the block's: no pointer array is built, and the driver copies one \
buffer. The floor itself moves by 10-20% between processes, and the ratio with it: the history below shows \
every run.",
        setter_ns.0, setter_ns.1, setter_raw.0, setter_raw.1
    );
    let sums: Vec<String> = cells()
        .filter_map(|(s, n)| {
            let sum = |imp| Some(get(ix, "build", s, n, imp)? + get(ix, "instantiate", s, n, imp)?);
            Some(format!("{s} {n}: {:.2}x", sum("cuda_graph")? / sum("raw")?))
        })
        .collect();
    let _ = writeln!(
        m,
        "- **`build` + `instantiate`** ({}). Instantiation is the driver's call on the same graph and costs the \
same for both within the run-to-run noise ({:.2}-{:.2}x here, both ways). Building a graph of 10 or 100 nodes \
costs {} the floor's bare driver calls (less in some runs: the floor's own code allocates a little per node, \
and the driver takes the argument block cuda-graph hands it whole for a little less than the floor's pointer \
array, `docs/notes/driver_entry_points.c`). Besides the driver's calls it makes the shadows, the names and edges cuda-graph keeps \
(for DOT output, error messages and later edits), the argument and launch-limit checks, and per graph the \
template's bindings, lists and tables. Its node records, kernel shadows, topology tables and scratch lists come \
from the last graph the thread dropped (up to 1024 nodes), and a `cuda_graph!` graph's list of node handles from \
the last of its argument types, as they do in this benchmark's loop; a thread's first graph, or one \
built while the last is still alive, allocates them (about 1 µs more at 10 nodes). The nodes of one kernel are \
checked and their shadows written first (each in its slot, not built aside and copied there), then made by driver calls \
back to back (the next node's shadow asked for ahead of each call), then recorded: a driver call pushes its \
caller's code and data out of the CPU's nearest caches, and the less cuda-graph touches between two of them, the \
less it pays again. Where instantiation is cheap (chains of up to 1000 nodes) what is left shows; where it is dear \
(fan-outs) it disappears. `build` is timed in a loop of its own, apart from `instantiate`: a 1000-wide fan-out's \
instantiation by the floor takes 20-30 ms, and timed in one loop with it the build had a few dozen samples, each \
after one side's executable graph was torn down. [`live-edits.md`](live-edits.md) has how a build's own \
instructions and cache misses are counted, and what was tried.",
        sums.join(", "),
        inst.0,
        inst.1,
        signed_span_us(build_us)
    );
    if let (Some(r), Some(c)) = fan10 {
        let _ = writeln!(
            m,
            "- **`instantiate` of the 10-node fan-out ({r:.1} µs raw, {c:.1} µs cuda-graph here)** swings from run to run \
by 1.5x either way: the history below has it from 0.6x to 1.7x the floor with the same code. Measured \
apart from each other (not interleaved), both instantiate in the same time (a diagnostic run: 41.7 µs cuda-graph, \
40.9 µs raw, 40.5 µs for cuda-graph's graph instantiated by a raw call). It is the driver's call on the same graph, \
so the ratio of this cell says nothing about cuda-graph."
        );
    }
    let launches: Vec<String> = cells()
        .filter_map(|(s, n)| {
            let r = ratio("launch", s, n)?;
            (r > 1.05).then(|| format!("{s} {n}: {r:.2}x"))
        })
        .collect();
    if !launches.is_empty() {
        let _ = writeln!(
            m,
            "- **`launch` ({}).** The launch and the stream's synchronize are measured one after the other, \
not in pairs with the floor's, and the floor does not cap widths (which changes nothing at 10 or 100 nodes): a \
small graph's launch moves by several percent between runs (the 10-node fan-out read 0.90-1.06x in eight H200 runs \
with two versions of the code). cuda-graph's launch is the one `cuGraphLaunch` call after a \
check that the stream is of the graph's context.",
            launches.join(", ")
        );
    }
    let pc = ratio("param_setter", "chain", 1000);
    let pc10k = ratio("param_setter", "chain", 10000);
    if let (Some(a), Some(b)) = (pc, pc10k) {
        let _ = writeln!(
            m,
            "- **`param_setter`: {a:.2}x at 1000 nodes, {b:.2}x at 10000.** The generated `set_a` is one \
loop over the nodes that use the param: per node it opens the node's view, evaluates its arguments, writes the \
ones the param changed in place and sends the block, one driver call a node; the launch configuration is sent as \
it is and not marked for the template when the param does not size the launch."
        );
    }
    m
}

/// Launch time per node against graph size, one panel per shape.
fn plot(rows: &[Row], path: &str) {
    let root = SVGBackend::new(path, (1000, 420)).into_drawing_area();
    root.fill(&WHITE).expect("draw");
    let panels = root.split_evenly((1, 2));
    let colors = [RED, BLUE, GREEN, MAGENTA, BLACK];
    for (panel, shape) in panels.iter().zip(["chain", "fanout"]) {
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!("launch + sync per node, {shape}"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d((8f64..12000f64).log_scale(), (0.1f64..100f64).log_scale())
            .expect("chart");
        chart
            .configure_mesh()
            .x_desc("nodes")
            .y_desc("µs per node")
            .draw()
            .expect("mesh");
        for (imp, color) in IMPLS.iter().zip(colors) {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.case == "launch" && r.shape == shape && r.imp == *imp)
                .map(|r| (r.nodes as f64, r.us / r.nodes as f64))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            if pts.is_empty() {
                continue;
            }
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .expect("series")
                .label(*imp)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .expect("points");
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()
            .expect("legend");
    }
    root.present().expect("write the plot");
}

/// A span of differences in µs, said in words: "0.20-0.40 µs more than", "0.10-0.30 µs less
/// than", or "between 0.10 µs less and 0.30 µs more than".
fn signed_span_us((lo, hi): (f64, f64)) -> String {
    if lo >= 0.0 {
        format!("{lo:.2}-{hi:.2} µs more than")
    } else if hi <= 0.0 {
        format!("{:.2}-{:.2} µs less than", -hi, -lo)
    } else {
        format!("between {:.2} µs less and {hi:.2} µs more than", -lo)
    }
}

#[cfg(test)]
mod pages {
    use super::{demote, fill, BEGIN, END};

    #[test]
    fn fills_between_the_markers_and_keeps_the_rest() {
        let page = format!("# T\n\nhand\n\n{BEGIN}\nold\n{END}\n\nmore\n");
        let got = fill(&page, "\n## new\n\n| a |\n").expect("markers");
        assert_eq!(
            got,
            format!("# T\n\nhand\n\n{BEGIN}\n## new\n\n| a |\n{END}\n\nmore\n")
        );
        assert_eq!(
            fill(&got, "x").expect("markers"),
            format!("# T\n\nhand\n\n{BEGIN}\nx\n{END}\n\nmore\n")
        );
        assert_eq!(fill("no markers", "x"), None);
    }

    #[test]
    fn demotes_headings_only() {
        assert_eq!(
            demote("## A\ntext # not\n### B"),
            "### A\ntext # not\n#### B"
        );
    }
}
