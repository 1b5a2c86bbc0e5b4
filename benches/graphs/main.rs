//! Side-by-side benchmark: the raw driver floor, cudarc's capture-based graphs, plain stream
//! launches, and cuda-graph, on chains and fan-out/fan-in graphs of 10 to 10000 tiny kernels.
//!
//! Every number is the median of repeated runs, timed on the host (launches include the stream
//! synchronize, so they cover the GPU's work). Results go to `$OUT/rust.json` on the device
//! machine, else `docs/bench/raw/rust.json`; `cargo run -p cuda-graph-bench --bin bench_report` turns them into
//! `docs/bench/results.{json,md}` and the plot, and adds the run (its rows carry the GPU and the
//! UTC time the run started) to the history of ratios to the floor that `results.md` shows GPU
//! by GPU. Each cuda-graph row prints its ratio to the floor's row of the same cell. The
//! setters and the whole-graph update of each size are measured in two child processes of this
//! benchmark, one per order in which the two executable graphs are made
//! (`CUDA_GRAPH_BENCH_SETTERS`, `CUDA_GRAPH_BENCH_UPDATE`), so that both sides start from the
//! same fresh driver memory. cudarc's
//! stream-order tracking is off (it would add per-buffer event calls to every implementation
//! alike).
//!
//! Run: `cargo bench --bench graphs` on a GPU machine.

use std::ffi::c_void;
use std::fmt::Write as _;
use std::hint::black_box;
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cuda_graph::cudarc::driver::sys::{self, CUgraph, CUgraphExec, CUgraphNode};
use cuda_graph::cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cuda_graph::{buffer::BufMut, compile, node::KernelNode, Graph, Kernel};

mod raw;
mod updates;

use cuda_graph_flagships::harness::{self, batched, measure, median, paired2, paired_samples, Gpu};

fn reps_for(n: usize) -> (usize, Duration) {
    (if n >= 10000 { 5 } else { 9 }, Duration::from_millis(250))
}

include!(concat!(env!("OUT_DIR"), "/bench_graphs.rs"));

const SIZES: [usize; 4] = [10, 100, 1000, 10000];

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Chain,
    Fanout,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Chain => "chain",
            Shape::Fanout => "fanout",
        }
    }

    /// Offset (in floats) of the 32 values node `i` of `n` updates.
    fn offset(self, i: usize, n: usize) -> u32 {
        match self {
            Shape::Fanout if i != 0 && i != n - 1 => (i * 32) as u32,
            _ => 0,
        }
    }

    /// Dependencies and offset (in floats) of node `i` of `n`.
    fn node(self, i: usize, n: usize) -> (Vec<usize>, u32) {
        match self {
            Shape::Chain => (if i == 0 { vec![] } else { vec![i - 1] }, 0),
            Shape::Fanout if i == 0 => (vec![], 0),
            Shape::Fanout if i == n - 1 => ((1..n - 1).collect(), 0),
            Shape::Fanout => (vec![0], (i * 32) as u32),
        }
    }
}

/// Every graph of the benchmark, by shape and size: `$m!(args.., graph, inputs, middle node)`.
macro_rules! dispatch {
    ($shape:expr, $n:expr, $m:ident!($($a:tt)*)) => {
        match ($shape, $n) {
            (Shape::Chain, 10) => $m!($($a)* Chain10, Chain10Inputs, k5),
            (Shape::Chain, 100) => $m!($($a)* Chain100, Chain100Inputs, k50),
            (Shape::Chain, 1000) => $m!($($a)* Chain1000, Chain1000Inputs, k500),
            (Shape::Chain, 10000) => $m!($($a)* Chain10000, Chain10000Inputs, k5000),
            (Shape::Fanout, 10) => $m!($($a)* Fan10, Fan10Inputs, k5),
            (Shape::Fanout, 100) => $m!($($a)* Fan100, Fan100Inputs, k50),
            (Shape::Fanout, 1000) => $m!($($a)* Fan1000, Fan1000Inputs, k500),
            (Shape::Fanout, 10000) => $m!($($a)* Fan10000, Fan10000Inputs, k5000),
            _ => unreachable!("a size without a macro graph"),
        }
    };
}

