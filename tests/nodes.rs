//! Every node kind, built node by node, launched on a real GPU, with exact values read back.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use common::POISON;
use cuda_graph::{
    error::BuildError,
    exec::{Instantiate, UpdatePath},
    topology::NodeKind,
    Graph, LaunchConfig,
};

const N: usize = 4096;

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

#[test]
fn kernel_node_runs_saxpy() {
    let gpu = gpu_or_skip!();
    let saxpy = gpu.f("saxpy");
    let xs: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    let ys: Vec<f32> = (0..N).map(|i| 1000.0 - i as f32).collect();
    let x = gpu.upload(&xs);
    let mut y = gpu.upload(&ys);

    let mut g = Graph::new(&gpu.ctx).unwrap();
    let xb = g.bind(&x).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    g.add_kernel("saxpy", &[], &saxpy, cfg(N), (2.0f32, xb, yb, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    for i in 0..N {
        assert_eq!(got[i], 2.0 * xs[i] + ys[i], "element {i}");
    }
    // A second launch applies it again: y = 2x + (2x + y0).
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    assert_eq!(got[10], 4.0 * xs[10] + ys[10]);
}

#[test]
fn memset_nodes_fill_1_2_and_4_byte_elements() {
    let gpu = gpu_or_skip!();
    let mut a = gpu.upload(&vec![0x11u8; 1000]);
    let mut b = gpu.upload(&vec![0x2222u16; 1000]);
    let mut c = gpu.upload(&vec![POISON; 1000]);
    let mut d = gpu.upload(&vec![-1.0f32; 1000]);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (ab, bb, cb, db) = (
        g.bind_mut(&mut a).unwrap(),
        g.bind_mut(&mut b).unwrap(),
        g.bind_mut(&mut c).unwrap(),
        g.bind_mut(&mut d).unwrap(),
    );
    g.add_memset("a", &[], ab, 0xA5u8).unwrap();
    g.add_memset("b", &[], bb, -2i16 as u16).unwrap();
    g.add_memset("c", &[], cb, 0x0102_0304u32).unwrap();
    g.add_memset("d", &[], db, 1.5f32).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu
        .read(exec.buffer(ab).unwrap())
        .iter()
        .all(|&v| v == 0xA5));
    assert!(gpu
        .read(exec.buffer(bb).unwrap())
        .iter()
        .all(|&v| v == 0xFFFE));
    assert!(gpu
        .read(exec.buffer(cb).unwrap())
        .iter()
        .all(|&v| v == 0x0102_0304));
    assert!(gpu.read(exec.buffer(db).unwrap()).iter().all(|&v| v == 1.5));
}

#[test]
fn memset_nodes_fill_8_byte_elements_whose_halves_are_equal() {
    let gpu = gpu_or_skip!();
    // 1001 elements: an odd count, so a fill of the wrong length shows at the end.
    let mut x = gpu.upload(&vec![1.25f64; 1001]);
    let mut i = gpu.upload(&vec![7i64; 1001]);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (xb, ib) = (g.bind_mut(&mut x).unwrap(), g.bind_mut(&mut i).unwrap());
    let zero = g.add_memset("zero", &[], xb, 0.0f64).unwrap();
    let ones = g.add_memset("ones", &[], ib, -1i64).unwrap();
    // Halves that differ: refused when added, naming the node.
    let e = g.add_memset("half", &[&zero], xb, 1.5f64).unwrap_err();
    assert!(e.to_string().contains("node `half`"), "{e}");
    assert!(e.to_string().contains("two different 4-byte halves"), "{e}");
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(xb).unwrap()), vec![0.0f64; 1001]);
    assert_eq!(gpu.read(exec.buffer(ib).unwrap()), vec![-1i64; 1001]);
    assert_eq!(exec.node(zero).unwrap().len(), 1001);
    // A setter: equal halves (all ones: NaN as f64) are sent; unequal ones leave the node as it was.
    let all_ones = f64::from_bits(u64::MAX);
    exec.node(zero).unwrap().set_value(all_ones).unwrap();
    let e = exec.node(ones).unwrap().set_value(5).unwrap_err();
    assert!(e.to_string().contains("node `ones`"), "{e}");
    gpu.stream
        .memcpy_htod(&[3i64; 1001], &mut exec.buffer_mut(ib).unwrap())
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(xb).unwrap());
    assert!(
        got.iter().all(|v| v.to_bits() == u64::MAX),
        "{:?}",
        &got[..4]
    );
    assert_eq!(gpu.read(exec.buffer(ib).unwrap()), vec![-1i64; 1001]);
}

