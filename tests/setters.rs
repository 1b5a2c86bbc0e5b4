//! Every typed setter of the executable graph (and of the template), checked by exact values
//! read back after a launch; failed setters leave the graph as it was.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::POISON;
use cuda_graph::{
    error::{EditError, Role},
    Graph, LaunchConfig,
};

const N: usize = 2048;

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

fn iota(base: u32, n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| base + i).collect()
}

#[test]
fn kernel_set_args_and_set_arg() {
    let gpu = gpu_or_skip!();
    let lin = gpu.f("lincomb_u32");
    let a = gpu.upload(&iota(1, N));
    let b = gpu.upload(&iota(1000, N));
    let mut out = gpu.poisoned(N);
    let mut other = gpu.poisoned(N);
    let n = N as u32;
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (ab, bb) = (g.bind(&a).unwrap(), g.bind(&b).unwrap());
    let (ob, xb) = (
        g.bind_mut(&mut out).unwrap(),
        g.bind_mut(&mut other).unwrap(),
    );
    let k = g
        .add_kernel("lin", &[], &lin, cfg(N), (ab, 2u32, bb, 3u32, ob, n))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    let check = |exec: &mut cuda_graph::GraphExec<'_>, buf, f: &dyn Fn(u32) -> u32| {
        exec.launch(&gpu.stream).unwrap();
        let got = gpu.read(exec.buffer(buf).unwrap());
        for (i, v) in got.iter().enumerate() {
            assert_eq!(*v, f(i as u32), "element {i}");
        }
    };
    check(&mut exec, ob, &|i| 2 * (1 + i) + 3 * (1000 + i));
    // One scalar argument.
    exec.node(k).unwrap().set_arg::<1>(5).unwrap();
    check(&mut exec, ob, &|i| 5 * (1 + i) + 3 * (1000 + i));
    // One buffer argument: swap the two inputs.
    exec.node(k).unwrap().set_arg::<0>(bb).unwrap();
    exec.node(k).unwrap().set_arg::<2>(ab).unwrap();
    check(&mut exec, ob, &|i| 5 * (1000 + i) + 3 * (1 + i));
    // All at once, writing to the other output.
    exec.node(k)
        .unwrap()
        .set_args((ab, 1, ab, 1, xb, n))
        .unwrap();
    check(&mut exec, xb, &|i| 2 * (1 + i));
    // The first output kept its last values (no stray writes).
    let got = gpu.read(exec.buffer(ob).unwrap());
    assert_eq!(got[3], 5 * 1003 + 3 * 4);
}

#[test]
fn kernel_set_grid_block_shared_mem_and_launch() {
    let gpu = gpu_or_skip!();
    let shape = gpu.f("shape");
    let mut out = gpu.poisoned(8);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let ob = g.bind_mut(&mut out).unwrap();
    let start = LaunchConfig {
        grid_dim: (2, 3, 4),
        block_dim: (8, 4, 2),
        shared_mem_bytes: 0,
    };
    let k = g.add_kernel("shape", &[], &shape, start, (ob,)).unwrap();
    let mut exec = g.instantiate().unwrap();
    let run = |exec: &mut cuda_graph::GraphExec<'_>| {
        exec.launch(&gpu.stream).unwrap();
        gpu.read(exec.buffer(ob).unwrap())
    };
    assert_eq!(run(&mut exec), vec![2, 3, 4, 8, 4, 2, 0, 0]);
    exec.node(k).unwrap().set_grid((5, 1, 2)).unwrap();
    assert_eq!(run(&mut exec), vec![5, 1, 2, 8, 4, 2, 0, 0]);
    exec.node(k).unwrap().set_block((32, 2, 1)).unwrap();
    assert_eq!(run(&mut exec), vec![5, 1, 2, 32, 2, 1, 0, 0]);
    exec.node(k).unwrap().set_shared_mem(4096).unwrap();
    assert_eq!(run(&mut exec), vec![5, 1, 2, 32, 2, 1, 4096, 7]);
    exec.node(k)
        .unwrap()
        .set_launch(LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (64, 1, 1),
            shared_mem_bytes: 256,
        })
        .unwrap();
    assert_eq!(run(&mut exec), vec![1, 1, 1, 64, 1, 1, 256, 7]);
    assert_eq!(exec.node(k).unwrap().launch_config().shared_mem_bytes, 256);
}

