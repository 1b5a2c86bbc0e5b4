//! NCCL collectives as graph nodes (`Graph::add_collective`), at world size 1 on one GPU:
//! every form moves exactly the values it should; the checks before capture name the node; a
//! rank that never joins and a peer that never sends are time-outs that abort the
//! communicator (no hang), after which a graph using it refuses to launch.

use std::time::{Duration, Instant};

use cuda_graph::comm::{Collective, Communicator, ReduceOp, UniqueId};
use cuda_graph::error::{BuildError, CommError, LaunchError};
use cuda_graph::Graph;
use cuda_graph_flagships::harness::Gpu;

const WAIT: Duration = Duration::from_secs(60);

fn comm(gpu: &Gpu) -> Communicator {
    Communicator::local(std::slice::from_ref(&gpu.ctx), WAIT)
        .expect("a communicator of one rank")
        .pop()
        .expect("one rank")
}

#[test]
fn every_collective_moves_the_values_it_should() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let c = comm(&gpu);
    assert_eq!((c.rank(), c.world(), c.ordinal()), (0, 1, 0));
    let n = 1000usize;
    let src: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let x = gpu.upload(&src);
    let poison = vec![f32::NAN; n];
    let (mut ar, mut ag, mut rs, mut bc) = (
        gpu.upload(&poison),
        gpu.upload(&poison),
        gpu.upload(&poison),
        gpu.upload(&poison),
    );
    let mut inplace = gpu.upload(&src);
    let halves: Vec<half::bf16> = src.iter().map(|&v| half::bf16::from_f32(v)).collect();
    let hx = gpu.upload(&halves);
    let mut hmax = gpu.upload(&vec![half::bf16::NAN; n]);
    let stream = gpu.ctx.new_stream().unwrap();
    {
        let mut g = Graph::new(&gpu.ctx).unwrap();
        let xb = g.bind(&x).unwrap();
        let (arb, agb, rsb, bcb) = (
            g.bind_mut(&mut ar).unwrap(),
            g.bind_mut(&mut ag).unwrap(),
            g.bind_mut(&mut rs).unwrap(),
            g.bind_mut(&mut bc).unwrap(),
        );
        let ib = g.bind_mut(&mut inplace).unwrap();
        let (hxb, hmb) = (g.bind(&hx).unwrap(), g.bind_mut(&mut hmax).unwrap());
        let a = g
            .add_collective(
                "ar",
                &[],
                &c,
                Collective::all_reduce(xb, arb, n, ReduceOp::Sum),
            )
            .unwrap();
        let b = g
            .add_collective("ag", &[&a], &c, Collective::all_gather(xb, agb, n))
            .unwrap();
        let d = g
            .add_collective(
                "rs",
                &[&b],
                &c,
                Collective::reduce_scatter(xb, rsb, n, ReduceOp::Max),
            )
            .unwrap();
        let e = g
            .add_collective("bc", &[&d], &c, Collective::broadcast(xb, bcb, n, 0))
            .unwrap();
        let f = g
            .add_collective(
                "ip",
                &[&e],
                &c,
                Collective::all_reduce(ib, ib, n, ReduceOp::Avg),
            )
            .unwrap();
        g.add_collective(
            "hm",
            &[&f],
            &c,
            Collective::all_reduce(hxb, hmb, n, ReduceOp::Max),
        )
        .unwrap();
        let mut exec = g.instantiate().unwrap();
        for _ in 0..3 {
            exec.launch(&stream).unwrap();
            c.wait(&stream, WAIT).unwrap();
        }
    }
    // One rank: each collective is a copy (the sum, max, mean over one rank is the value).
    for (what, got) in [
        ("all_reduce", &ar),
        ("all_gather", &ag),
        ("reduce_scatter", &rs),
        ("broadcast", &bc),
        ("in place", &inplace),
    ] {
        assert_eq!(gpu.read(got), src, "{what}");
    }
    assert_eq!(gpu.read(&hmax), halves);
}