#[test]
fn memcpy_nodes_copy_host_to_device_device_to_device_and_device_to_host() {
    let gpu = gpu_or_skip!();
    let input: Vec<u32> = (0..N as u32).map(|i| i * 7 + 3).collect();
    let mut staged = gpu.poisoned(N);
    let mut copy = gpu.poisoned(N);
    let mut output = vec![POISON; N];
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let inb = g.bind_host(&input);
    let sb = g.bind_mut(&mut staged).unwrap();
    let cb = g.bind_mut(&mut copy).unwrap();
    let ob = g.bind_host_mut(&mut output);
    let h2d = g.add_memcpy("h2d", &[], sb, inb).unwrap();
    let d2d = g.add_memcpy("d2d", &[&h2d], cb, sb).unwrap();
    g.add_memcpy("d2h", &[&d2d], ob, cb).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(exec.host(ob).unwrap(), &input[..]);
    assert_eq!(gpu.read(exec.buffer(sb).unwrap()), input);
    drop(exec);
    assert_eq!(output, input);
}

#[test]
fn memcpy_len_copies_a_prefix() {
    let gpu = gpu_or_skip!();
    let src = gpu.upload(&(0..100u32).collect::<Vec<_>>());
    let mut dst = gpu.poisoned(100);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let sb = g.bind(&src).unwrap();
    let db = g.bind_mut(&mut dst).unwrap();
    g.add_memcpy_len("head", &[], db, sb, 10).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(db).unwrap());
    assert_eq!(&got[..10], &(0..10u32).collect::<Vec<_>>()[..]);
    assert!(got[10..].iter().all(|&v| v == POISON));
}

#[test]
fn host_nodes_run_in_dependency_order_every_launch() {
    let gpu = gpu_or_skip!();
    let log = Mutex::new(Vec::new());
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let first = g
        .add_host("first", &[], || log.lock().unwrap().push(1))
        .unwrap();
    g.add_host("second", &[&first], || log.lock().unwrap().push(2))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    for _ in 0..3 {
        exec.launch(&gpu.stream).unwrap();
    }
    exec.synchronize().unwrap();
    drop(exec);
    assert_eq!(*log.lock().unwrap(), vec![1, 2, 1, 2, 1, 2]);
}

#[test]
fn host_node_runs_after_the_kernel_it_depends_on() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut seen = vec![POISON; N];
    let copies = AtomicU32::new(0);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let sb = g.bind_host_mut(&mut seen);
    let k = g
        .add_kernel("iota", &[], &iota, cfg(N), (yb, 40u32, N as u32))
        .unwrap();
    let c = g.add_memcpy("back", &[&k], sb, yb).unwrap();
    g.add_host("count", &[&c], || {
        copies.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    assert_eq!(copies.load(Ordering::Relaxed), 1);
    let host = exec.host(sb).unwrap();
    assert!(host.iter().enumerate().all(|(i, &v)| v == 40 + i as u32));
}

#[test]
fn child_graph_shares_the_parents_buffers() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let affine = gpu.f("affine_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut child = g.child_graph().unwrap();
    child
        .add_kernel(
            "double_plus_one",
            &[],
            &affine,
            cfg(N),
            (yb, 2u32, 1u32, N as u32),
        )
        .unwrap();
    let start = g
        .add_kernel("start", &[], &iota, cfg(N), (yb, 10u32, N as u32))
        .unwrap();
    let sub = g.add_child("sub", &[&start], child).unwrap();
    g.add_kernel("end", &[&sub], &affine, cfg(N), (yb, 1u32, 5u32, N as u32))
        .unwrap();
    assert_eq!(g.topology().kind(sub.id().index() as u32), NodeKind::Child);
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, (10 + i as u32) * 2 + 1 + 5, "element {i}");
    }
}

#[test]
fn empty_join_orders_a_diamond() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let lin = gpu.f("lincomb_u32");
    let (mut t, mut l, mut r, mut out) = (
        gpu.poisoned(N),
        gpu.poisoned(N),
        gpu.poisoned(N),
        gpu.poisoned(N),
    );
    let n = N as u32;
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (tb, lb, rb, ob) = (
        g.bind_mut(&mut t).unwrap(),
        g.bind_mut(&mut l).unwrap(),
        g.bind_mut(&mut r).unwrap(),
        g.bind_mut(&mut out).unwrap(),
    );
    let top = g
        .add_kernel("top", &[], &iota, cfg(N), (tb, 100u32, n))
        .unwrap();
    let left = g
        .add_kernel(
            "left",
            &[&top],
            &lin,
            cfg(N),
            (tb.read(), 3u32, tb.read(), 0u32, lb, n),
        )
        .unwrap();
    let right = g
        .add_kernel(
            "right",
            &[&top],
            &lin,
            cfg(N),
            (tb.read(), 5u32, tb.read(), 0u32, rb, n),
        )
        .unwrap();
    let join = g.add_empty("join", &[&left, &right]).unwrap();
    g.add_kernel(
        "bottom",
        &[&join],
        &lin,
        cfg(N),
        (lb.read(), 1u32, rb.read(), 2u32, ob, n),
    )
    .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(ob).unwrap());
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, 13 * (100 + i as u32), "element {i}");
    }
}

