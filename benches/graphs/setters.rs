//! The node setter and the graph-level setter beside the raw floor's, each order in which the
//! two executable graphs are made measured in a child process of the benchmark (so both sides
//! start from the same fresh driver memory); the child processes' plumbing, which the
//! whole-graph update's measurement (`updates.rs`) uses too.

use super::*;

/// The node setter and the graph-level setter of graph `$graph` (node `$mid`) beside the raw
/// floor's, on fresh executable graphs, the raw one made first if `$raw_first`: samples in
/// microseconds, [raw node, cuda-graph node, raw graph-level, cuda-graph graph-level, raw node
/// on cuda-graph's executable graph, cuda-graph node beside it, raw graph-level on cuda-graph's
/// executable graph, cuda-graph graph-level beside it].
macro_rules! setters {
    ($c:expr, $y:expr, $shape:expr, $n:expr, $raw_first:expr, $graph:ident, $inputs:ident, $mid:ident) => {{
        let c: &mut Ctx<'_> = $c;
        let (min, budget) = reps_for($n);
        let module = c.kernel_module();
        let y: &mut CudaSlice<f32> = $y;
        let yp = device_ptr(y, &c.stream);
        let f = module
            .function("tiny")
            .unwrap()
            .cuda_function()
            .cu_function();
        let stream = c.stream.clone();
        let mut samples: [Vec<f64>; 8] = Default::default();
        let (mut flip, mut flop) = (0usize, 0usize);
        let raw_first: bool = $raw_first;
        {
            let early = raw_first.then(|| raw::make(f, yp, $shape, $n));
            let mut exec = $graph::build(&module, $inputs { y: &mut *y, a: 1.0 })
                .unwrap()
                .instantiate()
                .unwrap();
            let (mut rg, re) = early.unwrap_or_else(|| raw::make(f, yp, $shape, $n));
            // Same state for both: each executable graph launched once before its setters run.
            raw::launch(re, stream.cu_stream());
            exec.launch(&stream).unwrap();
            stream.synchronize().unwrap();
            let [a, b] = paired_samples(
                min,
                budget,
                || batched(200, |i| raw::set(re, &mut rg, f, $n / 2, scalar(i))),
                || batched(200, |i| exec.$mid().unwrap().set_a(scalar(i)).unwrap()),
            );
            samples[0].extend(a);
            samples[1].extend(b);
            let [a, b] = paired_samples(
                min,
                budget,
                || {
                    flip += 1;
                    let t = Instant::now();
                    for i in 0..$n {
                        raw::set(re, &mut rg, f, i, scalar(flip));
                    }
                    t.elapsed()
                },
                || {
                    flop += 1;
                    let t = Instant::now();
                    exec.set_a(scalar(flop)).unwrap();
                    t.elapsed()
                },
            );
            samples[2].extend(a);
            samples[3].extend(b);
            // The floor on cuda-graph's own executable graph and node (its raw handles): the
            // driver's records the same on both sides, what is left is cuda-graph's own cost.
            let (own, node) = (exec.cu_graph_exec(), exec.$mid().unwrap().cu_node());
            let mut p = raw::Params::new(yp, $shape.offset($n / 2, $n), 1.0);
            let [a, b] = paired_samples(
                min,
                budget,
                || batched(200, |i| raw::set_node(own, node, f, &mut p, scalar(i))),
                || batched(200, |i| exec.$mid().unwrap().set_a(scalar(i)).unwrap()),
            );
            samples[4].extend(a);
            samples[5].extend(b);
            // The same for the graph-level setter: the raw calls on every kernel node of
            // cuda-graph's executable graph, in the order the template holds them.
            let nodes = raw::kernel_nodes(exec.graph().cu_graph());
            let mut ps: Vec<Box<raw::Params>> = (0..nodes.len())
                .map(|i| raw::Params::new(yp, $shape.offset(i, $n), 1.0))
                .collect();
            let [a, b] = paired_samples(
                min,
                budget,
                || {
                    flip += 1;
                    let t = Instant::now();
                    for (&node, p) in nodes.iter().zip(ps.iter_mut()) {
                        raw::set_node(own, node, f, p, scalar(flip));
                    }
                    t.elapsed()
                },
                || {
                    flop += 1;
                    let t = Instant::now();
                    exec.set_a(scalar(flop)).unwrap();
                    t.elapsed()
                },
            );
            samples[6].extend(a);
            samples[7].extend(b);
            drop(exec);
            raw::destroy(rg, Some(re));
        }
        samples
    }};
}

