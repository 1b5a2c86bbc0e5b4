//! WHILE loops with an iteration limit (`while c, max n { ... }`), run on a GPU with exact
//! values read back: a body that never ends the loop stops at its limit, one that ends first
//! stops there, the count of iterations and whether the limit was hit read after the launch,
//! and the limit changed through its param's setter.

mod common;

use common::POISON;
use cuda_graph::prelude::*;

cuda_graph! {
    /// A body that never sets `go`: only the limit ends the loop.
    graph Forever {
        source "tests/kernels/while_limit.cu";
        kernel add_index;
        buffer mut x: u32;
        param n: u32;
        param most: u32;
        cond go = 1;
        spin = while go, max most {
            add = add_index<<<n.div_ceil(128), 128>>>(x, n);
        }
    }

    /// A body that ends the loop after `stop` iterations, under a limit of 37.
    graph Early {
        source "tests/kernels/while_limit.cu";
        kernel set_one;
        kernel count_to;
        buffer mut c: u32;
        param stop: u32;
        cond again = 1;
        clear = set_one<<<1, 1>>>(c, 0);
        run = while again, max 37 {
            up = count_to<<<1, 1>>>(c, stop, again);
        }
        clear -> run;
    }
}

/// `x[i]` after `k` iterations from `start[i]`.
fn expected(start: &[u32], k: u32) -> Vec<u32> {
    start
        .iter()
        .enumerate()
        .map(|(i, &s)| s + k * (i as u32 + 1))
        .collect()
}

#[test]
fn a_body_that_never_ends_stops_at_its_limit_and_the_setter_changes_it() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, Forever::SOURCE).unwrap();
    let n = 1000u32;
    let start: Vec<u32> = (0..n).map(|i| 7 + 3 * i).collect();
    let mut x = gpu.upload(&start);
    let graph = Forever::build(
        &module,
        ForeverInputs {
            x: &mut x,
            n,
            most: 37,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let count = exec.spin_count().unwrap();
    assert_eq!((count.iterations(), count.limit_hit()), (37, true));
    assert_eq!(gpu.read(exec.x().unwrap()), expected(&start, 37));

    // The setter: 5 more iterations a launch, from the next launch on.
    exec.set_most(5).unwrap();
    assert_eq!(exec.most(), 5);
    exec.launch(&gpu.stream).unwrap();
    let count = exec.spin_count().unwrap();
    assert_eq!((count.iterations(), count.limit_hit()), (5, true));
    assert_eq!(gpu.read(exec.x().unwrap()), expected(&start, 42));

    // A limit of 0 is refused and nothing changes.
    let err = exec.set_most(0).unwrap_err();
    assert!(err.to_string().contains("limit of 0"), "{err}");
    assert_eq!(exec.most(), 5);
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(exec.spin_count().unwrap().iterations(), 5);
    assert_eq!(gpu.read(exec.x().unwrap()), expected(&start, 47));
}

#[test]
fn a_limit_of_zero_is_an_error_of_build() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, Forever::SOURCE).unwrap();
    let mut x = gpu.poisoned(4);
    let err = Forever::build(
        &module,
        ForeverInputs {
            x: &mut x,
            n: 4,
            most: 0,
        },
    )
    .err()
    .expect("a limit of 0 is refused");
    assert!(
        err.to_string().contains("WHILE node `spin`: a limit of 0"),
        "{err}"
    );
}

#[test]
fn a_body_that_ends_first_is_not_stopped_by_the_limit() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, Early::SOURCE).unwrap();
    let mut c = gpu.poisoned(1);
    let graph = Early::build(
        &module,
        EarlyInputs {
            c: &mut c,
            stop: 10,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let count = exec.run_count().unwrap();
    assert_eq!((count.iterations(), count.limit_hit()), (10, false));
    assert_eq!(gpu.read(exec.c().unwrap()), [10]);

    // A body that would go on past the limit: 37 iterations, the limit hit.
    exec.set_stop(1_000_000).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let count = exec.run_count().unwrap();
    assert_eq!((count.iterations(), count.limit_hit()), (37, true));
    assert_eq!(gpu.read(exec.c().unwrap()), [37]);

    // Poisoned again: the next launch writes it whole.
    gpu.stream
        .memcpy_htod(&[POISON], &mut exec.c_mut().unwrap())
        .unwrap();
    exec.set_stop(1).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(exec.run_count().unwrap().iterations(), 1);
    assert_eq!(gpu.read(exec.c().unwrap()), [1]);
}

#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(
        &[
            ("Forever", Forever::check_source),
            ("Early", Early::check_source),
        ],
        &common::ARCHS,
    );
}