/// Dependencies given as node indices (what `cuda_graph!` generates) are checked like handles:
/// an index past the last node or a repeated one is an error, and the graph is left as it was.
#[test]
fn dependencies_by_index_are_checked() {
    let gpu = gpu_or_skip!();
    let (iota, affine) = (gpu.f("iota_u32"), gpu.f("affine_u32"));
    let mut y = gpu.poisoned(N);
    let n = N as u32;
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    g.add_kernel_after("fill", &[], &iota, cfg(N), (yb, 7u32, n))
        .unwrap();
    let e = g
        .add_kernel_after("past", &[1], &affine, cfg(N), (yb, 2u32, 0u32, n))
        .unwrap_err();
    assert!(
        matches!(&e, BuildError::UnknownDependency { node, index: 1, len: 1 } if node == "past"),
        "{e}"
    );
    let e = g
        .add_kernel_after("twice", &[0, 0], &affine, cfg(N), (yb, 2u32, 0u32, n))
        .unwrap_err();
    assert!(
        matches!(&e, BuildError::RepeatedDependency { node, dependency } if node == "twice" && dependency == "fill"),
        "{e}"
    );
    assert_eq!(g.len(), 1);
    g.add_kernel_after("scale", &[0], &affine, cfg(N), (yb, 3u32, 1u32, n))
        .unwrap();
    assert_eq!(g.topology().edges(), &[(0, 1)]);
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    assert_eq!(got, (0..n).map(|i| (7 + i) * 3 + 1).collect::<Vec<_>>());
}

/// About 50 ms of spinning on one GPU thread.
const SPIN: u64 = 100_000_000;

