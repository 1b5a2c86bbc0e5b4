//! The peer all-reduce (`cuda_graph::comm::peer`) on two GPUs of one process: every element
//! type and reduction it takes, counts that are not whole 16-byte vectors, parts at addresses
//! that are not 16-byte aligned, in place, the largest all-reduce it takes and one element more
//! (which NCCL takes); each checked element for element against the host's result (a sum of two
//! ranks is one rounding of the exact sum, so the bits are known) and against the same graph
//! with every collective through NCCL; then many launches of a graph of several all-reduces
//! with new inputs each time (the mailboxes' two slots taking turns).
//!
//! The time-out and fault tests of `collectives.rs` run their all-reduces on this path too.

use std::fmt::Debug;
use std::time::Duration;

use cuda_graph::buffer::{BufMut, StackMut};
use cuda_graph::comm::peer::PEER_ALL_REDUCE_BYTES;
use cuda_graph::comm::{wait_all, Collective, Communicator, NcclElem, ReduceOp};
use cuda_graph::cudarc::driver::DeviceRepr;
use cuda_graph::Graph;
use cuda_graph_flagships::harness::Gpu;
use half::{bf16, f16};

const WAIT: Duration = Duration::from_secs(60);

/// Two GPUs and two communicators over them: one with the peer path, one with NCCL only.
struct Both {
    gpus: Vec<Gpu>,
    peer: Vec<Communicator>,
    nccl: Vec<Communicator>,
}

/// [`Both`], or `None` (after saying why) where the GPUs have no peer access, unless two GPUs
/// are required.
fn setup() -> Option<Both> {
    let gpus = Gpu::find_many(2)?;
    let ctxs: Vec<_> = gpus.iter().map(|g| g.ctx.clone()).collect();
    let peer = Communicator::local(&ctxs, WAIT).expect("communicator");
    if !peer.iter().all(|c| c.peer_all_reduce()) {
        let required = std::env::var("CUDA_GRAPH_REQUIRE_GPUS").is_ok_and(|v| v == "2");
        assert!(
            !required,
            "CUDA_GRAPH_REQUIRE_GPUS=2 but the communicator over GPUs 0 and 1 has no peer all-reduce"
        );
        println!("skipped: GPUs 0 and 1 have no peer access");
        return None;
    }
    let mut nccl = Communicator::local(&ctxs, WAIT).expect("communicator");
    Communicator::nccl_only(&mut nccl).expect("every rank, in order");
    assert!(nccl.iter().all(|c| !c.peer_all_reduce()));
    Some(Both { gpus, peer, nccl })
}

/// How the buffers of one all-reduce are laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Layout {
    /// `src` and `dst` two buffers.
    Apart,
    /// One buffer, reduced in place.
    InPlace,
    /// The second part of a buffer cut in two (its address `count` elements in: not 16-byte
    /// aligned when `count * size` is not a multiple of 16).
    Second,
}

/// Runs one all-reduce of `xs[r]` (rank `r`'s input) over `comms`, `launches` times, and
/// returns every rank's output. Outputs start as `poison`.
fn all_reduce<T>(
    gpus: &[Gpu],
    comms: &[Communicator],
    xs: &[Vec<T>],
    op: ReduceOp,
    layout: Layout,
    poison: T,
) -> Vec<Vec<T>>
where
    T: DeviceRepr + NcclElem + Default + Clone + Send + Sync + 'static,
{
    let n = xs[0].len();
    let streams: Vec<_> = gpus.iter().map(|g| g.ctx.new_stream().unwrap()).collect();
    let mut bufs: Vec<_> = gpus
        .iter()
        .zip(xs)
        .map(|(g, x)| {
            let src = match layout {
                Layout::Second => [vec![poison; n], x.clone()].concat(),
                _ => x.clone(),
            };
            let dst = match layout {
                Layout::Apart => Some(g.upload(&vec![poison; n])),
                Layout::Second => Some(g.upload(&vec![poison; 2 * n])),
                Layout::InPlace => None,
            };
            (g.upload(&src), dst)
        })
        .collect();
    {
        let mut execs = Vec::new();
        for ((g, c), (src, dst)) in gpus.iter().zip(comms).zip(bufs.iter_mut()) {
            let mut graph = Graph::new(&g.ctx).unwrap();
            let coll = match (layout, dst) {
                (Layout::InPlace, _) => {
                    let b: BufMut<T> = graph.bind_mut(src).unwrap();
                    Collective::all_reduce(b, b, n, op)
                }
                (Layout::Apart, Some(d)) => {
                    let (s, d) = (graph.bind(&*src).unwrap(), graph.bind_mut(d).unwrap());
                    Collective::all_reduce(s, d, n, op)
                }
                (Layout::Second, Some(d)) => {
                    let s = graph.bind_stack_mut(StackMut::strided(src, n)).unwrap();
                    let d = graph.bind_stack_mut(StackMut::strided(d, n)).unwrap();
                    Collective::all_reduce(s[1], d[1], n, op)
                }
                _ => unreachable!(),
            };
            graph.add_collective("ar", &[], c, coll).unwrap();
            execs.push(graph.instantiate().unwrap());
        }
        for (e, s) in execs.iter_mut().zip(&streams) {
            e.launch(s).unwrap();
        }
        let ranks: Vec<_> = comms.iter().zip(&streams).collect();
        wait_all(&ranks, WAIT).unwrap();
    }
    gpus.iter()
        .zip(&bufs)
        .map(|(g, (src, dst))| match (layout, dst) {
            (Layout::InPlace, _) => g.read(src),
            (Layout::Apart, Some(d)) => g.read(d),
            (Layout::Second, Some(d)) => g.read(d)[n..].to_vec(),
            _ => unreachable!(),
        })
        .collect()
}

