//! Conditional nodes written in `cuda_graph!` (WHILE, IF/ELSE, SWITCH, nested), run on a GPU
//! with exact values read back; setters reach the nodes inside bodies.

mod common;

use common::POISON;
use cuda_graph::prelude::*;

cuda_graph! {
    /// Counts up by `step` until `limit`, in one launch; then marks odd or even.
    graph Loop {
        source "tests/kernels/cond.cu";
        kernel count_up;
        kernel fill;
        kernel decide_odd;
        kernel bump;
        buffer mut count: u32;
        buffer mut odd: u32;
        param step: u32;
        param limit: u32;
        cond again = 1;
        cond is_odd;

        clear = fill<<<1, 32>>>(count, 0, 2);
        zero  = fill<<<1, 32>>>(odd, 0, 1);
        run = while again {
            up = count_up<<<1, 1>>>(count, step, limit, again);
            test = decide_odd<<<1, 1>>>(count, is_odd);
            tally = if is_odd {
                inc = bump<<<1, 1>>>(odd);
            }
            up -> test -> tally;
        }
        [clear, zero] -> run;
    }

    /// Picks a body by a param: IF/ELSE, and a SWITCH of three cases.
    graph Pick {
        kernel decide(value: u32, c: Cond);
        kernel fill(out: &mut [u32], value: u32, n: u32);
        buffer mut a: u32;
        buffer mut b: u32;
        param flag: u32;
        param which: u32;
        param n: u32;
        cond c;
        cond s;

        pick = decide<<<1, 1>>>(flag, c);
        branch = if c {
            yes = fill<<<n.div_ceil(256), 256>>>(a, 111, n);
        } else {
            no = fill<<<n.div_ceil(256), 256>>>(a, 222, n);
        }
        select = decide<<<1, 1>>>(which, s);
        cases = switch s {
            0 => { c0 = fill<<<n.div_ceil(256), 256>>>(b, 10, n); }
            1 => { c1 = fill<<<n.div_ceil(256), 256>>>(b, 11, n); }
            2 => { c2 = fill<<<n.div_ceil(256), 256>>>(b, 12, n); }
        }
        pick -> branch;
        select -> cases;
    }
}

#[test]
fn while_loop_in_one_launch_with_param_setters_reaching_the_body() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, Loop::SOURCE).unwrap();
    let mut count = gpu.upload(&[POISON, POISON]);
    let mut odd = gpu.poisoned(1);
    let graph = Loop::build(
        &module,
        LoopInputs {
            count: &mut count,
            odd: &mut odd,
            step: 1,
            limit: 10,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.count().unwrap()), [10, 10]);
    assert_eq!(gpu.read(exec.odd().unwrap()), [5]);

    // A graph-level setter updates the kernel inside the body.
    exec.set_step(3).unwrap();
    exec.set_limit(20).unwrap();
    exec.launch(&gpu.stream).unwrap();
    // 3, 6, ..., 21: seven iterations, odd after 3, 9, 15, 21.
    assert_eq!(gpu.read(exec.count().unwrap()), [21, 7]);
    assert_eq!(gpu.read(exec.odd().unwrap()), [4]);
    // A node view inside a nested body.
    exec.up().unwrap().set_step(2).unwrap();
    exec.inc().unwrap().disable().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.count().unwrap()), [20, 10]);
    assert_eq!(gpu.read(exec.odd().unwrap()), [0]);
    assert_eq!(exec.tally().unwrap().body_count(), 1);

    assert!(Loop::DOT.contains("label=\"run: while\""), "{}", Loop::DOT);
    assert!(Loop::DOT.contains("label=\"tally: if\""));
}

#[test]
fn if_else_and_switch_pick_their_body_from_a_param() {
    let gpu = gpu_or_skip!();
    const SRC: &str = include_str!("kernels/cond.cu");
    let module = cuda_graph::compile(&gpu.ctx, SRC).unwrap();
    let n = 3000u32;
    let mut a = gpu.poisoned(n as usize);
    let mut b = gpu.poisoned(n as usize);
    let graph = Pick::build(
        &module,
        PickInputs {
            a: &mut a,
            b: &mut b,
            flag: 1,
            which: 2,
            n,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    let all = |v: Vec<u32>, x: u32| v.iter().all(|&e| e == x);
    exec.launch(&gpu.stream).unwrap();
    assert!(all(gpu.read(exec.a().unwrap()), 111));
    assert!(all(gpu.read(exec.b().unwrap()), 12));
    exec.set_flag(0).unwrap();
    exec.set_which(0).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(all(gpu.read(exec.a().unwrap()), 222));
    assert!(all(gpu.read(exec.b().unwrap()), 10));
    // No case 7: `b` keeps its values; the else branch's value edited in place.
    exec.set_which(7).unwrap();
    exec.no().unwrap().set_value(333).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(all(gpu.read(exec.a().unwrap()), 333));
    assert!(all(gpu.read(exec.b().unwrap()), 10));
}

cuda_graph! {
    /// Two nodes of one kernel in order inside a body: `cuda_graph!` adds them together, the
    /// second depending on the first before either is recorded.
    graph Twice {
        kernel decide(value: u32, c: Cond);
        kernel fill(out: &mut [u32], value: u32, n: u32);
        buffer mut a: u32;
        param flag: u32;
        param n: u32;
        param half: u32;
        cond c;

        pick = decide<<<1, 1>>>(flag, c);
        branch = if c {
            first = fill<<<n.div_ceil(256), 256>>>(a, 5, n);
            second = fill<<<half.div_ceil(256), 256>>>(a, 7, half);
            first -> second;
        }
        pick -> branch;
    }
}

/// The nodes of one kernel added together inside a body, one after the other: the graph
/// builds, the second runs after the first (its values win where both write), and neither runs
/// when the body does not.
#[test]
fn nodes_of_one_kernel_in_order_inside_a_body() {
    let gpu = gpu_or_skip!();
    const SRC: &str = include_str!("kernels/cond.cu");
    let module = cuda_graph::compile(&gpu.ctx, SRC).unwrap();
    let (n, half) = (3000u32, 1000u32);
    let mut a = gpu.poisoned(n as usize);
    let graph = Twice::build(
        &module,
        TwiceInputs {
            a: &mut a,
            flag: 0,
            n,
            half,
        },
    )
    .unwrap();
    assert_eq!(
        graph.graph().topology().scope(2),
        graph.graph().topology().scope(3)
    );
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.a().unwrap()).iter().all(|&v| v == POISON));
    exec.set_flag(1).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.a().unwrap());
    let want: Vec<u32> = (0..n).map(|i| if i < half { 7 } else { 5 }).collect();
    assert_eq!(got, want);
}

/// The graphs' sources compiled as `build_from_source` will, to machine code for sm_90 and
/// sm_80, with no GPU.
#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(&[("Loop", Loop::check_source)], &common::ARCHS);
}