#[test]
fn the_checks_before_capture_name_the_node() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let c = comm(&gpu);
    let x = gpu.upload(&[1.0f32; 8]);
    let mut y = gpu.upload(&[0.0f32; 8]);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (xb, yb) = (g.bind(&x).unwrap(), g.bind_mut(&mut y).unwrap());
    let err = |r: Result<_, BuildError>| r.map(|_| ()).unwrap_err().to_string();
    let short = err(g.add_collective(
        "big",
        &[],
        &c,
        Collective::all_reduce(xb, yb, 9, ReduceOp::Sum),
    ));
    assert_eq!(
        short,
        "node `big`: the source buffer holds 8 elements but the node needs 9; pass a buffer of at least 9 elements"
    );
    let zero = err(g.add_collective(
        "none",
        &[],
        &c,
        Collective::all_reduce(xb, yb, 0, ReduceOp::Sum),
    ));
    assert!(zero.starts_with("node `none`: the count is 0"), "{zero}");
    let peer = err(g.add_collective("far", &[], &c, Collective::<f32>::send(xb, 4, 1)));
    assert_eq!(
        peer,
        "node `far`: the peer is rank 1, but the communicator has 1 rank"
    );
    let root = err(g.add_collective("root", &[], &c, Collective::broadcast(xb, yb, 4, 3)));
    assert_eq!(
        root,
        "node `root`: the root is rank 3, but the communicator has 1 rank"
    );
    // Nothing was added: the graph still builds and runs an empty launch.
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    gpu.stream.synchronize().unwrap();
}

#[test]
fn invalid_ranks_are_errors() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let id = UniqueId::new().unwrap();
    let e = Communicator::from_id(&gpu.ctx, 2, 2, &id, WAIT).unwrap_err();
    assert!(matches!(e, CommError::Invalid { .. }), "{e}");
    let e = Communicator::local(&[gpu.ctx.clone(), gpu.ctx.clone()], WAIT).unwrap_err();
    assert!(e.to_string().contains("device 0 is given twice"), "{e}");
    // The id survives a trip through bytes.
    assert_eq!(UniqueId::from_bytes(id.to_bytes()), id);
    // One process a GPU at world size 1: rank 0 of 1 joins from a fresh id and runs a
    // collective in a graph.
    let id = UniqueId::from_bytes(UniqueId::new().unwrap().to_bytes());
    let c = Communicator::from_id(&gpu.ctx, 0, 1, &id, WAIT).unwrap();
    assert_eq!((c.rank(), c.world()), (0, 1));
    let x = gpu.upload(&[4.0f32, -1.0, 0.5]);
    let mut y = gpu.upload(&[f32::NAN; 3]);
    {
        let mut g = Graph::new(&gpu.ctx).unwrap();
        let (xb, yb) = (g.bind(&x).unwrap(), g.bind_mut(&mut y).unwrap());
        g.add_collective("b", &[], &c, Collective::broadcast(xb, yb, 3, 0))
            .unwrap();
        let mut exec = g.instantiate().unwrap();
        exec.launch(&gpu.stream).unwrap();
        c.wait(&gpu.stream, WAIT).unwrap();
    }
    assert_eq!(gpu.read(&y), vec![4.0, -1.0, 0.5]);
}

#[test]
fn a_rank_that_never_joins_is_a_timeout_not_a_hang() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let id = UniqueId::new().unwrap();
    let start = Instant::now();
    // Rank 0 of two; rank 1 never comes.
    let e = Communicator::from_id(&gpu.ctx, 0, 2, &id, Duration::from_secs(3)).unwrap_err();
    let took = start.elapsed();
    assert!(
        matches!(
            e,
            CommError::Timeout {
                rank: 0,
                world: 2,
                ..
            }
        ),
        "{e}"
    );
    assert!(took < Duration::from_secs(30), "returned after {took:?}");
    // The GPU is still usable: a new communicator of one rank works.
    let c = comm(&gpu);
    assert!(c.is_alive());
}

/// A kernel that runs for `ns` nanoseconds of the GPU's global timer.
const SPIN: &str = r#"
extern "C" __global__ void spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
"#;

