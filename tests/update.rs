//! The update ladder (setter, whole-graph update, re-instantiation), large graphs, and faults.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::POISON;
use cuda_graph::{
    error::{BuildError, EditError, HandleError, LaunchError, Role, UpdateRefusal},
    exec::UpdatePath,
    Graph, LaunchConfig,
};

const N: usize = 1024;

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

/// `e` is the panic of host node `node` with `message`.
#[track_caller]
fn assert_panicked(e: &LaunchError, node: &str, message: &str) {
    assert!(
        matches!(e, LaunchError::HostCallbackPanicked { node: n, message: m }
            if n == node && m == message),
        "{e}"
    );
}

fn iota(base: u32, n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| base + i).collect()
}

#[test]
fn chain_of_1000_kernels_runs_in_order() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_u32");
    let mut y = gpu.upload(&iota(1, N));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut prev: Option<cuda_graph::node::NodeId> = None;
    let mut nodes = Vec::new();
    for k in 0..1000u32 {
        let deps: Vec<&dyn cuda_graph::node::Dep> = prev
            .iter()
            .map(|p| p as &dyn cuda_graph::node::Dep)
            .collect();
        // y = y * 3 + k: not commutative, so any reordering changes the result.
        let node = g
            .add_kernel(
                &format!("k{k}"),
                &deps,
                &affine,
                cfg(N),
                (yb, 3u32, k, N as u32),
            )
            .unwrap();
        prev = Some(node.id());
        nodes.push(node);
    }
    assert_eq!(g.topology().edges().len(), 999);
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let expect = |mut v: u32, muls: &dyn Fn(u32) -> u32| {
        for k in 0..1000u32 {
            v = v.wrapping_mul(muls(k)).wrapping_add(k);
        }
        v
    };
    let got = gpu.read(exec.buffer(yb).unwrap());
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, expect(1 + i as u32, &|_| 3), "element {i}");
    }
    // A setter in the middle of the chain.
    exec.node(nodes[500]).unwrap().set_arg::<1>(5).unwrap();
    gpu.stream
        .memcpy_htod(&iota(1, N), &mut exec.buffer_mut(yb).unwrap())
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    let mul = |k| if k == 500 { 5 } else { 3 };
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, expect(1 + i as u32, &mul), "element {i}");
    }
}

#[test]
fn update_ladder_setter_then_in_place_then_reinstantiation() {
    let gpu = gpu_or_skip!();
    let iota_k = gpu.f("iota_u32");
    let affine = gpu.f("affine_u32");
    let mut y = gpu.poisoned(N);
    let mut z = gpu.poisoned(N);
    let n = N as u32;
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let zb = g.bind_mut(&mut z).unwrap();
    let fill = g
        .add_kernel("fill", &[], &iota_k, cfg(N), (yb, 0u32, n))
        .unwrap();
    let scale = g
        .add_kernel("scale", &[&fill], &affine, cfg(N), (yb, 2u32, 0u32, n))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    let run = |exec: &mut cuda_graph::GraphExec<'_>| {
        exec.launch(&gpu.stream).unwrap();
        gpu.read(exec.buffer(yb).unwrap())
    };
    assert_eq!(run(&mut exec), (0..n).map(|i| 2 * i).collect::<Vec<_>>());

    // 1. Setter on the executable graph.
    exec.node(fill).unwrap().set_arg::<1>(10).unwrap();
    assert_eq!(
        run(&mut exec),
        (0..n).map(|i| 2 * (10 + i)).collect::<Vec<_>>()
    );

    // 2. Whole-graph update from an edited template, in place. The setter above survives it.
    exec.graph_mut()
        .node(scale)
        .unwrap()
        .set_arg::<1>(3)
        .unwrap();
    assert_eq!(
        run(&mut exec),
        (0..n).map(|i| 2 * (10 + i)).collect::<Vec<_>>(),
        "template edits wait for update()"
    );
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
    assert_eq!(
        run(&mut exec),
        (0..n).map(|i| 3 * (10 + i)).collect::<Vec<_>>()
    );

    // 3. A topology change: the driver refuses in place, the runtime re-instantiates.
    let g = exec.graph_mut();
    let copy = g.add_memcpy("copy", &[&scale], zb, yb).unwrap();
    assert!(matches!(
        exec.node(copy),
        Err(EditError::NotInstantiated { ref node }) if node == "copy"
    ));
    let path = exec.update().unwrap();
    assert!(
        matches!(
            path,
            UpdatePath::Reinstantiated {
                reason: UpdateRefusal::TopologyChanged,
                ..
            }
        ),
        "{path:?}"
    );
    assert_eq!(
        run(&mut exec),
        (0..n).map(|i| 3 * (10 + i)).collect::<Vec<_>>()
    );
    assert_eq!(
        gpu.read(exec.buffer(zb).unwrap()),
        (0..n).map(|i| 3 * (10 + i)).collect::<Vec<_>>()
    );
    // Handles keep working after re-instantiation, and the new node is editable.
    exec.node(fill).unwrap().set_arg::<1>(100).unwrap();
    exec.node(copy).unwrap().disable().unwrap();
    assert_eq!(
        run(&mut exec),
        (0..n).map(|i| 3 * (100 + i)).collect::<Vec<_>>()
    );
    assert_eq!(
        gpu.read(exec.buffer(zb).unwrap()),
        (0..n).map(|i| 3 * (10 + i)).collect::<Vec<_>>(),
        "the disabled copy did not run"
    );
}

