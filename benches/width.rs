//! Width capping (issue 10): wide graphs instantiated and launched as written (the floor: the
//! driver calls a raw-driver program makes on the same graph) and capped to lanes, in the same
//! run. Cases: fan-outs of 10 to 10000 tiny kernels, a random wide DAG, eight heavy kernels that
//! each fill an eighth of the GPU, a 1000-kernel chain; and a sweep of lane counts on the
//! 1000- and 10000-wide fan-outs, to choose the default.
//!
//! Medians of repeated runs, host wall time; `launch` includes the stream synchronize. Results
//! go to `$OUT/width.json` on the device machine, else `docs/bench/raw/width.json`.
//!
//! Run: `cargo bench -p cuda-graph-bench --bench width` on a GPU machine.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use cuda_graph::cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use cuda_graph::{buffer::BufMut, compile, exec::Instantiate, Graph, Kernel};
use cuda_graph_flagships::harness::{self, median, Gpu};

const SRC: &str = include_str!("kernels/bench.cu");

/// How a benchmarked graph is wired: node `i`'s dependencies, and its kernel.
struct Shape {
    name: String,
    deps: Vec<Vec<usize>>,
    heavy: bool,
}

fn fanout(w: usize) -> Shape {
    let mut deps = vec![vec![]];
    deps.extend((0..w).map(|_| vec![0]));
    deps.push((1..=w).collect());
    Shape {
        name: format!("fanout{w}"),
        deps,
        heavy: false,
    }
}

fn chain(n: usize) -> Shape {
    Shape {
        name: format!("chain{n}"),
        deps: (0..n)
            .map(|i| if i == 0 { vec![] } else { vec![i - 1] })
            .collect(),
        heavy: false,
    }
}

/// Layers of `w` nodes, each depending on two nodes of the layer before (a fixed pseudo-random
/// pick, so every run builds the same graph).
fn random_dag(layers: usize, w: usize) -> Shape {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut deps = Vec::new();
    for l in 0..layers {
        for _ in 0..w {
            if l == 0 {
                deps.push(vec![]);
            } else {
                let base = (l - 1) * w;
                let (a, b) = (base + next() as usize % w, base + next() as usize % w);
                deps.push(if a == b { vec![a] } else { vec![a, b] });
            }
        }
    }
    Shape {
        name: format!("random{}x{w}", layers),
        deps,
        heavy: false,
    }
}

fn heavy8() -> Shape {
    let mut s = fanout(8);
    s.name = "heavy8".to_owned();
    s.heavy = true;
    s
}

struct Kernels {
    tiny: Kernel,
    heavy: Kernel,
    /// Blocks of 256 threads that fill an eighth of the GPU.
    eighth: u32,
}