#[test]
fn invalid_launch_dimensions_are_errors_naming_the_node_and_change_nothing() {
    let gpu = gpu_or_skip!();
    let shape = gpu.f("shape");
    let mut out = gpu.poisoned(8);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let ob = g.bind_mut(&mut out).unwrap();
    let bad = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (2048, 1, 1),
        shared_mem_bytes: 0,
    };
    let e = g
        .add_kernel("too_big", &[], &shape, bad, (ob,))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "node `too_big`: invalid launch configuration: block x is 2048; it must be between 1 and 1024"
    );
    let bad = LaunchConfig {
        block_dim: (32, 32, 2),
        ..bad
    };
    let e = g
        .add_kernel("too_many", &[], &shape, bad, (ob,))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "node `too_many`: invalid launch configuration: block (32, 32, 2) has 2048 threads; this kernel allows at most 1024 per block"
    );
    assert_eq!(g.len(), 0, "a rejected node is not added");
    let one = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let k = g.add_kernel("shape", &[], &shape, one, (ob,)).unwrap();
    let mut exec = g.instantiate().unwrap();
    for (what, e) in [
        (
            "zero grid",
            exec.node(k).unwrap().set_grid((0, 1, 1)).unwrap_err(),
        ),
        (
            "block z",
            exec.node(k).unwrap().set_block((1, 1, 128)).unwrap_err(),
        ),
        (
            "grid y",
            exec.node(k).unwrap().set_grid((1, 70000, 1)).unwrap_err(),
        ),
        (
            "smem",
            exec.node(k).unwrap().set_shared_mem(1 << 30).unwrap_err(),
        ),
    ] {
        assert!(
            matches!(&e, EditError::InvalidLaunch { node, .. } if node == "shape"),
            "{what}: {e}"
        );
    }
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(ob).unwrap()),
        vec![1, 1, 1, 1, 1, 1, 0, 0]
    );
}

#[test]
fn wrong_argument_count_or_size_is_rejected_before_the_node_exists() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let e = g
        .add_kernel("short", &[], &iota, cfg(N), (yb, 1u32))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "node `short`: the kernel takes 3 parameters but 2 arguments were given"
    );
    let e = g
        .add_kernel("wide", &[], &iota, cfg(N), (yb, 1u64, N as u32))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "node `wide`: argument 1 is 8 bytes but the kernel's parameter 1 is 4 bytes"
    );
    let e = g
        .add_kernel("long", &[], &iota, cfg(N), (yb, 1u32, 2u32, 3u32))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "node `long`: the kernel takes 3 parameters but 4 arguments were given"
    );
    assert_eq!(g.len(), 0);
}

#[test]
fn kernel_enable_disable() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_u32");
    let mut y = gpu.upload(&iota(0, N));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let add1 = g
        .add_kernel("add1", &[], &affine, cfg(N), (yb, 1u32, 1u32, N as u32))
        .unwrap();
    let add100 = g
        .add_kernel(
            "add100",
            &[&add1],
            &affine,
            cfg(N),
            (yb, 1u32, 100u32, N as u32),
        )
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.node(add100).unwrap().disable().unwrap();
    assert!(!exec.node(add100).unwrap().is_enabled());
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(1, N));
    exec.node(add100).unwrap().enable().unwrap();
    exec.node(add1).unwrap().set_enabled(false).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(101, N));
}

