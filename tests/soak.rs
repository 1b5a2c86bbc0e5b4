//! Soak: a 100-node graph (a root, 98 leaves, a sink) through 10^6 cycles of launch + node
//! setter + graph-level setter, and a 100-node runtime graph through 10^4 whole-graph updates
//! and 10^4 re-instantiations. Device memory (from the driver) and host memory (RSS) must be
//! flat after warm-up, and the results exact at the end. It prints what it measured.
//!
//! Ignored by default (minutes of GPU time): `bash .gpu/run.sh tests --ignored` on the GPU
//! machine, or `cargo test --release --test soak -- --ignored`.

mod common;

use std::time::Instant;

use cuda_graph::cudarc::driver::{result, CudaContext};
use cuda_graph::{cuda_graph, exec::UpdatePath, Graph, LaunchConfig};

cuda_graph! {
    /// Root and sink use `b`; each leaf writes its own 32 values.
    graph Soak {
        kernel iota_at(y: &mut [u32], offset: u32, count: u32, base: u32);
        #[disjoint]
        buffer mut y: u32;
        param b: u32;
        root = iota_at<<<1, 32>>>(y, 0, 32, b);
        l01 = iota_at<<<1, 32>>>(y, 32, 32, 1000);
        l02 = iota_at<<<1, 32>>>(y, 64, 32, 2000);
        l03 = iota_at<<<1, 32>>>(y, 96, 32, 3000);
        l04 = iota_at<<<1, 32>>>(y, 128, 32, 4000);
        l05 = iota_at<<<1, 32>>>(y, 160, 32, 5000);
        l06 = iota_at<<<1, 32>>>(y, 192, 32, 6000);
        l07 = iota_at<<<1, 32>>>(y, 224, 32, 7000);
        l08 = iota_at<<<1, 32>>>(y, 256, 32, 8000);
        l09 = iota_at<<<1, 32>>>(y, 288, 32, 9000);
        l10 = iota_at<<<1, 32>>>(y, 320, 32, 10000);
        l11 = iota_at<<<1, 32>>>(y, 352, 32, 11000);
        l12 = iota_at<<<1, 32>>>(y, 384, 32, 12000);
        l13 = iota_at<<<1, 32>>>(y, 416, 32, 13000);
        l14 = iota_at<<<1, 32>>>(y, 448, 32, 14000);
        l15 = iota_at<<<1, 32>>>(y, 480, 32, 15000);
        l16 = iota_at<<<1, 32>>>(y, 512, 32, 16000);
        l17 = iota_at<<<1, 32>>>(y, 544, 32, 17000);
        l18 = iota_at<<<1, 32>>>(y, 576, 32, 18000);
        l19 = iota_at<<<1, 32>>>(y, 608, 32, 19000);
        l20 = iota_at<<<1, 32>>>(y, 640, 32, 20000);
        l21 = iota_at<<<1, 32>>>(y, 672, 32, 21000);
        l22 = iota_at<<<1, 32>>>(y, 704, 32, 22000);
        l23 = iota_at<<<1, 32>>>(y, 736, 32, 23000);
        l24 = iota_at<<<1, 32>>>(y, 768, 32, 24000);
        l25 = iota_at<<<1, 32>>>(y, 800, 32, 25000);
        l26 = iota_at<<<1, 32>>>(y, 832, 32, 26000);
        l27 = iota_at<<<1, 32>>>(y, 864, 32, 27000);
        l28 = iota_at<<<1, 32>>>(y, 896, 32, 28000);
        l29 = iota_at<<<1, 32>>>(y, 928, 32, 29000);
        l30 = iota_at<<<1, 32>>>(y, 960, 32, 30000);
        l31 = iota_at<<<1, 32>>>(y, 992, 32, 31000);
        l32 = iota_at<<<1, 32>>>(y, 1024, 32, 32000);
        l33 = iota_at<<<1, 32>>>(y, 1056, 32, 33000);
        l34 = iota_at<<<1, 32>>>(y, 1088, 32, 34000);
        l35 = iota_at<<<1, 32>>>(y, 1120, 32, 35000);
        l36 = iota_at<<<1, 32>>>(y, 1152, 32, 36000);
        l37 = iota_at<<<1, 32>>>(y, 1184, 32, 37000);
        l38 = iota_at<<<1, 32>>>(y, 1216, 32, 38000);
        l39 = iota_at<<<1, 32>>>(y, 1248, 32, 39000);
        l40 = iota_at<<<1, 32>>>(y, 1280, 32, 40000);
        l41 = iota_at<<<1, 32>>>(y, 1312, 32, 41000);
        l42 = iota_at<<<1, 32>>>(y, 1344, 32, 42000);
        l43 = iota_at<<<1, 32>>>(y, 1376, 32, 43000);
        l44 = iota_at<<<1, 32>>>(y, 1408, 32, 44000);
        l45 = iota_at<<<1, 32>>>(y, 1440, 32, 45000);
        l46 = iota_at<<<1, 32>>>(y, 1472, 32, 46000);
        l47 = iota_at<<<1, 32>>>(y, 1504, 32, 47000);
        l48 = iota_at<<<1, 32>>>(y, 1536, 32, 48000);
        l49 = iota_at<<<1, 32>>>(y, 1568, 32, 49000);
        l50 = iota_at<<<1, 32>>>(y, 1600, 32, 50000);
        l51 = iota_at<<<1, 32>>>(y, 1632, 32, 51000);
        l52 = iota_at<<<1, 32>>>(y, 1664, 32, 52000);
        l53 = iota_at<<<1, 32>>>(y, 1696, 32, 53000);
        l54 = iota_at<<<1, 32>>>(y, 1728, 32, 54000);
        l55 = iota_at<<<1, 32>>>(y, 1760, 32, 55000);
        l56 = iota_at<<<1, 32>>>(y, 1792, 32, 56000);
        l57 = iota_at<<<1, 32>>>(y, 1824, 32, 57000);
        l58 = iota_at<<<1, 32>>>(y, 1856, 32, 58000);
        l59 = iota_at<<<1, 32>>>(y, 1888, 32, 59000);
        l60 = iota_at<<<1, 32>>>(y, 1920, 32, 60000);
        l61 = iota_at<<<1, 32>>>(y, 1952, 32, 61000);
        l62 = iota_at<<<1, 32>>>(y, 1984, 32, 62000);
        l63 = iota_at<<<1, 32>>>(y, 2016, 32, 63000);
        l64 = iota_at<<<1, 32>>>(y, 2048, 32, 64000);
        l65 = iota_at<<<1, 32>>>(y, 2080, 32, 65000);
        l66 = iota_at<<<1, 32>>>(y, 2112, 32, 66000);
        l67 = iota_at<<<1, 32>>>(y, 2144, 32, 67000);
        l68 = iota_at<<<1, 32>>>(y, 2176, 32, 68000);
        l69 = iota_at<<<1, 32>>>(y, 2208, 32, 69000);
        l70 = iota_at<<<1, 32>>>(y, 2240, 32, 70000);
        l71 = iota_at<<<1, 32>>>(y, 2272, 32, 71000);
        l72 = iota_at<<<1, 32>>>(y, 2304, 32, 72000);
        l73 = iota_at<<<1, 32>>>(y, 2336, 32, 73000);
        l74 = iota_at<<<1, 32>>>(y, 2368, 32, 74000);
        l75 = iota_at<<<1, 32>>>(y, 2400, 32, 75000);
        l76 = iota_at<<<1, 32>>>(y, 2432, 32, 76000);
        l77 = iota_at<<<1, 32>>>(y, 2464, 32, 77000);
        l78 = iota_at<<<1, 32>>>(y, 2496, 32, 78000);
        l79 = iota_at<<<1, 32>>>(y, 2528, 32, 79000);
        l80 = iota_at<<<1, 32>>>(y, 2560, 32, 80000);
        l81 = iota_at<<<1, 32>>>(y, 2592, 32, 81000);
        l82 = iota_at<<<1, 32>>>(y, 2624, 32, 82000);
        l83 = iota_at<<<1, 32>>>(y, 2656, 32, 83000);
        l84 = iota_at<<<1, 32>>>(y, 2688, 32, 84000);
        l85 = iota_at<<<1, 32>>>(y, 2720, 32, 85000);
        l86 = iota_at<<<1, 32>>>(y, 2752, 32, 86000);
        l87 = iota_at<<<1, 32>>>(y, 2784, 32, 87000);
        l88 = iota_at<<<1, 32>>>(y, 2816, 32, 88000);
        l89 = iota_at<<<1, 32>>>(y, 2848, 32, 89000);
        l90 = iota_at<<<1, 32>>>(y, 2880, 32, 90000);
        l91 = iota_at<<<1, 32>>>(y, 2912, 32, 91000);
        l92 = iota_at<<<1, 32>>>(y, 2944, 32, 92000);
        l93 = iota_at<<<1, 32>>>(y, 2976, 32, 93000);
        l94 = iota_at<<<1, 32>>>(y, 3008, 32, 94000);
        l95 = iota_at<<<1, 32>>>(y, 3040, 32, 95000);
        l96 = iota_at<<<1, 32>>>(y, 3072, 32, 96000);
        l97 = iota_at<<<1, 32>>>(y, 3104, 32, 97000);
        l98 = iota_at<<<1, 32>>>(y, 3136, 32, 98000);
        sink = iota_at<<<1, 32>>>(y, 3168, 32, b + 7);
        root -> [l01, l02, l03, l04, l05, l06, l07, l08, l09, l10, l11, l12, l13, l14,
            l15, l16, l17, l18, l19, l20, l21, l22, l23, l24, l25, l26, l27, l28, l29,
            l30, l31, l32, l33, l34, l35, l36, l37, l38, l39, l40, l41, l42, l43, l44,
            l45, l46, l47, l48, l49, l50, l51, l52, l53, l54, l55, l56, l57, l58, l59,
            l60, l61, l62, l63, l64, l65, l66, l67, l68, l69, l70, l71, l72, l73, l74,
            l75, l76, l77, l78, l79, l80, l81, l82, l83, l84, l85, l86, l87, l88, l89,
            l90, l91, l92, l93, l94, l95, l96, l97, l98] -> sink;
    }
}

