//! One all-reduce over two GPUs driven by one process, inside a graph: the peer all-reduce
//! (`cuda_graph::comm::peer`, one kernel over NVLink) beside NCCL's (the same graph on a
//! communicator made `nccl_only`), 4 KiB to 512 KiB of `f32` a rank, the largest of the
//! ranks' values (a sum is the same kernel but for one instruction). Each rank's graph
//! runs 64 all-reduces of one buffer in place one after another; a step launches every
//! rank's graph and waits for all; the time of one all-reduce is a step's over 64. The two are
//! measured interleaved, medians of at least 30 steps each.
//!
//! Results go to `$OUT/all_reduce.json` on the device machine, else
//! `docs/bench/raw/all_reduce.json`.

use std::time::{Duration, Instant};

use cuda_graph::comm::{Collective, Communicator, ReduceOp};
use cuda_graph::cudarc::driver::CudaSlice;
use cuda_graph::exec::Ranks;
use cuda_graph::{Graph, GraphExec};
use cuda_graph_flagships::harness::{self, Gpu};

const CHAIN: usize = 64;
const WAIT: Duration = Duration::from_secs(60);

/// Rank `c`'s graph: `CHAIN` all-reduces of `x` in place, one after another.
fn chain<'a>(gpu: &Gpu, c: &'a Communicator, x: &'a mut CudaSlice<f32>) -> GraphExec<'a> {
    let n = x.len();
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let xb = g.bind_mut(x).unwrap();
    let mut last = None;
    for i in 0..CHAIN {
        let deps: Vec<&dyn cuda_graph::prelude::Dep> = last.iter().map(|d| d as _).collect();
        let node = g
            .add_collective(
                &format!("ar{i}"),
                &deps,
                c,
                Collective::all_reduce(xb, xb, n, ReduceOp::Max),
            )
            .unwrap();
        last = Some(node);
    }
    g.instantiate().unwrap()
}

fn main() {
    if !harness::bench_requested() {
        return;
    }
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
        std::env::set_var("NCCL_NVLS_ENABLE", "0");
    }
    let ctxs: Vec<_> = gpus.iter().map(|g| g.ctx.clone()).collect();
    let peer = Communicator::local(&ctxs, WAIT).unwrap();
    let mut nccl = Communicator::local(&ctxs, WAIT).unwrap();
    Communicator::nccl_only(&mut nccl).unwrap();
    if !peer[0].peer_all_reduce() {
        println!("skipped: GPUs 0 and 1 have no peer access, so there is no peer all-reduce");
        return;
    }
    let streams: Vec<_> = gpus.iter().map(|g| g.ctx.new_stream().unwrap()).collect();
    let mut rows = Vec::new();
    println!("| bytes a rank | peer all-reduce | NCCL | NCCL ÷ peer |");
    println!("|---|---|---|---|");
    for kib in [4usize, 16, 64, 256, 512] {
        let n = kib * 1024 / 4;
        let values: Vec<Vec<f32>> = (0..2)
            .map(|r| (0..n).map(|i| ((i * 31 + r * 17) % 1000) as f32).collect())
            .collect();
        let mut xs: Vec<CudaSlice<f32>> =
            (0..4).map(|k| gpus[k % 2].upload(&values[k % 2])).collect();
        let (px, nx) = xs.split_at_mut(2);
        let mut pe: Vec<_> = px
            .iter_mut()
            .enumerate()
            .map(|(r, x)| chain(&gpus[r], &peer[r], x))
            .collect();
        let mut ne: Vec<_> = nx
            .iter_mut()
            .enumerate()
            .map(|(r, x)| chain(&gpus[r], &nccl[r], x))
            .collect();
        let mut p = Ranks::new(
            pe.iter_mut().collect(),
            peer.iter().collect(),
            streams.clone(),
        )
        .unwrap();
        let mut q = Ranks::new(
            ne.iter_mut().collect(),
            nccl.iter().collect(),
            streams.clone(),
        )
        .unwrap();
        let step = |s: &mut Ranks<'_, &mut GraphExec<'_>>| {
            let t = Instant::now();
            s.launch().unwrap();
            s.wait(WAIT).unwrap();
            t.elapsed()
        };
        for _ in 0..5 {
            step(&mut p);
            step(&mut q);
        }
        let ((tp, k), (tq, _)) = harness::paired(
            30,
            Duration::from_millis(500),
            || step(&mut p),
            || step(&mut q),
        );
        drop((p, q));
        drop((pe, ne));
        let want: Vec<f32> = values[0]
            .iter()
            .zip(&values[1])
            .map(|(a, b)| a.max(*b))
            .collect();
        for (k, x) in xs.iter().enumerate() {
            assert_eq!(gpus[k % 2].read(x), want, "the all-reduce's result");
        }
        let (per_p, per_q) = (tp / CHAIN as f64, tq / CHAIN as f64);
        println!(
            "| {kib} KiB | {per_p:.2} µs | {per_q:.2} µs | {:.2}x |",
            per_q / per_p
        );
        for (imp, us) in [("cuda_graph_peer", per_p), ("cuda_graph_nccl", per_q)] {
            rows.push(format!(
                "{{\"case\": \"all_reduce\", \"impl\": \"{imp}\", \"gpus\": 2, \"bytes\": {}, \"elem\": \"f32\", \"chain\": {CHAIN}, \"us_per_all_reduce\": {us:.3}, \"steps\": {k}, \"gpu\": \"{}\"}}",
                kib * 1024,
                gpus[0].name
            ));
        }
    }
    harness::write_rows("all_reduce.json", &rows);
}