#[test]
fn memset_set_value_set_dst_and_disable() {
    let gpu = gpu_or_skip!();
    let mut a = gpu.poisoned(N);
    let mut b = gpu.poisoned(N + 10);
    let mut short = gpu.poisoned(N - 1);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (ab, bb, sb) = (
        g.bind_mut(&mut a).unwrap(),
        g.bind_mut(&mut b).unwrap(),
        g.bind_mut(&mut short).unwrap(),
    );
    let m = g.add_memset("fill", &[], ab, 1u32).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.buffer(ab).unwrap()).iter().all(|&v| v == 1));
    exec.node(m).unwrap().set_value(0x7777_7777).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu
        .read(exec.buffer(ab).unwrap())
        .iter()
        .all(|&v| v == 0x7777_7777));
    exec.node(m).unwrap().set_dst(bb).unwrap();
    exec.node(m).unwrap().set_value(42).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(bb).unwrap());
    assert!(got[..N].iter().all(|&v| v == 42));
    assert!(
        got[N..].iter().all(|&v| v == POISON),
        "only `len` elements are filled"
    );
    assert!(gpu
        .read(exec.buffer(ab).unwrap())
        .iter()
        .all(|&v| v == 0x7777_7777));
    let e = exec.node(m).unwrap().set_dst(sb).unwrap_err();
    assert!(
        matches!(e, EditError::BufferTooShort { ref node, len, needed, role: Role::Destination }
            if node == "fill" && len == N - 1 && needed == N),
        "{e}"
    );
    exec.node(m).unwrap().disable().unwrap();
    exec.node(m).unwrap().set_value(9).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.buffer(bb).unwrap())[..N]
        .iter()
        .all(|&v| v == 42));
    assert!(gpu
        .read(exec.buffer(sb).unwrap())
        .iter()
        .all(|&v| v == POISON));
}

#[test]
fn memcpy_set_src_set_dst_rejects_short_buffers_and_disable() {
    let gpu = gpu_or_skip!();
    let one = gpu.upload(&iota(100, N));
    let two = gpu.upload(&iota(500, N));
    let short_src = gpu.upload(&iota(0, N - 1));
    let mut d1 = gpu.poisoned(N);
    let mut d2 = gpu.poisoned(N);
    let mut host_in = iota(900, N);
    host_in[0] = 1;
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (ob, tb, sb) = (
        g.bind(&one).unwrap(),
        g.bind(&two).unwrap(),
        g.bind(&short_src).unwrap(),
    );
    let (d1b, d2b) = (g.bind_mut(&mut d1).unwrap(), g.bind_mut(&mut d2).unwrap());
    let hb = g.bind_host(&host_in);
    let c = g.add_memcpy("copy", &[], d1b, ob).unwrap();
    let up = g.add_memcpy("upload", &[], d2b, hb).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(d1b).unwrap()), iota(100, N));
    assert_eq!(gpu.read(exec.buffer(d2b).unwrap()), host_in);
    exec.node(c).unwrap().set_src(tb).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(d1b).unwrap()), iota(500, N));
    exec.node(c).unwrap().set_dst(d2b).unwrap();
    exec.node(c).unwrap().set_src(ob).unwrap();
    exec.node(up).unwrap().disable().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(d2b).unwrap()), iota(100, N));
    assert_eq!(gpu.read(exec.buffer(d1b).unwrap()), iota(500, N));
    let e = exec.node(c).unwrap().set_src(sb).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "node `copy`: the source buffer holds {} elements but the node needs {N}; pass a buffer of at least {N} elements",
            N - 1
        )
    );
    // Still copies `one` into `d2` after the rejected edit.
    exec.node(c).unwrap().set_src(tb).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.node(c).unwrap().set_src(ob).unwrap();
    assert!(exec.node(c).unwrap().set_src(sb).is_err());
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(d2b).unwrap()), iota(100, N));
}