/// The fault injected at world size 1: a rank whose side of a collective does not come within
/// the time-out (here its all-reduce waits behind a kernel that runs 1.5 s, as behind a hung
/// or faulted kernel; with two ranks, its peers would wait for it). The wait gives up at the
/// caller's time-out instead of hanging and aborts the communicator (which returns once the
/// device's running kernels that are not NCCL's finish: NCCL frees its memory), and the graph
/// then refuses to launch; the GPU stays usable.
#[test]
fn a_rank_whose_collective_never_comes_is_a_timeout_then_the_graph_refuses_to_launch() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let c = comm(&gpu);
    let module = cuda_graph::compile(&gpu.ctx, SPIN).unwrap();
    let spin = module.function("spin").unwrap();
    let x = gpu.upload(&[2.5f32; 64]);
    let mut y = gpu.upload(&[f32::NAN; 64]);
    let stream = gpu.ctx.new_stream().unwrap();
    {
        let mut g = Graph::new(&gpu.ctx).unwrap();
        let (xb, yb) = (g.bind(&x).unwrap(), g.bind_mut(&mut y).unwrap());
        let one = cuda_graph::LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        let late = g
            .add_kernel("late", &[], &spin, one, (1_500_000_000u64,))
            .unwrap();
        g.add_collective(
            "sum",
            &[&late],
            &c,
            Collective::all_reduce(xb, yb, 64, ReduceOp::Sum),
        )
        .unwrap();
        let mut exec = g.instantiate().unwrap();
        exec.launch(&stream).unwrap();
        let start = Instant::now();
        let e = c.wait(&stream, Duration::from_millis(500)).unwrap_err();
        let took = start.elapsed();
        assert!(
            matches!(
                e,
                CommError::Timeout {
                    rank: 0,
                    world: 1,
                    ..
                }
            ),
            "{e}"
        );
        // Gave up at the time-out, not when the late kernel ended (the abort then waited for it).
        assert!(
            took >= Duration::from_millis(500),
            "returned after {took:?}"
        );
        assert!(took < Duration::from_secs(20), "returned after {took:?}");
        assert!(!c.is_alive());
        // The work drains; the graph now refuses to run collectives of a dead communicator,
        // and asking the communicator says why.
        stream.synchronize().unwrap();
        let e = exec.launch(&stream).unwrap_err();
        assert!(
            matches!(e, LaunchError::CommunicatorAborted { rank: 0 }),
            "{e}"
        );
        let e = c.check().unwrap_err();
        assert!(matches!(e, CommError::Aborted { .. }), "{e}");
    }
    // The GPU goes on: a new communicator runs the same all-reduce.
    let c = comm(&gpu);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (xb, yb) = (g.bind(&x).unwrap(), g.bind_mut(&mut y).unwrap());
    g.add_collective(
        "sum",
        &[],
        &c,
        Collective::all_reduce(xb, yb, 64, ReduceOp::Sum),
    )
    .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    c.wait(&stream, WAIT).unwrap();
    drop(exec);
    assert_eq!(gpu.read(&y), vec![2.5f32; 64]);
}

/// A receive that no send matches (from itself, at world size 1) is refused when the graph
/// is built, naming the node, not run.
#[test]
fn a_receive_no_send_matches_is_refused_at_build() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let c = comm(&gpu);
    let mut y = gpu.upload(&[0.0f32; 64]);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let e = g
        .add_collective("lonely", &[], &c, Collective::<f32>::recv(yb, 64, 0))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("`lonely`"), "{e}");
}

/// At world size 2 (two GPUs, one process): rank 1 never launches its graph, so rank 0's
/// all-reduce never gets its peer; waiting on both gives up after the time-out, aborts both
/// communicators, and both graphs refuse to launch.
#[test]
fn a_rank_that_never_launches_is_a_timeout_on_its_peer() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    let ctxs: Vec<_> = gpus.iter().map(|g| g.ctx.clone()).collect();
    let comms = Communicator::local(&ctxs, WAIT).unwrap();
    let xs: Vec<_> = gpus.iter().map(|g| g.upload(&[1.0f32; 256])).collect();
    let mut ys: Vec<_> = gpus.iter().map(|g| g.upload(&[0.0f32; 256])).collect();
    let streams: Vec<_> = gpus.iter().map(|g| g.ctx.new_stream().unwrap()).collect();
    let mut execs = Vec::new();
    for ((g, c), (x, y)) in gpus.iter().zip(&comms).zip(xs.iter().zip(ys.iter_mut())) {
        let mut graph = Graph::new(&g.ctx).unwrap();
        let (xb, yb) = (graph.bind(x).unwrap(), graph.bind_mut(y).unwrap());
        graph
            .add_collective(
                "sum",
                &[],
                c,
                Collective::all_reduce(xb, yb, 256, ReduceOp::Sum),
            )
            .unwrap();
        execs.push(graph.instantiate().unwrap());
    }
    execs[0].launch(&streams[0]).unwrap();
    let start = Instant::now();
    let ranks: Vec<_> = comms.iter().zip(&streams).collect();
    let e = cuda_graph::comm::wait_all(&ranks, Duration::from_secs(2)).unwrap_err();
    assert!(matches!(e, CommError::Timeout { rank: 0, .. }), "{e}");
    assert!(start.elapsed() < Duration::from_secs(30));
    assert!(comms.iter().all(|c| !c.is_alive()));
    streams[0].synchronize().unwrap();
    for (e, s) in execs.iter_mut().zip(&streams) {
        assert!(matches!(
            e.launch(s).unwrap_err(),
            LaunchError::CommunicatorAborted { .. }
        ));
    }
}