/// Checks the all-reduce of `xs` under `op` on both paths against `expect` (the host's result,
/// element by element): every rank gets it, on the peer path and through NCCL, bit for bit.
impl Both {
    fn check<T>(
        &self,
        what: &str,
        xs: &[Vec<T>],
        op: ReduceOp,
        poison: T,
        expect: impl Fn(T, T) -> T,
    ) where
        T: DeviceRepr + NcclElem + Default + Clone + Copy + Send + Sync + 'static + Debug,
    {
        let gpus = &self.gpus;
        let want: Vec<T> = xs[0]
            .iter()
            .zip(&xs[1])
            .map(|(&a, &b)| expect(a, b))
            .collect();
        let bits = |v: &[T]| format!("{v:?}");
        for layout in [Layout::Apart, Layout::InPlace, Layout::Second] {
            for (path, comms) in [("peer", &self.peer), ("nccl", &self.nccl)] {
                let got = all_reduce(gpus, comms, xs, op, layout, poison);
                for (r, g) in got.iter().enumerate() {
                    if bits(g) != bits(&want) {
                        let at = g
                            .iter()
                            .zip(&want)
                            .position(|(a, b)| format!("{a:?}") != format!("{b:?}"))
                            .unwrap_or(0);
                        panic!(
                        "{what}, {layout:?}, {path} path, rank {r}: element {at} of {} is {:?}, expected {:?}",
                        want.len(),
                        g[at],
                        want[at]
                    );
                    }
                }
            }
        }
    }
}

/// Rank `r`'s `n` inputs: not all zeros, different on each rank, with signs and magnitudes that
/// round when added.
fn inputs(n: usize, r: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let k = (i * 7919 + r * 104_729) % 10_007;
            (k as f64 - 5003.0) * 0.013 * (1.0 + r as f64 * 0.37)
        })
        .collect()
}

/// Both ranks' inputs as `T`.
fn per_rank<T>(n: usize, f: impl Fn(f64) -> T) -> Vec<Vec<T>> {
    (0..2)
        .map(|r| inputs(n, r).into_iter().map(&f).collect())
        .collect()
}

#[test]
fn every_type_and_reduction_gets_the_hosts_bits_on_both_paths() {
    let Some(b) = setup() else {
        return;
    };
    // Counts: one element, a chunk (8 bytes) and a half, not whole chunks, several blocks.
    for n in [1usize, 3, 1001, 40_000] {
        let f = per_rank(n, |v| v as f32);
        b.check("f32 sum", &f, ReduceOp::Sum, f32::NAN, |x, y| x + y);
        b.check("f32 max", &f, ReduceOp::Max, f32::NAN, f32::max);
        b.check("f32 min", &f, ReduceOp::Min, f32::NAN, f32::min);
        b.check("f32 prod", &f, ReduceOp::Prod, f32::NAN, |x, y| x * y);
        let h = per_rank(n, bf16::from_f64);
        let sum = |x: bf16, y: bf16| bf16::from_f32(x.to_f32() + y.to_f32());
        b.check("bf16 sum", &h, ReduceOp::Sum, bf16::NAN, sum);
        let h = per_rank(n, |v| f16::from_f64(v * 0.01));
        let sum = |x: f16, y: f16| f16::from_f32(x.to_f32() + y.to_f32());
        b.check("f16 sum", &h, ReduceOp::Sum, f16::NAN, sum);
        let d = per_rank(n, |v| v);
        b.check("f64 sum", &d, ReduceOp::Sum, f64::NAN, |x, y| x + y);
        let i = per_rank(n, |v| (v * 1e6) as i32);
        b.check("i32 sum", &i, ReduceOp::Sum, i32::MIN, i32::wrapping_add);
        b.check("i32 max", &i, ReduceOp::Max, i32::MIN, i32::max);
        // Signed sums and products that overflow wrap in two's complement, as NCCL's do.
        b.check("i32 prod", &i, ReduceOp::Prod, i32::MIN, i32::wrapping_mul);
        let w = per_rank(n, |v| (v * 1e17) as i64);
        b.check("i64 sum", &w, ReduceOp::Sum, i64::MIN, i64::wrapping_add);
        b.check("i64 prod", &w, ReduceOp::Prod, i64::MIN, i64::wrapping_mul);
        b.check("i64 min", &w, ReduceOp::Min, i64::MAX, i64::min);
        let u = per_rank(n, |v| (v.abs() * 1e9) as u64);
        b.check("u64 min", &u, ReduceOp::Min, u64::MAX, u64::min);
        let u = per_rank(n, |v| (v.abs() * 1e3) as u32);
        b.check("u32 sum", &u, ReduceOp::Sum, u32::MAX, u32::wrapping_add);
    }
}

