//! The workload sections of `results.md` (and of `mlp.md` and `tensor-parallel.md`): conjugate
//! gradient (one launch a solve), the MLP step beside PyTorch, and the tensor-parallel MLP block
//! per world size.

use std::fmt::Write as _;

use serde_json::Value;

use super::fmt_us;

/// The analysis of the targets at the line, with this run's numbers.
/// The conjugate-gradient flagship (`benches/cg.rs`): whole solves, three ways.
pub fn cg(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "cg_solve").collect();
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut md = format!(
        "\n## Conjugate gradient: the whole solve as one launch\n\n2-D Poisson matrices (CSR, own SpMV), tolerance 1e-5, on an {}. `one launch`: a `cuda_graph!` graph whose iterations are a WHILE node (a kernel decides on the device); `per iteration`: the same kernels as one graph launch per iteration, the host reading the decision after each; `host loop`: the same kernels as stream launches, the host synchronizing after each iteration. Whole solves, medians.\n\n| grid | unknowns | iterations (CPU) | one launch | per iteration | host loop | host loop ÷ one launch | per iteration ÷ one launch |\n|---|---|---|---|---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU")
    );
    let mut shapes: Vec<(u64, String)> = rows
        .iter()
        .filter_map(|v| Some((v["nodes"].as_u64()?, v["shape"].as_str()?.to_owned())))
        .collect();
    shapes.sort();
    shapes.dedup();
    for (n, shape) in shapes {
        let find = |imp: &str| {
            rows.iter()
                .find(|v| v["shape"] == shape.as_str() && v["impl"] == imp)
                .copied()
        };
        let us = |imp: &str| find(imp).and_then(|v| v["median_us"].as_f64());
        let (Some(w), Some(p), Some(h)) = (
            us("cuda_graph_while"),
            us("cuda_graph_per_iteration"),
            us("host_loop"),
        ) else {
            continue;
        };
        let it = find("cuda_graph_while").map_or(Value::Null, |v| v["iterations"].clone());
        let cpu = find("cuda_graph_while").map_or(Value::Null, |v| v["cpu_iterations"].clone());
        let _ = writeln!(
            md,
            "| {} | {n} | {it} ({cpu}) | {} | {} | {} | {:.2}× | {:.2}× |",
            shape.trim_start_matches("poisson"),
            fmt_us(Some(w)),
            fmt_us(Some(p)),
            fmt_us(Some(h)),
            h / w,
            p / w
        );
    }
    md
}

/// The MLP flagship (`benches/mlp.rs`, `benches/pytorch_mlp.py`): one inference step.
pub fn mlp(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "mlp_step").collect();
    let us = |batch: u64, imp: &str| {
        rows.iter()
            .find(|v| v["nodes"].as_u64() == Some(batch) && v["impl"] == imp)
            .and_then(|v| v["median_us"].as_f64())
    };
    let Some(first) = rows.iter().find(|v| v["impl"] == "cuda_graph") else {
        return String::new();
    };
    let mut md = format!(
        "\n## A 3-layer MLP step (512 → 1024 → 1024 → 256, ReLU)\n\nOn an {}. A step writes a new input into pinned host memory, runs, and waits. `cuda-graph`: the `cuda_graph!` graph for the batch: up to 8 rows `MlpVec` (three kernels of the crate that stream each weight once: the input read from pinned host memory, the first layer with its part of the second summed across blocks, the rest of the second with the third; programmatic edges, each kernel loading its weights before it waits), above that `MlpSplit` (each layer's input split into two TF32 parts by a kernel, the first of which reads the new input from pinned host memory itself, with no copy node; the parts multiplied with the weight split the same way in one cuBLASLt TF32 product on the tensor cores, the inner dimension tripled, bias and ReLU in the epilogue: as accurate as f32 arithmetic); `f32 products`: `Mlp`, the same step with cuBLASLt's f32 products (no TF32), the fastest configuration timed in a graph (`Matmul::searched` above 8 rows); `PyTorch graph`: `torch.cuda.graph` of `F.linear`/`relu` with the copy inside the graph (TF32 off); `stream`: `Mlp`'s products as stream launches; `PyTorch eager`: no graph. Every output agrees with a float64 CPU forward pass within 1e-4 (relative to the largest output). Medians of 280 steps, kept after 200 ms of warm-up steps.\n\n| batch | cuda-graph | f32 products | PyTorch graph | stream | PyTorch eager | PyTorch graph ÷ cuda-graph | stream ÷ cuda-graph |\n|---|---|---|---|---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU")
    );
    for batch in [1u64, 32, 256] {
        let Some(cg) = us(batch, "cuda_graph") else {
            continue;
        };
        let (pg, st, pe) = (
            us(batch, "pytorch_graph"),
            us(batch, "cudarc_stream"),
            us(batch, "pytorch_eager"),
        );
        let ratio = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{:.2}×", v / cg));
        let _ = writeln!(
            md,
            "| {batch} | {} | {} | {} | {} | {} | {} | {} |",
            fmt_us(Some(cg)),
            fmt_us(us(batch, "cuda_graph_f32")),
            fmt_us(pg),
            fmt_us(st),
            fmt_us(pe),
            ratio(pg),
            ratio(st)
        );
    }
    md
}

