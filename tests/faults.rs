//! Faults and races a user can cause without a bug in cuda-graph, each with the outcome it
//! must have: a stream of another context, another context made current behind cuda-graph's
//! back between two edits, dropping an executable graph with launches queued, and a host
//! callback that blocks while another thread sets parameters. (A kernel fault is in
//! `fault_trap.rs`: it needs a process of its own.)

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use cuda_graph::cudarc::driver::{sys, CudaContext};
use cuda_graph::{error::LaunchError, Graph, LaunchConfig};

const N: usize = 1024;

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

/// Launching on a stream of another context is refused before the driver sees it, and the
/// graph still launches on its own context afterwards.
#[test]
fn a_stream_of_another_context_is_refused_and_the_graph_goes_on() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    g.add_kernel("fill", &[], &iota, cfg(N), (yb, 10u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();

    let other = CudaContext::new_non_primary(0, 0).expect("a second context");
    let foreign = other.default_stream();
    let e = exec.launch(&foreign).unwrap_err();
    assert!(
        matches!(e, LaunchError::ContextMismatch { what: "the stream" }),
        "{e:?}"
    );
    assert!(exec.upload(&foreign).is_err());

    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    assert!(got.iter().enumerate().all(|(i, &v)| v == 10 + i as u32));
}

/// Other code makes another context current on this thread between two edits, behind
/// cuda-graph's back: the setter still edits the graph (its fast path trusts the context the
/// last call left current, and must notice), and the next launch uses the new value.
#[test]
fn a_setter_after_another_context_was_made_current_still_edits_the_graph() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let fill = g
        .add_kernel("fill", &[], &iota, cfg(N), (yb, 10u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    // A first edit: this thread now has the graph's context current, and cuda-graph knows it.
    exec.node(fill).unwrap().set_arg::<1>(20).unwrap();
    let other = CudaContext::new_non_primary(0, 0).expect("a second context");
    // SAFETY: `other` is a live context; making it current is what other code may do.
    let r = unsafe { sys::cuCtxSetCurrent(other.cu_ctx()) };
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
    exec.node(fill).unwrap().set_arg::<1>(30).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    assert!(
        got.iter().enumerate().all(|(i, &v)| v == 30 + i as u32),
        "the edit made while another context was current reaches the launch"
    );
}

/// Dropping an executable graph while launches are queued waits for them: every queued
/// launch runs to the end, and the buffers it wrote are readable right after the drop.
#[test]
fn dropping_an_executable_graph_waits_for_its_queued_launches() {
    let gpu = gpu_or_skip!();
    let (spin, count) = (gpu.f("spin"), gpu.f("count_threads"));
    let mut counter = gpu.upload(&[0u32]);
    let launches = 50u32;
    {
        let mut g = Graph::new(&gpu.ctx).unwrap();
        let cb = g.bind_mut(&mut counter).unwrap();
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // About 0.2 ms of spinning per launch, so the queue is still full at the drop.
        let wait = g
            .add_kernel("wait", &[], &spin, one, (300_000u64,))
            .unwrap();
        let threads = LaunchConfig {
            grid_dim: (2, 1, 1),
            block_dim: (64, 1, 1),
            shared_mem_bytes: 0,
        };
        g.add_kernel("count", &[&wait], &count, threads, (cb,))
            .unwrap();
        let mut exec = g.instantiate().unwrap();
        for _ in 0..launches {
            exec.launch(&gpu.stream).unwrap();
        }
        // `exec` (and the borrow of `counter`) ends here, with launches still queued.
    }
    // No synchronize of ours: the drop waited.
    assert_eq!(gpu.read(&counter), vec![launches * 128]);
}

/// A host callback blocks (here: until told to go on) while another thread, which the
/// executable graph was moved to, changes a kernel argument. The setter does not wait for the
/// blocked launch, the launch already queued keeps the old argument, and the next launch uses
/// the new one.
#[test]
fn a_blocked_host_callback_does_not_block_setters_on_another_thread() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let gate = Mutex::new(go_rx);
    let entered = AtomicU32::new(0);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let block = g
        .add_host("gate", &[], || {
            entered.fetch_add(1, Ordering::SeqCst);
            // Released by the test; a timeout keeps a wrong runtime from hanging the suite.
            let _ = gate.lock().unwrap().recv_timeout(Duration::from_secs(20));
        })
        .unwrap();
    let fill = g
        .add_kernel("fill", &[&block], &iota, cfg(N), (yb, 100u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    while entered.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }

    // The callback is blocked now. Another thread sets the argument.
    let (done_tx, done_rx) = mpsc::channel();
    let mut exec = std::thread::scope(|s| {
        let setter = s.spawn(move || {
            let r = exec.node(fill).unwrap().set_arg::<1>(200);
            done_tx.send(r.is_ok()).unwrap();
            exec
        });
        let finished = done_rx.recv_timeout(Duration::from_secs(10));
        go_tx.send(()).unwrap();
        assert_eq!(
            finished,
            Ok(true),
            "the setter must return, and succeed, while the callback is blocked"
        );
        setter.join().unwrap()
    });
    exec.synchronize().unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    assert!(
        got.iter().enumerate().all(|(i, &v)| v == 100 + i as u32),
        "the launch already queued keeps the old argument"
    );
    go_tx.send(()).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    assert!(got.iter().enumerate().all(|(i, &v)| v == 200 + i as u32));
    assert_eq!(entered.load(Ordering::SeqCst), 2);
}