#[test]
fn disabled_nodes_stay_disabled_across_updates() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_u32");
    let mut y = gpu.upload(&iota(0, N));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let a = g
        .add_kernel("plus1", &[], &affine, cfg(N), (yb, 1u32, 1u32, N as u32))
        .unwrap();
    let b = g
        .add_kernel(
            "plus10",
            &[&a],
            &affine,
            cfg(N),
            (yb, 1u32, 10u32, N as u32),
        )
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.node(b).unwrap().disable().unwrap();
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(1, N));
    exec.graph_mut().add_empty("extra", &[&b]).unwrap();
    assert!(matches!(
        exec.update().unwrap(),
        UpdatePath::Reinstantiated { .. }
    ));
    assert!(!exec.node(b).unwrap().is_enabled());
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(2, N));
}

#[test]
fn removing_an_edge_is_a_topology_change() {
    let gpu = gpu_or_skip!();
    let iota_k = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut z = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let zb = g.bind_mut(&mut z).unwrap();
    let a = g
        .add_kernel("a", &[], &iota_k, cfg(N), (yb, 1u32, N as u32))
        .unwrap();
    let b = g
        .add_kernel("b", &[&a], &iota_k, cfg(N), (zb, 2u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.graph_mut().remove_edge(&a, &b).unwrap();
    assert!(matches!(
        exec.update().unwrap(),
        UpdatePath::Reinstantiated { .. }
    ));
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(1, N));
    assert_eq!(gpu.read(exec.buffer(zb).unwrap()), iota(2, N));
    assert!(exec.graph().topology().edges().is_empty());
}

#[test]
fn edge_errors_name_the_nodes_and_leave_the_graph_usable() {
    let gpu = gpu_or_skip!();
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let a = g.add_empty("a", &[]).unwrap();
    let b = g.add_empty("b", &[&a]).unwrap();
    let c = g.add_empty("c", &[&b]).unwrap();
    assert_eq!(
        g.add_edge(&c, &a).unwrap_err().to_string(),
        "the edge `c -> a` would close a cycle: c -> a -> b -> c"
    );
    assert_eq!(
        g.add_edge(&a, &b).unwrap_err().to_string(),
        "the edge `a -> b` exists already"
    );
    assert_eq!(
        g.add_edge(&b, &b).unwrap_err().to_string(),
        "node `b` cannot depend on itself"
    );
    assert_eq!(
        g.add_empty("b", &[]).unwrap_err().to_string(),
        "a node named `b` already exists in this graph; node names must be unique"
    );
    g.add_edge(&a, &c).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
}

#[test]
fn handles_from_another_graph_are_rejected() {
    let gpu = gpu_or_skip!();
    let mut y = gpu.poisoned(N);
    let mut z = gpu.poisoned(N);
    let mut g1 = Graph::new(&gpu.ctx).unwrap();
    let mut g2 = Graph::new(&gpu.ctx).unwrap();
    let y1 = g1.bind_mut(&mut y).unwrap();
    let z2 = g2.bind_mut(&mut z).unwrap();
    let m1 = g1.add_memset("m", &[], y1, 1u32).unwrap();
    let m2 = g2.add_memset("m", &[], z2, 2u32).unwrap();
    assert!(matches!(
        g2.add_memset("x", &[], y1, 1u32),
        Err(BuildError::Handle(HandleError::Foreign { what: "buffer" }))
    ));
    assert!(matches!(
        g2.add_empty("x", &[&m1]),
        Err(BuildError::Handle(HandleError::Foreign { what: "node" }))
    ));
    let mut e1 = g1.instantiate().unwrap();
    assert!(matches!(
        e1.node(m2),
        Err(EditError::Handle(HandleError::Foreign { what: "node" }))
    ));
    assert!(matches!(
        e1.node(m1).unwrap().set_dst(z2),
        Err(EditError::Handle(HandleError::Foreign { what: "buffer" }))
    ));
    e1.launch(&gpu.stream).unwrap();
    assert!(gpu.read(e1.buffer(y1).unwrap()).iter().all(|&v| v == 1));
}

#[test]
fn child_and_parent_buffer_handles_never_alias() {
    let gpu = gpu_or_skip!();
    let (mut y, mut z, mut w) = (gpu.poisoned(N), gpu.poisoned(N), gpu.poisoned(N));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut child = g.child_graph().unwrap();
    let zb = child.bind_mut(&mut z).unwrap();
    // Bound by the parent after the child was made: same index as `zb`, another graph.
    let wb = g.bind_mut(&mut w).unwrap();
    assert!(matches!(
        child.add_memset("w", &[], wb, 1u32),
        Err(BuildError::Handle(HandleError::Foreign { what: "buffer" }))
    ));
    assert!(matches!(
        g.add_memset("z", &[], zb, 1u32),
        Err(BuildError::Handle(HandleError::Foreign { what: "buffer" }))
    ));
    child.add_memset("y", &[], yb, 7u32).unwrap();
    child.add_memset("z", &[], zb, 8u32).unwrap();
    g.add_memset("w", &[], wb, 9u32).unwrap();
    g.add_child("child", &[], child).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.buffer(yb).unwrap()).iter().all(|&v| v == 7));
    assert!(gpu.read(exec.buffer(wb).unwrap()).iter().all(|&v| v == 9));
    // The child's own buffer is reached through the child, not the parent's executable graph.
    assert!(exec.buffer(zb).is_err());
    drop(exec);
    assert!(gpu.read(&z).iter().all(|&v| v == 8));
}

