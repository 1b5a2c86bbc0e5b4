//! What a machine without a GPU sees: errors, never panics. Runs everywhere (CI has no GPU).

use cuda_graph::{
    error::NoGpu,
    topology::{NodeKind, Topology},
};

#[test]
fn probing_never_panics_and_agrees_with_context() {
    let probe = cuda_graph::gpu_available();
    let ctx = cuda_graph::context(0);
    assert_eq!(probe.is_ok(), ctx.is_ok(), "{probe:?}");
    if std::env::var("CUDA_GRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
        assert!(probe.is_ok(), "CUDA_GRAPH_REQUIRE_GPU=1 but: {probe:?}");
    }
    if let Err(e) = &probe {
        println!("no GPU here: {e}");
    }
}

#[test]
fn a_missing_driver_library_is_driver_not_found() {
    // SAFETY: only tries to load the library.
    let present = unsafe { cuda_graph::cudarc::driver::sys::is_culib_present() };
    if present {
        println!("libcuda is present here: nothing to check");
        return;
    }
    let e = cuda_graph::gpu_available().unwrap_err();
    assert!(matches!(e, NoGpu::DriverNotFound), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the CUDA driver library (libcuda) was not found; install an NVIDIA driver or run on a machine with one"
    );
    assert!(matches!(cuda_graph::context(0), Err(NoGpu::DriverNotFound)));
}

#[test]
fn dot_of_a_topology_needs_no_gpu() {
    let mut t = Topology::new();
    let load = t.add_node("load", NodeKind::Memcpy).unwrap();
    let left = t.add_node("left", NodeKind::Kernel).unwrap();
    let right = t.add_node("right", NodeKind::Kernel).unwrap();
    let join = t.add_node("join", NodeKind::Empty).unwrap();
    for (a, b) in [(load, left), (load, right), (left, join), (right, join)] {
        t.add_edge(a, b).unwrap();
    }
    assert_eq!(
        t.add_edge(join, load).unwrap_err().to_string(),
        "the edge `join -> load` would close a cycle: join -> load -> right -> join"
    );
    let dot = t.to_dot("diamond");
    assert_eq!(
        dot,
        "digraph \"diamond\" {\n  rankdir=TB;\n  \"load\" [label=\"load\\nmemcpy\", shape=parallelogram];\n  \"left\" [label=\"left\\nkernel\", shape=box];\n  \"right\" [label=\"right\\nkernel\", shape=box];\n  \"join\" [label=\"join\\nempty\", shape=point];\n  \"load\" -> \"left\";\n  \"load\" -> \"right\";\n  \"left\" -> \"join\";\n  \"right\" -> \"join\";\n}\n"
    );
}