/// A kernel that faults: its device's context cannot run work again in this process.
const TRAP: &str = r#"extern "C" __global__ void trap() { __trap(); }"#;

/// The environment variable that makes this test binary the process in which
/// `a_kernel_fault_on_one_rank_is_an_error_on_its_peer_and_nothing_hangs` faults a GPU.
const FAULT_CHILD: &str = "CUDA_GRAPH_NCCL_FAULT_CHILD";

/// At world size 2 (two GPUs, one process): rank 1's graph faults (a kernel traps) before its
/// all-reduce, so rank 0's all-reduce never gets its peer. Waiting on both returns rank 1's
/// fault long before the time-out, with every communicator aborted; rank 0's stream drains
/// (its device may report the fault too: NCCL's kernel there reads rank 1's memory); and the
/// process ends. A fault spoils a device's context for the rest of the process, so this runs
/// in a child process of the test, which the test kills (and fails) if it hangs.
#[test]
fn a_kernel_fault_on_one_rank_is_an_error_on_its_peer_and_nothing_hangs() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    if std::env::var_os(FAULT_CHILD).is_some() {
        println!("child: {}", fault_on_rank_one(&gpus));
        return;
    }
    drop(gpus);
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "a_kernel_fault_on_one_rank_is_an_error_on_its_peer_and_nothing_hangs",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FAULT_CHILD, "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let limit = Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the process with the faulted rank did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| {
            l.find("child: ")
                .map(|at| l[at + "child: ".len()..].to_owned())
        })
        .unwrap_or_else(|| panic!("the child printed no result: {text}"));
    println!(
        "{line} (the process ended after {:?}, {})",
        start.elapsed(),
        out.status
    );
    assert!(line.starts_with("fault seen"), "{line}");
    // What CUDA and NCCL do at the exit of a process whose devices faulted is theirs: the
    // process must end (above), and says how.
    if !out.status.success() {
        eprintln!(
            "the process with the faulted rank ended with {}",
            out.status
        );
    }
}

/// Runs the fault (in the child process) and says what happened, as one line.
fn fault_on_rank_one(gpus: &[Gpu]) -> String {
    let ctxs: Vec<_> = gpus.iter().map(|g| g.ctx.clone()).collect();
    let comms = Communicator::local(&ctxs, WAIT).unwrap();
    let module = cuda_graph::compile(&gpus[1].ctx, TRAP).unwrap();
    let trap = module.function("trap").unwrap();
    let xs: Vec<_> = gpus.iter().map(|g| g.upload(&[1.0f32; 256])).collect();
    let mut ys: Vec<_> = gpus.iter().map(|g| g.upload(&[0.0f32; 256])).collect();
    let streams: Vec<_> = gpus.iter().map(|g| g.ctx.new_stream().unwrap()).collect();
    let timeout = Duration::from_secs(30);
    let (result, took) = {
        let mut execs = Vec::new();
        for (r, ((g, c), (x, y))) in gpus
            .iter()
            .zip(&comms)
            .zip(xs.iter().zip(ys.iter_mut()))
            .enumerate()
        {
            let mut graph = Graph::new(&g.ctx).unwrap();
            let (xb, yb) = (graph.bind(x).unwrap(), graph.bind_mut(y).unwrap());
            let one = cuda_graph::LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (1, 1, 1),
                shared_mem_bytes: 0,
            };
            let sum = Collective::all_reduce(xb, yb, 256, ReduceOp::Sum);
            if r == 1 {
                let t = graph.add_kernel("trap", &[], &trap, one, ()).unwrap();
                graph.add_collective("sum", &[&t], c, sum).unwrap();
            } else {
                graph.add_collective("sum", &[], c, sum).unwrap();
            }
            execs.push(graph.instantiate().unwrap());
        }
        for (e, s) in execs.iter_mut().zip(&streams) {
            e.launch(s).unwrap();
        }
        let start = Instant::now();
        let ranks: Vec<_> = comms.iter().zip(&streams).collect();
        let result = cuda_graph::comm::wait_all(&ranks, timeout);
        (result, start.elapsed())
    };
    let fault = match result {
        Err(e @ CommError::Fault { rank: 1, .. }) => e,
        other => return format!("expected rank 1's fault, got {other:?} after {took:?}"),
    };
    if took >= timeout {
        return format!("the fault was seen only at the time-out ({took:?})");
    }
    if comms.iter().any(|c| c.is_alive()) {
        return "a communicator was left alive".into();
    }
    // Rank 0's stream drains: its all-reduce returned on the abort. (Its device may report a
    // failure too: NCCL's kernel there reads rank 1's memory, which the fault took down.)
    // When it reports none, GPU 0 goes on: a new communicator runs an all-reduce there.
    let rank0 = match streams[0].synchronize() {
        Err(e) => format!("rank 0's device failed too ({e})"),
        Ok(()) => {
            let c = comm(&gpus[0]);
            let mut again = gpus[0].upload(&[0.0f32; 256]);
            {
                let mut g = Graph::new(&gpus[0].ctx).unwrap();
                let (xb, yb) = (g.bind(&xs[0]).unwrap(), g.bind_mut(&mut again).unwrap());
                let sum = Collective::all_reduce(xb, yb, 256, ReduceOp::Sum);
                g.add_collective("sum", &[], &c, sum).unwrap();
                let mut exec = g.instantiate().unwrap();
                exec.launch(&streams[0]).unwrap();
                c.wait(&streams[0], WAIT).unwrap();
            }
            if gpus[0].read(&again) != vec![1.0f32; 256] {
                return "GPU 0's new all-reduce gave wrong values".into();
            }
            "GPU 0 goes on (a new communicator's all-reduce is right)".into()
        }
    };
    format!("fault seen after {took:?}: {fault}; {rank0}")
}