// The setters of one order, and the child processes that measure them.
#[macro_use]
mod setters;
// One path at a time, for a profiler.
mod profile;
use setters::{setter_samples, setters_child, SETTERS_ENV};

struct Row {
    case: &'static str,
    shape: Shape,
    nodes: usize,
    imp: &'static str,
    via: &'static str,
    median_us: f64,
    reps: usize,
}

/// Build and instantiate of a fresh graph, the raw floor and cuda-graph (`ours(instantiate)`,
/// which returns the time of its build, or with `true` of its instantiation), each measured in
/// a loop of its own, the two sides interleaved; pushes `build` and `instantiate` rows for both.
///
/// Apart, because an instantiation can cost thirty times the build (a 1000-wide fan-out's, in
/// the floor's, which does not cap the width): in one loop the budget then bought the build a
/// few dozen samples, each taken after one side's instantiated graph was torn down.
fn paired_build(
    c: &mut Ctx<'_>,
    f: sys::CUfunction,
    yp: u64,
    shape: Shape,
    n: usize,
    via: &'static str,
    mut ours: impl FnMut(bool) -> Duration,
) {
    let (min, budget) = reps_for(n);
    let raw = |instantiate: bool| {
        let t = Instant::now();
        let g = raw::build(f, yp, shape, n);
        let built = t.elapsed();
        if !instantiate {
            raw::destroy(g, None);
            return built;
        }
        let t = Instant::now();
        let e = raw::instantiate(g.g);
        let inst = t.elapsed();
        raw::destroy(g, Some(e));
        inst
    };
    let (rb, ob) = alternated(min, budget, || raw(false), || ours(false));
    let (ri, oi) = alternated(min, budget, || raw(true), || ours(true));
    c.push("build", shape, n, "raw", "driver, paired", rb);
    c.push("instantiate", shape, n, "raw", "driver, paired", ri);
    c.push("build", shape, n, "cuda_graph", via, ob);
    c.push("instantiate", shape, n, "cuda_graph", via, oi);
}

/// Two measurements interleaved, each going first every other time (`paired2` with one part).
fn alternated(
    min: usize,
    budget: Duration,
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> ((f64, usize), (f64, usize)) {
    let [ra, _, rb, _] = paired2(
        min,
        budget,
        || (a(), Duration::ZERO),
        || (b(), Duration::ZERO),
    );
    (ra, rb)
}

fn device_ptr(y: &CudaSlice<f32>, stream: &CudaStream) -> u64 {
    use cuda_graph::cudarc::driver::DevicePtr;
    let (p, _record) = y.device_ptr(stream);
    p
}

fn scalar(i: usize) -> f32 {
    if i.is_multiple_of(2) {
        1.0
    } else {
        0.5
    }
}

struct Ctx<'k> {
    stream: Arc<CudaStream>,
    kernel: &'k Kernel,
    f: sys::CUfunction,
    rows: Vec<Row>,
}

impl Ctx<'_> {
    fn push(
        &mut self,
        case: &'static str,
        shape: Shape,
        n: usize,
        imp: &'static str,
        via: &'static str,
        m: (f64, usize),
    ) {
        // Beside cuda-graph's row, its ratio to the raw floor's of the same cell (measured
        // before it, interleaved where the case says so): a regression shows in the log.
        let raw = self
            .rows
            .iter()
            .rev()
            .find(|r| r.case == case && r.shape == shape && r.nodes == n && r.imp == "raw")
            .map(|r| r.median_us);
        let ratio = match raw {
            Some(b) if imp == "cuda_graph" && b > 0.0 => format!("  {:.3}x raw", m.0 / b),
            _ => String::new(),
        };
        println!(
            "{:<18} {:<7} {:>6} {:<15} {:>12.2} us  ({} runs){ratio}",
            case,
            shape.name(),
            n,
            imp,
            m.0,
            m.1
        );
        self.rows.push(Row {
            case,
            shape,
            nodes: n,
            imp,
            via,
            median_us: m.0,
            reps: m.1,
        });
    }
}