/// Where a child process measures the setters of one order: `SHAPE:NODES:RAW_FIRST`.
pub(crate) const SETTERS_ENV: &str = "CUDA_GRAPH_BENCH_SETTERS";

/// The samples of both orders of one measurement (the setters, `SETTERS_ENV`, or the whole-graph
/// update, `updates::UPDATE_ENV`), each taken by a child process of this benchmark started with
/// `env` set (so both sides start from the same fresh driver memory), or here with `measure` if
/// a child cannot be run.
pub(crate) fn pooled_samples<const K: usize>(
    env: &str,
    shape: Shape,
    n: usize,
    mut measure: impl FnMut(bool) -> [Vec<f64>; K],
) -> [Vec<f64>; K] {
    let mut pooled: [Vec<f64>; K] = std::array::from_fn(|_| Vec::new());
    for raw_first in [false, true] {
        let got = child_samples(env, shape, n, raw_first).unwrap_or_else(|why| {
            eprintln!(
                "{env} of {}{n} measured in this process: {why}",
                shape.name()
            );
            measure(raw_first)
        });
        for (p, g) in pooled.iter_mut().zip(got) {
            p.extend(g);
        }
    }
    pooled
}

/// The setters' samples of both orders (see `pooled_samples`).
pub(crate) fn setter_samples(
    shape: Shape,
    n: usize,
    measure: impl FnMut(bool) -> [Vec<f64>; 8],
) -> [Vec<f64>; 8] {
    pooled_samples(SETTERS_ENV, shape, n, measure)
}

/// Runs this benchmark again with `env` set for one order, and reads the samples it prints.
fn child_samples<const K: usize>(
    env: &str,
    shape: Shape,
    n: usize,
    raw_first: bool,
) -> Result<[Vec<f64>; K], String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe)
        .env(env, format!("{}:{n}:{}", shape.name(), u8::from(raw_first)))
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("the child exited with {}", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("SAMPLES "))
        .ok_or("the child printed no samples")?;
    let mut got: [Vec<f64>; K] = std::array::from_fn(|_| Vec::new());
    let parts: Vec<&str> = line.split(';').collect();
    if parts.len() != K {
        return Err(format!("the child printed {} series, not {K}", parts.len()));
    }
    for (slot, part) in got.iter_mut().zip(parts) {
        *slot = part
            .split(',')
            .filter(|v| !v.is_empty())
            .map(|v| v.parse::<f64>().map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
    }
    if got.iter().any(Vec::is_empty) {
        return Err("the child printed an empty series".into());
    }
    Ok(got)
}

/// A child's order, from the `SHAPE:NODES:RAW_FIRST` that `env` holds.
pub(crate) fn child_spec(env: &str, spec: &str) -> (Shape, usize, bool) {
    let mut it = spec.split(':');
    let shape = match it.next() {
        Some("chain") => Shape::Chain,
        Some("fanout") => Shape::Fanout,
        other => panic!("{env}: unknown shape {other:?}"),
    };
    let n: usize = it
        .next()
        .and_then(|v| v.parse().ok())
        .expect("a node count");
    (shape, n, it.next() == Some("1"))
}

/// What a child prints for `child_samples` to read.
pub(crate) fn print_samples(samples: &[Vec<f64>]) {
    let series: Vec<String> = samples
        .iter()
        .map(|v| {
            v.iter()
                .map(|x| format!("{x:.4}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    println!("SAMPLES {}", series.join(";"));
}

/// The child's side of `setter_samples`: measures one order and prints its samples.
pub(crate) fn setters_child(c: &mut Ctx<'_>, spec: &str) {
    let (shape, n, raw_first) = child_spec(SETTERS_ENV, spec);
    let mut y = c.stream.alloc_zeros::<f32>(n * 32 + 32).unwrap();
    let samples = dispatch!(shape, n, setters!(&mut *c, &mut y, shape, n, raw_first,));
    print_samples(&samples);
}