/// The tensor-parallel MLP block (`benches/tp_mlp.rs`, `benches/pytorch_tp_mlp.py`): one step
/// on every rank, per world size.
pub fn tp_mlp(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "tp_mlp_step").collect();
    let us = |batch: u64, gpus: u64, imp: &str| {
        rows.iter()
            .find(|v| {
                v["batch"].as_u64() == Some(batch)
                    && v["gpus"].as_u64() == Some(gpus)
                    && v["impl"] == imp
            })
            .and_then(|v| v["median_us"].as_f64())
    };
    let Some(first) = rows.iter().find(|v| v["impl"] == "cuda_graph") else {
        return String::new();
    };
    let mut worlds: Vec<u64> = rows.iter().filter_map(|v| v["gpus"].as_u64()).collect();
    worlds.sort_unstable();
    worlds.dedup();
    let program = |batch: u64, gpus: u64| {
        rows.iter()
            .find(|v| {
                v["batch"].as_u64() == Some(batch)
                    && v["gpus"].as_u64() == Some(gpus)
                    && v["impl"] == "cuda_graph"
            })
            .and_then(|v| v["program"].as_str())
            .unwrap_or("TpMlp")
    };
    let mut md = format!(
        "\n## A tensor-parallel MLP block (hidden 4096, inner 16384, GELU, all-reduce)\n\nOn {}, one run of `benches/tp_mlp.rs` and `benches/pytorch_tp_mlp.py` (NVLink NV18 between the two). One rank a GPU; a step writes a new input into pinned host memory on every rank, runs every rank, and waits for all. `cuda-graph`: a `cuda_graph!` program built on each rank, one process driving every GPU (a thread a rank for the writes and launches, as PyTorch has a process a rank): `TpMlpVec` up to a batch of 8 (a kernel reads the input from pinned host memory, programmatic edges from it to the first projection and from that to the second, so each projection starts streaming its weights while the kernel before it finishes; the projections as kernels of the crate that stream each weight once, bias and GELU in the first, rank 0's residual and output bias in the second; the all-reduce captured as a node), `TpMlp` above (the input copied by a memcpy node, two cuBLAS SGEMMs captured as nodes, bias+GELU, the all-reduce, residual+bias). The all-reduce: the crate's peer all-reduce (one kernel writing each rank's part straight into the other GPU's memory) up to 512 KiB a rank, batches 1 to 32; NCCL above. `PyTorch graph`: `torch.cuda.graph` of the same step with `dist.all_reduce` (NCCL) captured, one process a GPU; `PyTorch eager`: no graph. TF32 off; outputs agree with a float64 CPU forward pass of the whole block (8 rows a batch checked). Medians of 200 steps (PyTorch: the slowest rank's). `÷ 1 GPU`: the same implementation's step on one GPU over this one.\n\n| GPUs | batch | program | cuda-graph | PyTorch graph | PyTorch eager | PyTorch graph ÷ cuda-graph | PyTorch eager ÷ cuda-graph | cuda-graph ÷ 1 GPU | PyTorch graph ÷ 1 GPU |\n|---|---|---|---|---|---|---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU")
    );
    for &gpus in &worlds {
        for batch in [1u64, 8, 32, 128] {
            let Some(cg) = us(batch, gpus, "cuda_graph") else {
                continue;
            };
            let (pg, pe) = (
                us(batch, gpus, "pytorch_graph"),
                us(batch, gpus, "pytorch_eager"),
            );
            let ratio = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{:.2}×", v / cg));
            let scale = |imp: &str, now: Option<f64>| match (us(batch, 1, imp), now) {
                (Some(one), Some(now)) if gpus > 1 => format!("{:.2}×", one / now),
                _ => "–".to_owned(),
            };
            let _ = writeln!(
                md,
                "| {gpus} | {batch} | {} | {} | {} | {} | {} | {} | {} | {} |",
                program(batch, gpus),
                fmt_us(Some(cg)),
                fmt_us(pg),
                fmt_us(pe),
                ratio(pg),
                ratio(pe),
                scale("cuda_graph", Some(cg)),
                scale("pytorch_graph", pg)
            );
        }
    }
    md
}