fn bench_raw(c: &mut Ctx<'_>, y: &mut CudaSlice<f32>, shape: Shape, n: usize) {
    let (min, budget) = reps_for(n);
    let (f, s) = (c.f, c.stream.cu_stream());
    let yp = {
        use cuda_graph::cudarc::driver::DevicePtr;
        let (p, _g) = y.device_ptr(&c.stream);
        p
    };
    // `build` and `instantiate` of the floor are measured beside cuda-graph's (`paired_build`).
    let mut g = raw::build(f, yp, shape, n);
    let mut e = raw::instantiate(g.g);
    raw::launch(e, s);
    let m = measure(min, budget, || {
        let t = Instant::now();
        raw::launch(e, s);
        t.elapsed()
    });
    c.push("launch", shape, n, "raw", "driver", m);
    let mid = n / 2;

    let m = measure(min, budget, || {
        let mut empty = ptr::null_mut();
        let last = [*g.nodes.last().expect("n > 0")];
        unsafe { raw::check(sys::cuGraphAddEmptyNode(&mut empty, g.g, last.as_ptr(), 1)) };
        g.nodes.push(empty);
        let t = Instant::now();
        unsafe { raw::check(sys::cuGraphExecDestroy(e)) };
        e = raw::instantiate(g.g);
        t.elapsed()
    });
    c.push("reinstantiate", shape, n, "raw", "driver", m);
    let m = measure(min, budget, || {
        let t = Instant::now();
        raw::set(e, &mut g, f, mid, 0.5);
        raw::launch(e, s);
        t.elapsed()
    });
    c.push("change_one_scalar", shape, n, "raw", "driver", m);
    raw::destroy(g, Some(e));
}

fn bench_stream(c: &mut Ctx<'_>, y: &mut CudaSlice<f32>, shape: Shape, n: usize) {
    let (min, budget) = reps_for(n);
    let (f, s) = (c.f, c.stream.cu_stream());
    let yp = {
        use cuda_graph::cudarc::driver::DevicePtr;
        let (p, _g) = y.device_ptr(&c.stream);
        p
    };
    raw::launch_stream(f, yp, shape, n, 1.0, s);
    let m = measure(min, budget, || {
        let t = Instant::now();
        raw::launch_stream(f, yp, shape, n, 1.0, s);
        t.elapsed()
    });
    c.push("launch", shape, n, "stream", "cuLaunchKernel", m);
    let m = measure(min, budget, || {
        let t = Instant::now();
        raw::launch_stream(f, yp, shape, n, 0.5, s);
        t.elapsed()
    });
    c.push("change_one_scalar", shape, n, "stream", "cuLaunchKernel", m);
}

