//! One path at a time, many times over, for a profiler (`perf record` on the device machine):
//! `CUDA_GRAPH_BENCH_PHASE=PATH` runs `CUDA_GRAPH_BENCH_ITERS` (default 20000) calls of one
//! path on a chain of 10 nodes (builds) or 1000 nodes (setters) and prints the time per call.
//! Paths: `build_ours`, `build_raw`, `new_ours`, `new_raw` (an empty graph made and dropped),
//! `node_ours`, `node_raw`, `param_ours`, `param_raw`, `update_ours`, `update_raw` (a template
//! edit and a whole-graph update, 10-node chain).

use super::*;

/// Where the benchmark is asked for one path alone.
pub(crate) const PHASE_ENV: &str = "CUDA_GRAPH_BENCH_PHASE";

/// Runs the path `phase` names and prints `PHASE <name> <ns per call>`.
pub(crate) fn run(c: &mut Ctx<'_>, phase: &str) {
    let iters: usize = std::env::var("CUDA_GRAPH_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20000);
    let module = c.kernel_module();
    let f = module
        .function("tiny")
        .unwrap()
        .cuda_function()
        .cu_function();
    let mut y = c.stream.alloc_zeros::<f32>(1000 * 32 + 32).unwrap();
    let yp = device_ptr(&y, &c.stream);
    let t = Instant::now();
    match phase {
        "build_ours" => {
            for _ in 0..iters {
                let g = Chain10::build(&module, Chain10Inputs { y: &mut y, a: 1.0 }).unwrap();
                drop(black_box(g));
            }
        }
        "new_ours" => {
            for _ in 0..iters {
                let g = Graph::new(c.stream.context()).unwrap().with_name("Chain10");
                drop(black_box(g));
            }
        }
        "new_raw" => {
            for _ in 0..iters {
                let g = raw::build(f, yp, Shape::Chain, 0);
                raw::destroy(black_box(g), None);
            }
        }
        "build_raw" => {
            for _ in 0..iters {
                let g = raw::build(f, yp, Shape::Chain, 10);
                raw::destroy(black_box(g), None);
            }
        }
        "update_ours" => {
            let names: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
            let ctx = c.stream.context().clone();
            let (g, nodes) = updates::build_runtime(&ctx, c.kernel, &names, &mut y, Shape::Chain);
            let mut exec = g.instantiate().unwrap();
            let t = Instant::now();
            for i in 0..iters {
                exec.graph_mut()
                    .node(nodes[5])
                    .unwrap()
                    .set_arg::<2>(scalar(i))
                    .unwrap();
                exec.update().unwrap();
            }
            report(phase, t.elapsed(), iters);
            return;
        }
        "update_raw" => {
            let (mut g, e) = raw::make(f, yp, Shape::Chain, 10);
            let t = Instant::now();
            for i in 0..iters {
                raw::update(e, &mut g, f, 5, scalar(i));
            }
            report(phase, t.elapsed(), iters);
            raw::destroy(g, Some(e));
            return;
        }
        "node_ours" | "param_ours" => {
            let mut exec = Chain1000::build(&module, Chain1000Inputs { y: &mut y, a: 1.0 })
                .unwrap()
                .instantiate()
                .unwrap();
            let t = Instant::now();
            for i in 0..iters {
                if phase == "node_ours" {
                    node_set(&mut exec, scalar(i));
                } else {
                    exec.set_a(scalar(i)).unwrap();
                }
            }
            report(phase, t.elapsed(), iters);
            return;
        }
        "node_raw" | "param_raw" => {
            let (mut g, e) = raw::make(f, yp, Shape::Chain, 1000);
            let t = Instant::now();
            for i in 0..iters {
                if phase == "node_raw" {
                    raw::set(e, &mut g, f, 500, scalar(i));
                } else {
                    for n in 0..1000 {
                        raw::set(e, &mut g, f, n, scalar(i));
                    }
                }
            }
            report(phase, t.elapsed(), iters);
            raw::destroy(g, Some(e));
            return;
        }
        other => panic!("{PHASE_ENV}: unknown path {other:?}"),
    }
    report(phase, t.elapsed(), iters);
}

fn report(phase: &str, d: Duration, iters: usize) {
    println!(
        "PHASE {phase} {:.1} ns a call",
        d.as_secs_f64() * 1e9 / iters as f64
    );
}

/// The node setter alone, out of line (for the disassembly).
#[inline(never)]
fn node_set(exec: &mut Chain1000Exec<'_>, a: f32) {
    exec.k500().unwrap().set_a(a).unwrap();
}