#[test]
fn event_record_node_records_after_its_dependencies() {
    let gpu = gpu_or_skip!();
    let spin = gpu.f("spin");
    let done = gpu.ctx.new_event(None).unwrap();
    let ran = AtomicU32::new(0);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let k = g
        .add_kernel("spin", &[], &spin, LaunchConfig::for_num_elems(1), (SPIN,))
        .unwrap();
    let h = g
        .add_host("mark", &[&k], || {
            ran.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    g.add_event_record("done", &[&h], &done).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    // The host waits on the event alone: it completes only once the graph recorded it.
    done.synchronize().unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    exec.synchronize().unwrap();
}

#[test]
fn event_wait_node_waits_for_work_recorded_elsewhere() {
    let gpu = gpu_or_skip!();
    let spin = gpu.f("spin");
    let producer = gpu.ctx.new_stream().unwrap();
    let consumer = gpu.ctx.new_stream().unwrap();
    let ready = gpu.ctx.new_event(None).unwrap();
    let produced = AtomicU32::new(0);
    let seen = AtomicU32::new(u32::MAX);
    // Producer: spin, then mark, then record `ready`.
    let mut p = Graph::new(&gpu.ctx).unwrap();
    let k = p
        .add_kernel("spin", &[], &spin, LaunchConfig::for_num_elems(1), (SPIN,))
        .unwrap();
    let mark = p
        .add_host("mark", &[&k], || {
            produced.store(1, Ordering::SeqCst);
        })
        .unwrap();
    p.add_event_record("ready", &[&mark], &ready).unwrap();
    // Consumer: wait for `ready`, then look at the mark.
    let mut c = Graph::new(&gpu.ctx).unwrap();
    let w = c.add_event_wait("wait", &[], &ready).unwrap();
    c.add_host("look", &[&w], || {
        seen.store(produced.load(Ordering::SeqCst), Ordering::SeqCst);
    })
    .unwrap();
    let mut p = p.instantiate().unwrap();
    let mut c = c.instantiate().unwrap();
    p.launch(&producer).unwrap();
    c.launch(&consumer).unwrap();
    c.synchronize().unwrap();
    p.synchronize().unwrap();
    assert_eq!(
        seen.load(Ordering::SeqCst),
        1,
        "the consumer ran before the producer's mark"
    );
}

#[test]
fn cudarc_reads_see_the_graphs_writes_on_the_same_stream() {
    let gpu = gpu_or_skip!();
    assert!(!gpu.ctx.is_in_multi_stream_mode());
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let k = g
        .add_kernel("iota", &[], &iota, cfg(N), (yb, 3u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    for round in 0..3u32 {
        exec.node(k).unwrap().set_arg::<1>(round * 1000).unwrap();
        exec.launch(&gpu.stream).unwrap();
        let got = gpu.stream.clone_dtoh(exec.buffer(yb).unwrap()).unwrap();
        assert!(got
            .iter()
            .enumerate()
            .all(|(i, &v)| v == round * 1000 + i as u32));
    }
}

#[test]
fn cudarc_reads_on_another_stream_see_the_graphs_writes() {
    let gpu = gpu_or_skip!();
    let launch_stream = gpu.ctx.new_stream().unwrap();
    let read_stream = gpu.ctx.new_stream().unwrap();
    assert!(gpu.ctx.is_managing_stream_synchronization());
    let iota = gpu.f("iota_u32");
    let affine = gpu.f("affine_u32");
    // Allocated after new_stream, so cudarc tracks the buffer with events.
    let mut y = launch_stream.clone_htod(&vec![POISON; N]).unwrap();
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut prev = g
        .add_kernel("iota", &[], &iota, cfg(N), (yb, 5u32, N as u32))
        .unwrap()
        .id();
    // Enough work that an unordered read would see a partial result.
    for i in 0..200u32 {
        prev = g
            .add_kernel(
                &format!("step{i}"),
                &[&prev],
                &affine,
                cfg(N),
                (yb, 1u32, 1u32, N as u32),
            )
            .unwrap()
            .id();
    }
    let mut exec = g.instantiate().unwrap();
    for round in 1..=3u32 {
        exec.launch(&launch_stream).unwrap();
        let got = read_stream.clone_dtoh(exec.buffer(yb).unwrap()).unwrap();
        // iota resets to 5 + i every launch, then 200 steps add 1 each.
        assert!(
            got.iter().enumerate().all(|(i, &v)| v == 205 + i as u32),
            "round {round}"
        );
    }
}

#[test]
fn executable_graph_can_be_sent_to_another_thread() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let k = g
        .add_kernel("iota", &[], &iota, cfg(N), (yb, 9u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    let stream = gpu.stream.clone();
    // A fresh thread has no current context: launch, setters and update bind it themselves.
    let got = std::thread::scope(|s| {
        s.spawn(move || {
            exec.launch(&stream).unwrap();
            let first = stream.clone_dtoh(exec.buffer(yb).unwrap()).unwrap();
            exec.node(k).unwrap().set_arg::<1>(90).unwrap();
            exec.graph_mut().add_empty("later", &[&k]).unwrap();
            assert!(matches!(
                exec.update().unwrap(),
                UpdatePath::Reinstantiated { .. }
            ));
            exec.launch(&stream).unwrap();
            let second = stream.clone_dtoh(exec.buffer(yb).unwrap()).unwrap();
            (first, second)
        })
        .join()
        .unwrap()
    });
    assert!(got.0.iter().enumerate().all(|(i, &v)| v == 9 + i as u32));
    assert!(got.1.iter().enumerate().all(|(i, &v)| v == 90 + i as u32));
}

#[test]
fn instantiate_flags_upload_priority_and_auto_free() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    g.add_kernel("iota", &[], &iota, cfg(N), (yb, 11u32, N as u32))
        .unwrap();
    let opts = Instantiate::new()
        .upload(&gpu.stream)
        .use_node_priority()
        .auto_free_on_launch();
    let mut exec = g.instantiate_with(opts).unwrap();
    exec.upload(&gpu.stream).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    assert!(got.iter().enumerate().all(|(i, &v)| v == 11 + i as u32));
    // An in-place update keeps working under these flags.
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
}

#[test]
fn dot_output_uses_the_given_names() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap().with_name("demo");
    let yb = g.bind_mut(&mut y).unwrap();
    let k = g
        .add_kernel("make_iota", &[], &iota, cfg(N), (yb, 1u32, N as u32))
        .unwrap();
    g.add_host("report", &[&k], || {}).unwrap();
    let dot = g.to_dot();
    assert!(dot.starts_with("digraph \"demo\" {"), "{dot}");
    assert!(
        dot.contains("\"make_iota\" [label=\"make_iota\\nkernel\", shape=box];"),
        "{dot}"
    );
    assert!(dot.contains("\"make_iota\" -> \"report\";"), "{dot}");
    let path = std::env::temp_dir().join(format!("cuda-graph-dot-{}.dot", std::process::id()));
    g.debug_dot_print(&path, true).unwrap();
    let driver_dot = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert!(driver_dot.contains("digraph"), "{driver_dot}");
}