/// cudarc's graphs come from stream capture: `build` is the capture, `instantiate` is
/// `end_capture` (which instantiates). A fan-out is captured on one stream, so it runs as a
/// sequence.
fn bench_capture(c: &mut Ctx<'_>, y: &mut CudaSlice<f32>, shape: Shape, n: usize) {
    let (min, budget) = reps_for(n);
    let stream = c.stream.clone();
    let func = c.kernel.cuda_function().clone();
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let capture = |y: &mut CudaSlice<f32>, a: f32| {
        stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .unwrap();
        for i in 0..n {
            let offset = shape.offset(i, n);
            let mut b = stream.launch_builder(&func);
            b.arg(&mut *y).arg(&offset).arg(&a);
            // SAFETY: `tiny(float*, unsigned, float)` with a buffer of n*32+32 floats.
            unsafe { b.launch(cfg) }.unwrap();
        }
    };
    let m = measure(min, budget, || {
        let t = Instant::now();
        capture(y, 1.0);
        let d = t.elapsed();
        drop(
            stream
                .end_capture(sys::CUgraphInstantiate_flags(0))
                .unwrap(),
        );
        d
    });
    c.push("build", shape, n, "cudarc_capture", "capture", m);
    let m = measure(min, budget, || {
        capture(y, 1.0);
        let t = Instant::now();
        let g = stream
            .end_capture(sys::CUgraphInstantiate_flags(0))
            .unwrap();
        let d = t.elapsed();
        drop(g);
        d
    });
    c.push("instantiate", shape, n, "cudarc_capture", "end_capture", m);
    capture(y, 1.0);
    let g = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))
        .unwrap()
        .expect("a captured graph");
    let m = measure(min, budget, || {
        let t = Instant::now();
        g.launch().unwrap();
        stream.synchronize().unwrap();
        t.elapsed()
    });
    c.push("launch", shape, n, "cudarc_capture", "capture", m);
    drop(g);
    let m = measure(min, budget, || {
        let t = Instant::now();
        capture(y, 0.5);
        let g = stream
            .end_capture(sys::CUgraphInstantiate_flags(0))
            .unwrap()
            .expect("a captured graph");
        g.launch().unwrap();
        stream.synchronize().unwrap();
        let d = t.elapsed();
        drop(g);
        d
    });
    c.push(
        "change_one_scalar",
        shape,
        n,
        "cudarc_capture",
        "re-capture",
        m,
    );
}

/// cuda-graph through `cuda_graph!`: the generated `build`, `instantiate`, node views and the
/// graph-level setter `set_a`, which touches every node.
macro_rules! bench_macro {
    ($c:expr, $y:expr, $shape:expr, $n:expr, $graph:ident, $inputs:ident, $mid:ident) => {{
        let c: &mut Ctx<'_> = $c;
        let (min, budget) = reps_for($n);
        let module = c.kernel_module();
        let y: &mut CudaSlice<f32> = $y;
        let yp = device_ptr(y, &c.stream);
        // The floor launches the very function the macro graph does (same module).
        let tiny = module.function("tiny").unwrap();
        let f = tiny.cuda_function().cu_function();
        paired_build(c, f, yp, $shape, $n, "macro", |instantiate| {
            let t = Instant::now();
            let g = $graph::build(&module, $inputs { y: &mut *y, a: 1.0 }).unwrap();
            let built = t.elapsed();
            if !instantiate {
                drop(black_box(g));
                return built;
            }
            let t = Instant::now();
            let e = g.instantiate().unwrap();
            let inst = t.elapsed();
            drop(black_box(e));
            inst
        });
        let mut exec = $graph::build(&module, $inputs { y: &mut *y, a: 1.0 })
            .unwrap()
            .instantiate()
            .unwrap();
        let stream = c.stream.clone();
        exec.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        let m = measure(min, budget, || {
            let t = Instant::now();
            exec.launch(&stream).unwrap();
            stream.synchronize().unwrap();
            t.elapsed()
        });
        c.push("launch", $shape, $n, "cuda_graph", "macro", m);
        let m = measure(min, budget, || {
            let t = Instant::now();
            exec.$mid().unwrap().set_a(0.5).unwrap();
            exec.launch(&stream).unwrap();
            stream.synchronize().unwrap();
            t.elapsed()
        });
        c.push("change_one_scalar", $shape, $n, "cuda_graph", "macro", m);
        drop(exec);
        // The setters, on fresh executable graphs made in both orders, each order in a process
        // of its own (`setter_samples`), half the samples each: the driver's cost per call
        // depends on where an executable graph's records land in its memory (the one made
        // second measured up to 1.7x faster at 1000 nodes, whichever of the two it was), and
        // in one process that depends on what the benchmarks before it freed.
        let samples = setter_samples($shape, $n, |raw_first| {
            setters!(&mut *c, &mut *y, $shape, $n, raw_first, $graph, $inputs, $mid)
        });
        let [nr, nc, pr, pc, sr, sc, gr, gc] = samples.map(|v| {
            let n = v.len();
            (median(v), n)
        });
        c.push(
            "node_setter",
            $shape,
            $n,
            "raw",
            "driver, paired, both orders, a process each",
            nr,
        );
        c.push("node_setter", $shape, $n, "cuda_graph", "macro", nc);
        c.push(
            "param_setter",
            $shape,
            $n,
            "raw",
            "driver, paired, both orders, a process each",
            pr,
        );
        c.push("param_setter", $shape, $n, "cuda_graph", "macro", pc);
        c.push(
            "node_setter_same_exec",
            $shape,
            $n,
            "raw",
            "driver, on cuda-graph's executable graph and node, paired, both orders, a process each",
            sr,
        );
        c.push("node_setter_same_exec", $shape, $n, "cuda_graph", "macro", sc);
        c.push(
            "param_setter_same_exec",
            $shape,
            $n,
            "raw",
            "driver, on cuda-graph's executable graph and nodes, paired, both orders, a process each",
            gr,
        );
        c.push("param_setter_same_exec", $shape, $n, "cuda_graph", "macro", gc);
    }};
}