#[test]
fn host_set_callback_replaces_the_closure() {
    let gpu = gpu_or_skip!();
    let a = AtomicU32::new(0);
    let b = AtomicU32::new(0);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let h = g
        .add_host("tick", &[], || {
            a.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.node(h)
        .unwrap()
        .set_callback(|| {
            b.fetch_add(10, Ordering::Relaxed);
        })
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    assert_eq!(
        (a.load(Ordering::Relaxed), b.load(Ordering::Relaxed)),
        (2, 10)
    );
}

#[test]
fn child_set_graph_swaps_the_child() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_u32");
    let mut y = gpu.upload(&iota(1, N));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut double = g.child_graph().unwrap();
    double
        .add_kernel("double", &[], &affine, cfg(N), (yb, 2u32, 0u32, N as u32))
        .unwrap();
    let mut plus7 = g.child_graph().unwrap();
    plus7
        .add_kernel("plus7", &[], &affine, cfg(N), (yb, 1u32, 7u32, N as u32))
        .unwrap();
    let c = g.add_child("child", &[], double).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(yb).unwrap()),
        (1..=N as u32).map(|v| 2 * v).collect::<Vec<_>>()
    );
    exec.node(c).unwrap().set_graph(plus7).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(yb).unwrap()),
        (1..=N as u32).map(|v| 2 * v + 7).collect::<Vec<_>>()
    );
    // A child of another shape is refused before any driver call, naming the node.
    let mut two = exec.graph().child_graph().unwrap();
    let first = two
        .add_kernel("a", &[], &affine, cfg(N), (yb, 1u32, 1u32, N as u32))
        .unwrap();
    two.add_kernel("b", &[&first], &affine, cfg(N), (yb, 1u32, 1u32, N as u32))
        .unwrap();
    let e = exec.node(c).unwrap().set_graph(two).unwrap_err();
    assert_eq!(
        e.to_string(),
        "node `child`: the new child graph differs from the one it replaces (2 nodes instead of 1); a child graph can only be swapped for one with the same nodes and edges"
    );
    let mut host = exec.graph().child_graph().unwrap();
    host.add_host("h", &[], || {}).unwrap();
    let e = exec.node(c).unwrap().set_graph(host).unwrap_err();
    assert!(
        e.to_string()
            .contains("(node 0 is a host instead of a kernel)"),
        "{e}"
    );
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(yb).unwrap()),
        (1..=N as u32).map(|v| 2 * v + 14).collect::<Vec<_>>()
    );
}

#[test]
fn event_set_event_on_record_and_wait_nodes() {
    let gpu = gpu_or_skip!();
    let spin = gpu.f("spin");
    let (s1, s2) = (gpu.ctx.new_stream().unwrap(), gpu.ctx.new_stream().unwrap());
    let (unused, ready) = (
        gpu.ctx.new_event(None).unwrap(),
        gpu.ctx.new_event(None).unwrap(),
    );
    let produced = AtomicU32::new(0);
    let seen = AtomicU32::new(u32::MAX);
    let one = LaunchConfig::for_num_elems(1);
    // Both graphs start on `unused`, which nobody records; the setters move them to `ready`.
    let mut p = Graph::new(&gpu.ctx).unwrap();
    let k = p
        .add_kernel("spin", &[], &spin, one, (100_000_000u64,))
        .unwrap();
    let mark = p
        .add_host("mark", &[&k], || produced.store(1, Ordering::SeqCst))
        .unwrap();
    let rec = p.add_event_record("record", &[&mark], &unused).unwrap();
    let mut c = Graph::new(&gpu.ctx).unwrap();
    let w = c.add_event_wait("wait", &[], &unused).unwrap();
    c.add_host("look", &[&w], || {
        seen.store(produced.load(Ordering::SeqCst), Ordering::SeqCst)
    })
    .unwrap();
    let mut p = p.instantiate().unwrap();
    let mut c = c.instantiate().unwrap();
    p.node(rec).unwrap().set_event(&ready).unwrap();
    c.node(w).unwrap().set_event(&ready).unwrap();
    p.launch(&s1).unwrap();
    c.launch(&s2).unwrap();
    c.synchronize().unwrap();
    p.synchronize().unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

#[test]
fn template_setters_reach_a_new_instantiation() {
    let gpu = gpu_or_skip!();
    let iota_k = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut z = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let zb = g.bind_mut(&mut z).unwrap();
    let k = g
        .add_kernel("iota", &[], &iota_k, cfg(N), (yb, 3u32, N as u32))
        .unwrap();
    let m = g.add_memset("clear", &[&k], zb, 5u32).unwrap();
    g.node(k).unwrap().set_arg::<1>(50).unwrap();
    g.node(m).unwrap().set_value(6).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(50, N));
    assert!(gpu.read(exec.buffer(zb).unwrap()).iter().all(|&v| v == 6));
}