/// Bytes of device memory in use, from the driver.
fn device_used(ctx: &CudaContext) -> usize {
    ctx.bind_to_thread().unwrap();
    let (free, total) = result::mem_get_info().unwrap();
    total - free
}

/// Resident set size of this process, in bytes.
fn rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status");
    kb * 1024
}

/// Memory at checkpoints after warm-up: the spread may not exceed `slack` bytes.
struct Flat {
    what: &'static str,
    device: Vec<usize>,
    host: Vec<usize>,
}

impl Flat {
    fn new(what: &'static str) -> Self {
        Flat {
            what,
            device: Vec::new(),
            host: Vec::new(),
        }
    }

    fn sample(&mut self, ctx: &CudaContext) {
        self.device.push(device_used(ctx));
        self.host.push(rss());
    }

    fn check(&self, slack: usize) {
        let spread = |v: &[usize]| v.iter().max().unwrap() - v.iter().min().unwrap();
        let (d, h) = (spread(&self.device), spread(&self.host));
        println!(
            "{}: device memory {:.1} MiB, spread {} bytes; host RSS {:.1} MiB, spread {} bytes, over {} checkpoints after warm-up",
            self.what,
            self.device[0] as f64 / 1048576.0,
            d,
            self.host[0] as f64 / 1048576.0,
            h,
            self.device.len()
        );
        assert!(
            d <= slack,
            "{}: device memory grew by {d} bytes: {:?}",
            self.what,
            self.device
        );
        assert!(
            h <= slack,
            "{}: host memory grew by {h} bytes: {:?}",
            self.what,
            self.host
        );
    }
}