/// The environment variable that makes this test binary the second process of
/// `two_processes_on_one_gpu` (the id's bytes in hex).
const CHILD: &str = "CUDA_GRAPH_NCCL_CHILD_ID";

fn hex(b: &[u8]) -> String {
    b.iter().map(|v| format!("{v:02x}")).collect()
}

fn unhex(s: &str) -> [u8; 128] {
    let mut out = [0u8; 128];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex");
    }
    out
}

/// The GPUs of this machine (counted: asking for one that is not there is a failed driver
/// call, which compute-sanitizer reports).
fn gpus() -> usize {
    cuda_graph::cudarc::driver::CudaContext::device_count().unwrap_or(1) as usize
}

/// One rank of two joined from an id: its result as one line.
fn join(gpu: &Gpu, rank: u32, id: &UniqueId) -> String {
    match Communicator::from_id(&gpu.ctx, rank, 2, id, Duration::from_secs(20)) {
        Ok(_) => "joined".into(),
        Err(e) => format!("error: {e}"),
    }
}

/// The one-process-a-GPU path with the id passed between two processes: NCCL does not allow
/// two ranks of one communicator on one GPU, so on a machine with one GPU both processes get
/// NCCL's error (not a hang) within the time-out; with two GPUs the child takes GPU 1 and both
/// join.
#[test]
fn two_processes_pass_the_id() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    if let Ok(id) = std::env::var(CHILD) {
        let second = if gpus() >= 2 {
            cuda_graph::context(1).ok()
        } else {
            None
        };
        let child_gpu = match second {
            Some(ctx) => Gpu {
                stream: ctx.default_stream(),
                name: String::new(),
                ctx,
            },
            None => gpu,
        };
        println!(
            "child: {}",
            join(&child_gpu, 1, &UniqueId::from_bytes(unhex(&id)))
        );
        return;
    }
    let id = UniqueId::new().unwrap();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "two_processes_pass_the_id",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, hex(&id.to_bytes()))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let parent = join(&gpu, 0, &id);
    let out = child.wait_with_output().unwrap();
    let took = start.elapsed();
    let text = String::from_utf8_lossy(&out.stdout);
    let child_line = text
        .lines()
        // libtest prints "test name ... " before the child's own line, on the same line.
        .find_map(|l| l.find("child: ").map(|at| &l[at + "child: ".len()..]))
        .unwrap_or_else(|| panic!("the child printed no result: {text}"))
        .to_owned();
    println!("parent: {parent}\nchild: {child_line}\n({took:?})");
    assert!(took < Duration::from_secs(60), "took {took:?}");
    let two_gpus = gpus() >= 2;
    if two_gpus {
        assert_eq!((parent.as_str(), child_line.as_str()), ("joined", "joined"));
    } else {
        // NCCL's duplicate-GPU refusal; under compute-sanitizer (both processes slowed) the
        // join can reach its time-out first: an error either way, never a hang.
        for line in [&parent, &child_line] {
            assert!(line.starts_with("error: "), "{line}");
        }
        let refused = |l: &str| l.contains("Duplicate GPU") || l.contains("did not finish within");
        assert!(
            refused(&parent) && refused(&child_line),
            "expected NCCL's duplicate-GPU refusal or the join's time-out: {parent} / {child_line}"
        );
    }
}