/// The Llama model split over the GPUs of one machine (`flagships/scripts/llama_hf.py
/// tp-bench`, `flagships/scripts/pytorch_tp_llama.py`): tokens/s per implementation and number
/// of GPUs, against the floor of the bytes each GPU reads a token.
pub fn decode_tp(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "decode_tp").collect();
    let Some(first) = rows.first() else {
        return String::new();
    };
    let rate = |imp: &str, gpus: u64| {
        rows.iter()
            .find(|v| v["impl"] == imp && v["gpus"].as_u64() == Some(gpus))
            .and_then(|v| v["tokens_per_s"].as_f64())
    };
    let mut md = format!(
        "\n## The Llama 1B shape split over GPUs (tensor parallel, bf16, batch 1)\n\nOn {} (NVLink NV18), one run: an 8-token prompt and 128 new tokens. `cuda_graph_loop`: the single-GPU generation graph; `cuda_graph_tp_step`: `llama::tp`, the step graph on every GPU (heads and MLP shares, two all-reduces a layer as nodes: the crate's peer all-reduce, since each is 8 KiB), one launch a token on every GPU, back to back; `cuda_graph_tp_loop`: `llama::tp_loop`, the whole generation in one launch on every GPU (the all-reduces inside the prefill's IF and the decode loop's WHILE, under conditions agreed on the communicator); `pytorch_tp_graph`: a gpt-fast-style split written by hand in PyTorch (`flagships/scripts/pytorch_tp_llama.py`: one process a GPU, the decode step with its all-reduces captured in one `torch.cuda.graph`, one replay a token; not compiled). The floor: copy bandwidth over the bytes one GPU reads a token (its share of the layers, the head whole).\n\n| implementation | GPUs | tokens/s | of the floor | ÷ pytorch_tp_graph | ÷ itself on 1 GPU |\n|---|---|---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU")
    );
    for v in &rows {
        let (Some(imp), Some(gpus), Some(tps)) = (
            v["impl"].as_str(),
            v["gpus"].as_u64(),
            v["tokens_per_s"].as_f64(),
        ) else {
            continue;
        };
        let over = |d: Option<f64>| d.map_or("–".to_owned(), |d| format!("{:.2}×", tps / d));
        let floor = v["of_floor"]
            .as_f64()
            .map_or("–".to_owned(), |f| format!("{:.1}%", 100.0 * f));
        let _ = writeln!(
            md,
            "| {imp} | {gpus} | {tps:.1} | {floor} | {} | {} |",
            over(rate("pytorch_tp_graph", gpus)),
            if gpus > 1 {
                over(rate(imp, 1))
            } else {
                "–".to_owned()
            }
        );
    }
    md
}

