//! A kernel that fails a device-side assert inside a graph: the error names the context as
//! unusable, nothing panics, and the process reports it and goes on.
//!
//! Its own test binary, in a context of its own: after the fault, that context refuses every
//! call. Under compute-sanitizer (which counts the deliberate fault as an error) it is skipped
//! with a printed reason; `bash .gpu/run.sh tests` runs it.

mod common;

use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::{compile, error::LaunchError, Graph, LaunchConfig};

const KERNELS: &str = include_str!("kernels/faults.cu");

/// Whether compute-sanitizer instruments this process: its libraries are mapped once the driver
/// is initialised (`common::gpu` did that).
fn under_a_sanitizer() -> bool {
    std::env::var_os("CUDA_INJECTION64_PATH").is_some()
        || std::fs::read_to_string("/proc/self/maps").is_ok_and(|m| m.contains("sanitizer"))
}

#[test]
fn a_device_assert_is_a_context_lost_error_and_nothing_panics() {
    let Some(_gpu) = common::gpu() else { return };
    if under_a_sanitizer() {
        println!("skipped: compute-sanitizer is attached (it counts the deliberate fault as an error); `bash .gpu/run.sh tests` runs this test");
        return;
    }
    // A context of its own: the fault must not reach other code of this process.
    let ctx = CudaContext::new_non_primary(0, 0).expect("a second context");
    let stream = ctx.default_stream();
    let module = compile(&ctx, KERNELS).expect("compile the fault kernels");
    let check = module.function("check_positive").unwrap();
    let v = stream.clone_htod(&[5i32]).unwrap();
    let zero = stream.clone_htod(&[0i32]).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    let vb = g.bind(&v).unwrap();
    let one = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let node = g.add_kernel("check", &[], &check, one, (vb,)).unwrap();
    let mut exec = g.instantiate().unwrap();

    // v[0] = 5: the assert holds.
    exec.launch(&stream).unwrap();
    exec.synchronize().unwrap();

    // Point the node at a buffer holding 0: the next launch faults. The launch itself may
    // return before the kernel runs; by the wait at the latest, the error names the fault.
    let slot = exec.swap_buffer(vb, &zero).unwrap();
    exec.node(node).unwrap().set_arg::<0>(vb).unwrap();
    let first = exec
        .launch(&stream)
        .and_then(|()| exec.synchronize())
        .unwrap_err();
    match &first {
        LaunchError::ContextLost { source, .. } => {
            assert_eq!(
                source.0,
                cuda_graph::cudarc::driver::sys::CUresult::CUDA_ERROR_ASSERT,
                "{first}"
            );
        }
        other => panic!("expected ContextLost, got {other:?}"),
    }
    let message = first.to_string();
    assert!(
        message.contains("unusable") && message.contains("CUDA_ERROR_ASSERT"),
        "{message}"
    );
    println!("reported: {message}");

    // The context stays unusable: the next launch (or its wait) fails the same way.
    let second = exec
        .launch(&stream)
        .and_then(|()| exec.synchronize())
        .unwrap_err();
    assert!(
        matches!(second, LaunchError::ContextLost { .. }),
        "{second:?}"
    );

    // Dropping everything made in the dead context records errors and never panics.
    let _ = exec.restore_buffer(vb, slot);
    drop(exec);
    drop((zero, v, module, stream));
    drop(ctx);
}