/// Builds `s` (node `i` touches its own 32 floats, or its own slice for heavy kernels).
fn build<'a>(
    stream: &std::sync::Arc<CudaStream>,
    k: &'a Kernels,
    s: &Shape,
    y: &'a mut CudaSlice<f32>,
) -> Graph<'a> {
    let mut g = Graph::new(stream.context()).unwrap();
    let yb: BufMut<f32> = g.bind_mut(y).unwrap();
    let tiny = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut handles = Vec::with_capacity(s.deps.len());
    for (i, deps) in s.deps.iter().enumerate() {
        let d: Vec<&dyn cuda_graph::node::Dep> = deps
            .iter()
            .map(|&j| &handles[j] as &dyn cuda_graph::node::Dep)
            .collect();
        let heavy = s.heavy && !deps.is_empty() && deps.len() == 1;
        let id = if heavy {
            let cfg = LaunchConfig {
                grid_dim: (k.eighth, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let off = (i as u32 - 1) * k.eighth * 256;
            g.add_kernel(&format!("n{i}"), &d, &k.heavy, cfg, (yb, off, 20_000u32))
                .unwrap()
                .id()
        } else {
            g.add_kernel(
                &format!("n{i}"),
                &d,
                &k.tiny,
                tiny,
                (yb, (i * 32) as u32, 1.0001f32),
            )
            .unwrap()
            .id()
        };
        handles.push(id);
    }
    g
}

struct Row {
    case: String,
    lanes: Option<usize>,
    instantiate_us: f64,
    launch_us: f64,
    ordering_edges: usize,
}

/// Instantiate and launch medians of `s` with the width cap `lanes` (none: as written).
fn measure(
    stream: &std::sync::Arc<CudaStream>,
    k: &Kernels,
    s: &Shape,
    lanes: Option<usize>,
    y: &mut CudaSlice<f32>,
) -> Row {
    let n = s.deps.len();
    let reps = if n >= 5000 { 5 } else { 9 };
    // `Some(0)`: the default options.
    let opts = || match lanes {
        Some(0) => Instantiate::new(),
        Some(l) => Instantiate::new().width_cap(l),
        None => Instantiate::new().no_width_cap(),
    };
    let mut inst = Vec::new();
    for _ in 0..reps {
        let g = build(stream, k, s, y);
        let t = Instant::now();
        let exec = g.instantiate_with(opts()).unwrap();
        inst.push(t.elapsed().as_secs_f64() * 1e6);
        drop(exec);
    }
    let g = build(stream, k, s, y);
    let mut exec = g.instantiate_with(opts()).unwrap();
    let ordering_edges = exec.graph().topology().ordering_edges().len();
    for _ in 0..3 {
        exec.launch(stream).unwrap();
    }
    stream.synchronize().unwrap();
    let mut launch = Vec::new();
    let start = Instant::now();
    while launch.len() < 15 || (start.elapsed() < Duration::from_millis(400) && launch.len() < 200)
    {
        let t = Instant::now();
        exec.launch(stream).unwrap();
        stream.synchronize().unwrap();
        launch.push(t.elapsed().as_secs_f64() * 1e6);
    }
    Row {
        case: s.name.clone(),
        lanes,
        instantiate_us: median(inst),
        launch_us: median(launch),
        ordering_edges,
    }
}

fn main() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let ctx = gpu.ctx.clone();
    // SAFETY: set before any buffer exists; the benchmark orders all work on one stream.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let module = compile(&ctx, SRC).unwrap();
    let sms = ctx
        .attribute(cuda_graph::cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .unwrap() as u32;
    let k = Kernels {
        tiny: module.function("tiny").unwrap(),
        heavy: module.function("heavy").unwrap(),
        // Eight blocks of 256 threads per SM fill it (2048 threads); an eighth of the GPU.
        eighth: sms,
    };
    let gpu = ctx.name().unwrap_or_default();
    let mut y = stream
        .alloc_zeros::<f32>(10_100 * 32 + 8 * sms as usize * 256)
        .unwrap();
    let mut rows = Vec::new();
    let cases = [
        fanout(10),
        fanout(100),
        fanout(1000),
        fanout(10000),
        random_dag(4, 500),
        heavy8(),
        chain(1000),
    ];
    for s in &cases {
        for lanes in [None, Some(0)] {
            let r = measure(&stream, &k, s, lanes, &mut y);
            println!(
                "{:>12} lanes {:>5}: instantiate {:>12.1} us, launch {:>10.1} us, {} ordering edges",
                r.case,
                r.lanes.map_or("-".to_owned(), |l| if l == 0 { "default".to_owned() } else { l.to_string() }),
                r.instantiate_us,
                r.launch_us,
                r.ordering_edges
            );
            rows.push(r);
        }
    }
    for s in [fanout(100), fanout(1000), fanout(10000)] {
        for lanes in [8, 16, 32, 64, 128] {
            let r = measure(&stream, &k, &s, Some(lanes), &mut y);
            println!(
                "{:>12} lanes {:>5}: instantiate {:>12.1} us, launch {:>10.1} us, {} ordering edges",
                r.case, lanes, r.instantiate_us, r.launch_us, r.ordering_edges
            );
            rows.push(r);
        }
    }
    let mut json = String::from("[\n");
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(
            json,
            "  {{\"case\": \"{}\", \"lanes\": {}, \"instantiate_us\": {:.3}, \"launch_us\": {:.3}, \"ordering_edges\": {}, \"gpu\": \"{}\"}}{}",
            r.case,
            r.lanes.map_or("null".to_owned(), |l| if l == 0 { "\"default\"".to_owned() } else { l.to_string() }),
            r.instantiate_us,
            r.launch_us,
            r.ordering_edges,
            gpu,
            if i + 1 < rows.len() { "," } else { "" }
        );
    }
    json.push_str("]\n");
    harness::write_json("width.json", &json);
}