#[test]
fn the_largest_it_takes_and_one_more() {
    let Some(b) = setup() else {
        return;
    };
    let most = PEER_ALL_REDUCE_BYTES / 4;
    for n in [most, most + 1] {
        let f = per_rank(n, |v| v as f32);
        b.check("f32 sum", &f, ReduceOp::Sum, f32::NAN, |x, y| x + y);
    }
}

/// A graph of three all-reduces of three sizes one after another (a sum of all `n`, a sum of
/// the first `M` of that, the largest of the first `K` of that), launched many times with new
/// inputs each time: each launch's outputs are its own inputs' results, and what no all-reduce
/// writes stays as it was.
#[test]
fn many_launches_of_several_all_reduces_each_get_their_own_inputs() {
    let Some(Both { gpus, peer, .. }) = setup() else {
        return;
    };
    const M: usize = 1001;
    const K: usize = 3;
    let n = 40_000usize;
    let streams: Vec<_> = gpus.iter().map(|g| g.ctx.new_stream().unwrap()).collect();
    let mut xs: Vec<_> = gpus.iter().map(|g| g.upload(&vec![0.0f32; n])).collect();
    let mut ys: Vec<_> = gpus.iter().map(|g| g.upload(&vec![f32::NAN; n])).collect();
    let mut zs: Vec<_> = gpus.iter().map(|g| g.upload(&vec![f32::NAN; n])).collect();
    let mut ws: Vec<_> = gpus.iter().map(|g| g.upload(&vec![f32::NAN; n])).collect();
    let mut execs = Vec::new();
    let mut handles = Vec::new();
    let bufs = xs
        .iter_mut()
        .zip(ys.iter_mut())
        .zip(zs.iter_mut().zip(ws.iter_mut()));
    for ((g, c), ((x, y), (z, w))) in gpus.iter().zip(&peer).zip(bufs) {
        let mut graph = Graph::new(&g.ctx).unwrap();
        let x = graph.bind_mut(x).unwrap();
        let y = graph.bind_mut(y).unwrap();
        let z = graph.bind_mut(z).unwrap();
        let w = graph.bind_mut(w).unwrap();
        let a = graph
            .add_collective("a", &[], c, Collective::all_reduce(x, y, n, ReduceOp::Sum))
            .unwrap();
        let b = graph
            .add_collective(
                "b",
                &[&a],
                c,
                Collective::all_reduce(y, z, M, ReduceOp::Sum),
            )
            .unwrap();
        graph
            .add_collective(
                "c",
                &[&b],
                c,
                Collective::all_reduce(z, w, K, ReduceOp::Max),
            )
            .unwrap();
        execs.push(graph.instantiate().unwrap());
        handles.push([x, y, z, w]);
    }
    let ranks: Vec<_> = peer.iter().zip(&streams).collect();
    for step in 0..200usize {
        let x: Vec<Vec<f32>> = (0..2)
            .map(|r| inputs(n, r + 2 * step).iter().map(|&v| v as f32).collect())
            .collect();
        for (r, e) in execs.iter_mut().enumerate() {
            let mut b = e.buffer_mut(handles[r][0]).unwrap();
            streams[r].memcpy_htod(&x[r], &mut b).unwrap();
        }
        for (e, s) in execs.iter_mut().zip(&streams) {
            e.launch(s).unwrap();
        }
        wait_all(&ranks, WAIT).unwrap();
        let y: Vec<f32> = x[0].iter().zip(&x[1]).map(|(a, b)| a + b).collect();
        let z: Vec<f32> = y.iter().map(|v| v + v).collect();
        let unwritten = |v: &[f32]| v.iter().all(|v| v.is_nan());
        for (r, e) in execs.iter_mut().enumerate() {
            let mut out = [vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]];
            for (k, o) in out.iter_mut().enumerate() {
                let b = e.buffer(handles[r][k + 1]).unwrap();
                streams[r].memcpy_dtoh(b, o).unwrap();
            }
            streams[r].synchronize().unwrap();
            assert_eq!(out[0], y, "step {step}, rank {r}: the sum");
            assert_eq!(
                out[1][..M],
                z[..M],
                "step {step}, rank {r}: the sum of the sum"
            );
            assert_eq!(
                out[2][..K],
                z[..K],
                "step {step}, rank {r}: the max of that"
            );
            assert!(
                unwritten(&out[1][M..]) && unwritten(&out[2][K..]),
                "step {step}, rank {r}"
            );
        }
    }
}