#[test]
fn panicking_host_callback_is_an_error_and_the_process_goes_on() {
    let gpu = gpu_or_skip!();
    let iota_k = gpu.f("iota_u32");
    let calls = AtomicU32::new(0);
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let h = g
        .add_host("boom", &[], || {
            if calls.fetch_add(1, Ordering::SeqCst) == 1 {
                panic!("second call fails");
            }
        })
        .unwrap();
    g.add_kernel("after", &[&h], &iota_k, cfg(N), (yb, 4u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let e = exec.synchronize().unwrap_err();
    assert_panicked(&e, "boom", "second call fails");
    assert_eq!(
        e.to_string(),
        "host callback `boom` panicked: second call fails"
    );
    // Reported once; the graph keeps working.
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(4, N));
}

#[test]
fn a_panic_is_reported_by_the_next_launch() {
    let gpu = gpu_or_skip!();
    let mut g = Graph::new(&gpu.ctx).unwrap();
    g.add_host("always", &[], || panic!("nope")).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    gpu.stream.synchronize().unwrap();
    assert!(matches!(
        exec.launch(&gpu.stream),
        Err(LaunchError::HostCallbackPanicked { .. })
    ));
    exec.launch(&gpu.stream).unwrap();
    assert!(exec.synchronize().is_err());
}

#[test]
fn panics_of_a_child_graph_and_of_a_callback_set_on_the_executable_graph_are_reported() {
    let gpu = gpu_or_skip!();
    let iota_k = gpu.f("iota_u32");
    let (inner_calls, set_calls) = (AtomicU32::new(0), AtomicU32::new(0));
    let mut y = gpu.poisoned(N);
    // The parent has no host node of its own (so no slot of its own for panics): a panic in
    // its child's host node is reported all the same.
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut child = g.child_graph().unwrap();
    child
        .add_host("inner", &[], || {
            if inner_calls.fetch_add(1, Ordering::SeqCst) == 0 {
                panic!("in the child");
            }
        })
        .unwrap();
    let c = g.add_child("child", &[], child).unwrap();
    g.add_kernel("after", &[&c], &iota_k, cfg(N), (yb, 3u32, N as u32))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let e = exec.synchronize().unwrap_err();
    assert_panicked(&e, "inner", "in the child");
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(3, N));

    // A closure set on an executable graph's view reports its panic under the node's name.
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let h = g.add_host("tick", &[], || {}).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    exec.node(h)
        .unwrap()
        .set_callback(|| {
            if set_calls.fetch_add(1, Ordering::SeqCst) == 0 {
                panic!("set on the executable graph");
            }
        })
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    let e = exec.synchronize().unwrap_err();
    assert_panicked(&e, "tick", "set on the executable graph");
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    assert_eq!(set_calls.load(Ordering::SeqCst), 2);
}