const SLACK: usize = 4 << 20;

/// The soak graph runs and gives exact values, in every run of the suite (the soak itself is
/// ignored by default).
#[test]
fn the_soak_graph_runs_once_with_exact_values() {
    let gpu = gpu_or_skip!();
    let mut y = gpu.poisoned(100 * 32);
    let graph = Soak::build(&gpu.module, SoakInputs { y: &mut y, b: 1 }).unwrap();
    assert_eq!(graph.graph().len(), 100);
    let mut exec = graph.instantiate().unwrap();
    exec.l01().unwrap().set_base(5).unwrap();
    exec.set_b(11).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.y().unwrap());
    for i in 0..32u32 {
        assert_eq!(got[i as usize], 11 + i);
        assert_eq!(got[32 + i as usize], 5 + i);
        assert_eq!(got[3168 + i as usize], 18 + i);
        for k in 2..99u32 {
            assert_eq!(got[(32 * k + i) as usize], 1000 * k + i);
        }
    }
}

#[test]
#[ignore = "minutes of GPU time: run with --ignored"]
fn a_million_launches_and_setter_calls_keep_memory_flat_and_results_exact() {
    let gpu = gpu_or_skip!();
    let cycles: u32 = 1_000_000;
    let mut y = gpu.poisoned(100 * 32);
    let graph = Soak::build(&gpu.module, SoakInputs { y: &mut y, b: 1 }).unwrap();
    let mut exec = graph.instantiate().unwrap();
    let mut flat = Flat::new("launch + node setter + graph-level setter");
    let t = Instant::now();
    for c in 0..cycles {
        exec.launch(&gpu.stream).unwrap();
        exec.l01().unwrap().set_base(c).unwrap();
        exec.set_b(c * 3).unwrap();
        if c >= cycles / 10 && c % (cycles / 10) == 0 {
            flat.sample(&gpu.ctx);
        }
    }
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    flat.sample(&gpu.ctx);
    println!(
        "{cycles} cycles in {:.1} s ({:.2} us per cycle)",
        t.elapsed().as_secs_f64(),
        t.elapsed().as_secs_f64() * 1e6 / cycles as f64
    );
    let got = gpu.read(exec.y().unwrap());
    let last = cycles - 1;
    for i in 0..32u32 {
        assert_eq!(got[i as usize], last * 3 + i, "root");
        assert_eq!(got[32 + i as usize], last + i, "l01");
        assert_eq!(got[3168 + i as usize], last * 3 + 7 + i, "sink");
        for k in 2..99u32 {
            assert_eq!(got[(32 * k + i) as usize], 1000 * k + i, "leaf {k}");
        }
    }
    flat.check(SLACK);
}

