//! Graph-owned memory built with the runtime API: allocation and free nodes around the nodes
//! that use it, exact values copied out of it, the footprint, and the errors.

mod common;

use common::POISON;
use cuda_graph::{
    error::{AccessError, BuildError, HandleError},
    Graph, LaunchConfig,
};

const N: usize = 3000;

fn cfg() -> LaunchConfig {
    LaunchConfig::for_num_elems(N as u32)
}

#[test]
fn temporaries_live_between_their_alloc_and_free_nodes() {
    let gpu = gpu_or_skip!();
    let (iota, affine, lincomb) = (gpu.f("iota_u32"), gpu.f("affine_u32"), gpu.f("lincomb_u32"));
    let mut out = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let ob = g.bind_mut(&mut out).unwrap();
    let n = N as u32;
    // t = iota(7); t = 3t + 1; u = iota(100); out = 2t + 5u; t and u freed after.
    let (at, t) = g.add_mem_alloc::<u32>("alloc_t", &[], N).unwrap();
    let fill = g
        .add_kernel("fill", &[&at], &iota, cfg(), (t, 7u32, n))
        .unwrap();
    let scale = g
        .add_kernel("scale", &[&fill], &affine, cfg(), (t, 3u32, 1u32, n))
        .unwrap();
    let (au, u) = g.add_mem_alloc::<u32>("alloc_u", &[], N).unwrap();
    let fill_u = g
        .add_kernel("fill_u", &[&au], &iota, cfg(), (u, 100u32, n))
        .unwrap();
    let mix = g
        .add_kernel(
            "mix",
            &[&scale, &fill_u],
            &lincomb,
            cfg(),
            (t.read(), 2u32, u.read(), 5u32, ob, n),
        )
        .unwrap();
    g.add_mem_free("free_t", &[&mix], t).unwrap();
    g.add_mem_free("free_u", &[&mix], u).unwrap();
    assert_eq!(g.temporary_bytes(), 2 * N * 4);
    assert!(g.to_dot().contains("mem alloc"));

    let mut exec = g.instantiate().unwrap();
    for round in 0..3u32 {
        exec.buffer_mut(ob).unwrap();
        gpu.stream
            .memcpy_htod(&vec![POISON; N], &mut exec.buffer_mut(ob).unwrap())
            .unwrap();
        exec.launch(&gpu.stream).unwrap();
        let got = gpu.read(exec.buffer(ob).unwrap());
        for i in 0..N as u32 {
            let t = 3 * (7 + i) + 1;
            let u = 100 + i;
            assert_eq!(got[i as usize], 2 * t + 5 * u, "round {round}, element {i}");
        }
    }
    // A setter on a node that uses graph-owned memory.
    exec.node(scale).unwrap().set_arg::<1>(4).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(ob).unwrap());
    assert_eq!(got[10], 2 * (4 * 17 + 1) + 5 * 110);
    // Graph-owned memory cannot be reached from the host.
    assert!(matches!(
        exec.buffer(t),
        Err(AccessError::Handle(HandleError::GraphOwned))
    ));

    // A template edit: updated in place.
    exec.graph_mut()
        .node(scale)
        .unwrap()
        .set_arg::<2>(2)
        .unwrap();
    assert_eq!(
        exec.update().unwrap(),
        cuda_graph::exec::UpdatePath::InPlace
    );
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(ob).unwrap())[10],
        2 * (4 * 17 + 2) + 5 * 110
    );
    // A topology change needs a new instantiation, which CUDA refuses while this one lives:
    // a clear error, and the executable graph still runs; then instantiated again.
    exec.graph_mut().add_edge(&fill, &fill_u).unwrap();
    let e = exec.update().unwrap_err();
    assert!(
        matches!(e, cuda_graph::error::UpdateError::MemoryNodes { .. }),
        "{e}"
    );
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(ob).unwrap())[10],
        2 * (4 * 17 + 2) + 5 * 110
    );
    // A node added and a kernel edited on the template side: refused the same way, and the
    // executable graph keeps its own parameters (it has fewer nodes than the template now).
    exec.graph_mut()
        .node(scale)
        .unwrap()
        .set_arg::<1>(9)
        .unwrap();
    exec.graph_mut().add_empty("after_mix", &[&mix]).unwrap();
    let e = exec.update().unwrap_err();
    assert!(
        matches!(e, cuda_graph::error::UpdateError::MemoryNodes { .. }),
        "{e}"
    );
    gpu.stream
        .memcpy_htod(&vec![POISON; N], &mut exec.buffer_mut(ob).unwrap())
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(ob).unwrap())[10],
        2 * (4 * 17 + 2) + 5 * 110
    );
    let mut exec = exec.into_graph().instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(ob).unwrap())[10],
        2 * (9 * 17 + 2) + 5 * 110
    );
}

#[test]
fn misuse_of_graph_owned_memory_is_an_error() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let mut y = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let e = g.add_mem_alloc::<u32>("none", &[], 0).unwrap_err();
    assert!(matches!(e, BuildError::EmptyAllocation { .. }), "{e}");
    let e = g.add_mem_free("free_y", &[], yb).unwrap_err();
    assert!(
        matches!(e, BuildError::Handle(HandleError::NotGraphOwned)),
        "{e}"
    );

    // Not inside a conditional body, not inside a child graph.
    let c = g.add_condition(0).unwrap();
    let (_, body) = g.add_if("maybe", &[], c).unwrap();
    let e = g
        .in_body(body, |g| g.add_mem_alloc::<u32>("inner", &[], 4))
        .unwrap_err();
    assert!(matches!(e, BuildError::NotInBody { .. }), "{e}");
    let mut child = g.child_graph().unwrap();
    let (a, t) = child.add_mem_alloc::<u32>("a", &[], N).unwrap();
    let k = child
        .add_kernel("k", &[&a], &iota, cfg(), (t, 1u32, N as u32))
        .unwrap();
    child.add_mem_free("f", &[&k], t).unwrap();
    let e = g.add_child("sub", &[], child).unwrap_err();
    assert!(matches!(e, BuildError::MemoryNodesInChild { .. }), "{e}");
}