#[test]
fn too_short_memcpy_buffers_are_rejected_before_any_driver_call() {
    let gpu = gpu_or_skip!();
    let src = gpu.upload(&iota(0, N));
    let mut dst = gpu.poisoned(N - 1);
    let empty = gpu.ctx.default_stream().null::<u32>().unwrap();
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let sb = g.bind(&src).unwrap();
    let db = g.bind_mut(&mut dst).unwrap();
    let eb = g.bind(&empty).unwrap();
    let e = g.add_memcpy("copy", &[], db, sb).unwrap_err();
    assert!(
        matches!(e, BuildError::BufferTooShort { ref node, role: Role::Destination, len, needed }
            if node == "copy" && len == N - 1 && needed == N),
        "{e}"
    );
    assert!(matches!(
        g.add_memcpy("copy", &[], db, eb),
        Err(BuildError::EmptyBuffer {
            role: Role::Source,
            ..
        })
    ));
    assert!(g.is_empty());
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu
        .read(exec.buffer(db).unwrap())
        .iter()
        .all(|&v| v == POISON));
}

#[test]
fn fan_out_of_1000_kernels_then_fan_in() {
    let gpu = gpu_or_skip!();
    let iota_at = gpu.f("iota_at");
    let affine = gpu.f("affine_u32");
    const W: u32 = 1000;
    const M: u32 = 64;
    let total = (W * M) as usize;
    let mut y = gpu.poisoned(total);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let root = g.add_memset("clear", &[], yb, 0u32).unwrap();
    let mut leaves = Vec::new();
    for w in 0..W {
        // Each node writes its own slice of M elements.
        let node = g
            .add_kernel(
                &format!("w{w}"),
                &[&root],
                &iota_at,
                cfg(M as usize),
                (yb, w * M, M, w),
            )
            .unwrap();
        leaves.push(node);
    }
    let deps: Vec<&dyn cuda_graph::node::Dep> = leaves
        .iter()
        .map(|l| l as &dyn cuda_graph::node::Dep)
        .collect();
    let join = g.add_empty("join", &deps).unwrap();
    g.add_kernel(
        "finish",
        &[&join],
        &affine,
        cfg(total),
        (yb, 2u32, 1u32, total as u32),
    )
    .unwrap();
    assert_eq!(g.topology().edges().len(), 2 * W as usize + 1);
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    for w in 0..W {
        for i in 0..M {
            let idx = (w * M + i) as usize;
            assert_eq!(got[idx], 2 * (w + i) + 1, "node w{w} element {i}");
        }
    }
}

/// Closures swapped on the template reach the executable graph by whole-graph updates, each
/// kept alive there: two swaps, each followed by an update in place and launches; an update
/// that brings no new closure (a kernel argument edited) in between; the closures the graph
/// no longer calls let go once the launches are waited for.
#[test]
fn closures_swapped_on_the_template_survive_updates() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_u32");
    let counts = [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)];
    let mut y = gpu.upload(&iota(1, N));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let k = g
        .add_kernel("k", &[], &affine, cfg(N), (yb, 1u32, 0u32, N as u32))
        .unwrap();
    let h = g
        .add_host("tick", &[&k], || {
            counts[0].fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    for (which, add) in [(1usize, 10u32), (2, 100)] {
        let c = &counts[which];
        exec.graph_mut()
            .node(h)
            .unwrap()
            .set_callback(move || {
                c.fetch_add(add, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
        exec.launch(&gpu.stream).unwrap();
        // An update with no new closure to keep: the kernel's `add`.
        exec.graph_mut()
            .node(k)
            .unwrap()
            .set_arg::<2>(which as u32)
            .unwrap();
        assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
    }
    let got = counts.each_ref().map(|c| c.load(Ordering::Relaxed));
    assert_eq!(got, [1, 20, 200]);
    // The kernel ran five times (y = y * 1 + add): adding 0, 0, 1, 1, 2.
    assert_eq!(gpu.read(exec.buffer(yb).unwrap()), iota(1 + 4, N));
}