#[test]
#[ignore = "minutes of GPU time: run with --ignored"]
fn ten_thousand_updates_and_reinstantiations_keep_memory_flat_and_results_exact() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_at");
    let rounds: u32 = 10_000;
    let mut y = gpu.poisoned(100 * 32);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let one = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let root = g
        .add_kernel("root", &[], &iota, one, (yb, 0u32, 32u32, 5u32))
        .unwrap();
    let leaves: Vec<_> = (1..99u32)
        .map(|k| {
            g.add_kernel(
                &format!("l{k}"),
                &[&root],
                &iota,
                one,
                (yb, 32 * k, 32u32, 1000 * k),
            )
            .unwrap()
        })
        .collect();
    let deps: Vec<&dyn cuda_graph::node::Dep> = leaves
        .iter()
        .map(|l| l as &dyn cuda_graph::node::Dep)
        .collect();
    g.add_kernel("sink", &deps, &iota, one, (yb, 3168u32, 32u32, 9u32))
        .unwrap();
    assert_eq!(g.len(), 100);
    let mut exec = g.instantiate().unwrap();

    // Template edit + in-place update + launch, then the same with a topology change (an
    // edge added and removed in turn) that makes every update instantiate anew.
    soak_updates(&gpu, &mut exec, rounds, "whole-graph update", |g, r| {
        g.node(leaves[0]).unwrap().set_arg::<3>(r).unwrap();
        false
    });
    soak_updates(&gpu, &mut exec, rounds, "re-instantiation", |g, r| {
        if r % 2 == 0 {
            g.add_edge(&leaves[1], &leaves[2]).unwrap();
        } else {
            g.remove_edge(&leaves[1], &leaves[2]).unwrap();
        }
        g.node(leaves[0]).unwrap().set_arg::<3>(r).unwrap();
        true
    });
    let got = gpu.read(exec.buffer(yb).unwrap());
    for i in 0..32u32 {
        assert_eq!(got[i as usize], 5 + i, "root");
        assert_eq!(got[32 + i as usize], rounds - 1 + i, "l1");
        assert_eq!(got[3168 + i as usize], 9 + i, "sink");
        for k in 2..99u32 {
            assert_eq!(got[(32 * k + i) as usize], 1000 * k + i, "leaf {k}");
        }
    }
}

/// `rounds` times: `edit` the template (it says whether that changed the topology), update,
/// check the path taken, launch; memory sampled at ten checkpoints after warm-up.
fn soak_updates(
    gpu: &common::Gpu,
    exec: &mut cuda_graph::GraphExec<'_>,
    rounds: u32,
    what: &'static str,
    mut edit: impl FnMut(&mut Graph<'_>, u32) -> bool,
) {
    let mut flat = Flat::new(what);
    let t = Instant::now();
    for r in 0..rounds {
        let reshaped = edit(exec.graph_mut(), r);
        match exec.update().unwrap() {
            UpdatePath::InPlace => assert!(!reshaped, "{what}: updated in place"),
            UpdatePath::Reinstantiated { .. } => assert!(reshaped, "{what}: instantiated anew"),
            other => panic!("{what}: {other:?}"),
        }
        exec.launch(&gpu.stream).unwrap();
        if r >= rounds / 10 && r % (rounds / 10) == 0 {
            exec.synchronize().unwrap();
            flat.sample(&gpu.ctx);
        }
    }
    exec.synchronize().unwrap();
    flat.sample(&gpu.ctx);
    println!(
        "{what}: {rounds} rounds in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    flat.check(SLACK);
}