impl Ctx<'_> {
    fn kernel_module(&self) -> cuda_graph::Module {
        compile(self.stream.context(), SRC).unwrap()
    }
}

const SRC: &str = include_str!("../kernels/bench.cu");

fn main() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let ctx = gpu.ctx.clone();
    // SAFETY: set before any buffer exists; the benchmark orders all work on one stream.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let module = compile(&ctx, SRC).unwrap();
    let kernel = module.function("tiny").unwrap();
    let gpu = ctx.name().unwrap_or_default();
    let f = kernel.cuda_function().cu_function();
    let mut c = Ctx {
        stream: stream.clone(),
        kernel: &kernel,
        f,
        rows: Vec::new(),
    };
    if let Ok(spec) = std::env::var(SETTERS_ENV) {
        setters_child(&mut c, &spec);
        return;
    }
    if let Ok(spec) = std::env::var(updates::UPDATE_ENV) {
        updates::update_child(&mut c, &spec);
        return;
    }
    if let Ok(phase) = std::env::var(profile::PHASE_ENV) {
        profile::run(&mut c, &phase);
        return;
    }
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    for shape in [Shape::Chain, Shape::Fanout] {
        for n in SIZES {
            if let Some(o) = &only {
                if !format!("{}{n}", shape.name()).contains(o.as_str()) {
                    continue;
                }
            }
            let mut y = stream.alloc_zeros::<f32>(n * 32 + 32).unwrap();
            bench_raw(&mut c, &mut y, shape, n);
            bench_stream(&mut c, &mut y, shape, n);
            bench_capture(&mut c, &mut y, shape, n);
            dispatch!(shape, n, bench_macro!(&mut c, &mut y, shape, n,));
            // The update paths the macro leaves to `inner_mut()`, through the runtime API.
            updates::bench(&mut c, &mut y, shape, n);
        }
    }

    // Which run the rows are (UTC, to the second): `bench_report` keeps each run's ratios to
    // the floor, per GPU, in `docs/bench/raw/history/graphs.json`.
    let run = harness::utc_now();
    let mut json = String::from("[\n");
    for (i, r) in c.rows.iter().enumerate() {
        let _ = writeln!(
            json,
            "  {{\"case\": \"{}\", \"shape\": \"{}\", \"nodes\": {}, \"impl\": \"{}\", \"via\": \"{}\", \"median_us\": {:.3}, \"reps\": {}, \"gpu\": \"{}\", \"run\": \"{}\"}}{}",
            r.case,
            r.shape.name(),
            r.nodes,
            r.imp,
            r.via,
            r.median_us,
            r.reps,
            gpu,
            run,
            if i + 1 < c.rows.len() { "," } else { "" }
        );
    }
    json.push_str("]\n");
    harness::write_json("rust.json", &json);
}