/// One all-reduce over two GPUs inside a graph (`benches/all_reduce.rs`): the peer all-reduce
/// beside NCCL's, per size.
pub fn all_reduce(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "all_reduce").collect();
    let Some(first) = rows.first() else {
        return String::new();
    };
    let us = |imp: &str, bytes: u64| {
        rows.iter()
            .find(|v| v["impl"] == imp && v["bytes"].as_u64() == Some(bytes))
            .and_then(|v| v["us_per_all_reduce"].as_f64())
    };
    let mut sizes: Vec<u64> = rows.iter().filter_map(|v| v["bytes"].as_u64()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut md = format!(
        "\n## One all-reduce over two GPUs, inside a graph\n\nOn {} (NVLink NV18), one run of `benches/all_reduce.rs`: each rank's graph runs {} all-reduces of one `f32` buffer in place one after another (the largest of the ranks' values, so they stay put; a sum is the same kernel but for one instruction), a step launches both ranks and waits for both, and one all-reduce's time is a step's over {}; medians of interleaved steps. `peer`: the crate's peer all-reduce (`comm::peer`: one kernel; each rank stores its part into the other's memory, each 4-byte word beside the all-reduce's number in one 8-byte word, and polls its own memory); `NCCL`: the same graphs on a communicator made `nccl_only` (NCCL 2.28's kernels captured).\n\n| bytes a rank | peer | NCCL | NCCL ÷ peer |\n|---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU"),
        first["chain"].as_u64().unwrap_or(0),
        first["chain"].as_u64().unwrap_or(0)
    );
    for b in sizes {
        let (p, n) = (us("cuda_graph_peer", b), us("cuda_graph_nccl", b));
        let ratio = match (p, n) {
            (Some(p), Some(n)) => format!("{:.2}×", n / p),
            _ => "–".to_owned(),
        };
        let f = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.2} µs"));
        let _ = writeln!(md, "| {} KiB | {} | {} | {ratio} |", b / 1024, f(p), f(n));
    }
    md
}

/// The cost of a WHILE node's iteration limit (`benches/while_limit.rs`): the same loop without
/// a limit and with one it never reaches, per iteration.
pub fn while_limit(raw: &[Value]) -> String {
    let rows: Vec<&Value> = raw.iter().filter(|v| v["case"] == "while_limit").collect();
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut md = format!(
        "\n## The cost of a WHILE limit\n\nOn an {}, one run of `benches/while_limit.rs`. One WHILE loop whose body is one `<<<1,1>>>` kernel that counts and ends the loop after N iterations, without a limit (`while again`) and with one it never reaches (`while again, max most`: the runtime's counter kernel after the body each iteration, a reset before the loop). Whole launches, launch to synchronize, medians of interleaved runs.\n\n| iterations | without limit | with limit | without, an iteration | with, an iteration | the limit, an iteration |\n|---|---|---|---|---|---|\n",
        first["gpu"].as_str().unwrap_or("unknown GPU")
    );
    let mut shapes: Vec<&str> = rows.iter().filter_map(|v| v["shape"].as_str()).collect();
    shapes.dedup();
    for shape in shapes {
        let find = |imp: &str| {
            rows.iter()
                .find(|v| v["shape"] == shape && v["impl"] == imp)
                .and_then(|v| Some((v["median_us"].as_f64()?, v["per_iteration_ns"].as_f64()?)))
        };
        let (Some((pu, pn)), Some((lu, ln))) = (find("while_plain"), find("while_limit")) else {
            continue;
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {pn:.0} ns | {ln:.0} ns | {:.0} ns |",
            shape.trim_end_matches(" iterations"),
            fmt_us(Some(pu)),
            fmt_us(Some(lu)),
            ln - pn
        );
    }
    md
}
