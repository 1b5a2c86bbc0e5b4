//! Blocks placed in graphs, run on a GPU with exact values read back: a layer block placed in
//! a repeat body gives what the same graph written out gives, and what a CPU computes; a block
//! placed twice at the top level with its buffer renamed, an edge between the places; a block
//! placed in an IF body runs only when the condition is set. A place's nodes have views and
//! setters named `place_node`.

mod common;

use common::POISON;
use cuda_graph::buffer::{Stack, StackMut};
use cuda_graph::prelude::*;

cuda_graph! {
    /// x = 2x + w[l], kept in trace[l].
    block layer(l) {
        source "examples/kernels/diamond.cu";
        kernel lincomb;
        buffer w[layers]: u32;
        buffer mut x: u32;
        buffer mut trace[layers]: u32;
        param n: u32;
        step = lincomb<<<n.div_ceil(256), 256>>>(x, 2, w[l], 1, trace[l], n);
        keep = lincomb<<<n.div_ceil(256), 256>>>(trace[l], 1, trace[l], 0, x, n);
        step -> keep;
    }

    /// y = k * y + ones.
    block scale {
        source "examples/kernels/diamond.cu";
        kernel lincomb;
        buffer mut y: u32;
        buffer ones: u32;
        param n: u32;
        param k: u32;
        add = lincomb<<<n.div_ceil(256), 256>>>(y, k, ones, 1, y, n);
    }

    /// y[0] += 1.
    block bump {
        source "tests/kernels/cond.cu";
        kernel bump;
        buffer mut y: u32;
        once = bump<<<1, 1>>>(y);
    }

    /// The layers placed in a repeat body.
    graph Placed {
        source "examples/kernels/diamond.cu";
        kernel iota;
        buffer w[layers]: u32;
        buffer mut x: u32;
        buffer mut trace[layers]: u32;
        param layers: u32;
        param n: u32;
        start = iota<<<n.div_ceil(256), 256>>>(x, 0, n);
        stack = repeat i in 0..layers {
            one = use layer(l = i);
            carry one -> one;
        }
        start -> stack;
    }

    /// The same graph written out.
    graph Written {
        source "examples/kernels/diamond.cu";
        kernel iota;
        kernel lincomb;
        buffer w[layers]: u32;
        buffer mut x: u32;
        buffer mut trace[layers]: u32;
        param layers: u32;
        param n: u32;
        start = iota<<<n.div_ceil(256), 256>>>(x, 0, n);
        stack = repeat i in 0..layers {
            one_step = lincomb<<<n.div_ceil(256), 256>>>(x, 2, w[i], 1, trace[i], n);
            one_keep = lincomb<<<n.div_ceil(256), 256>>>(trace[i], 1, trace[i], 0, x, n);
            one_step -> one_keep;
            carry one_keep -> one_step;
        }
        start -> stack;
    }

    /// `a = 3a + 1`, then `b = 5b + 1` and `a = 2a + 1` after it.
    graph Twice {
        buffer mut a: u32;
        buffer mut b: u32;
        buffer ones: u32;
        param n: u32;
        param k: u32;
        param k2: u32;
        param k3: u32;
        first = use scale(y = a, k = k3);
        second = use scale(y = b, k = k2);
        third = use scale(y = a);
        first -> [second, third];
    }

    /// `a[0] += 1` when `go` is 1.
    graph Maybe {
        source "tests/kernels/cond.cu";
        kernel decide;
        buffer mut a: u32;
        param go: u32;
        cond again;
        pick = decide<<<1, 1>>>(go, again);
        when = if again {
            inc = use bump(y = a);
        }
        pick -> when;
    }
}

/// `x = ka[l] * x + w[l]` from `x = iota`, and each layer's `x`.
fn layers_on_cpu(n: usize, w: &[Vec<u32>], ka: &[u32]) -> (Vec<u32>, Vec<Vec<u32>>) {
    let mut x: Vec<u32> = (0..n as u32).collect();
    let mut trace = Vec::new();
    for (wl, &k) in w.iter().zip(ka) {
        for i in 0..n {
            x[i] = x[i].wrapping_mul(k).wrapping_add(wl[i]);
        }
        trace.push(x.clone());
    }
    (x, trace)
}

#[test]
fn a_block_in_a_repeat_body_runs_as_written_out() {
    let gpu = gpu_or_skip!();
    let (n, layers) = (1000usize, 5usize);
    let w: Vec<Vec<u32>> = (0..layers)
        .map(|l| (0..n).map(|i| (i * 7 + l * 13) as u32).collect())
        .collect();
    let wd: Vec<_> = w.iter().map(|v| gpu.upload(v)).collect();
    let (want_x, want_trace) = layers_on_cpu(n, &w, &[2; 5]);
    let (mut x, mut trace) = (gpu.poisoned(n), gpu.poisoned(n * layers));
    let inputs = WrittenInputs {
        w: Stack::slices(&wd),
        x: &mut x,
        trace: StackMut::strided(&mut trace, n),
        layers: layers as u32,
        n: n as u32,
    };
    let mut exec = Written::build_from_source(&gpu.ctx, inputs)
        .unwrap()
        .instantiate()
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    drop(exec);
    assert_eq!(
        (gpu.read(&x), gpu.read(&trace)),
        (want_x.clone(), want_trace.concat())
    );

    let (mut x, mut trace) = (gpu.poisoned(n), gpu.poisoned(n * layers));
    let inputs = PlacedInputs {
        w: Stack::slices(&wd),
        x: &mut x,
        trace: StackMut::strided(&mut trace, n),
        layers: layers as u32,
        n: n as u32,
    };
    let mut exec = Placed::build_from_source(&gpu.ctx, inputs)
        .unwrap()
        .instantiate()
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.x().unwrap()), want_x);
    // The place's nodes are named after it: iteration 2's `step` of place `one`.
    exec.one_step(2).unwrap().set_ka(3).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    drop(exec);
    // Each launch starts again from iota: only layer 2 differs.
    let (want_x, want_trace) = layers_on_cpu(n, &w, &[2, 2, 3, 2, 2]);
    assert_eq!(
        (gpu.read(&x), gpu.read(&trace)),
        (want_x, want_trace.concat())
    );
    assert!(gpu.read(&trace).iter().all(|&v| v != POISON));
}

#[test]
fn a_block_placed_twice_with_its_buffer_renamed() {
    let gpu = gpu_or_skip!();
    let n = 700usize;
    let a0: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    let b0: Vec<u32> = (0..n as u32).map(|i| i ^ 0x55).collect();
    let mut a = gpu.upload(&a0);
    let mut b = gpu.upload(&b0);
    let ones = gpu.upload(&vec![1u32; n]);
    let graph = Twice::build_from_source(
        &gpu.ctx,
        TwiceInputs {
            a: &mut a,
            b: &mut b,
            ones: &ones,
            n: n as u32,
            k: 2,
            k2: 5,
            k3: 3,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let want_a: Vec<u32> = a0.iter().map(|v| (v * 3 + 1) * 2 + 1).collect();
    let want_b: Vec<u32> = b0.iter().map(|v| v * 5 + 1).collect();
    assert_eq!(gpu.read(exec.a().unwrap()), want_a);
    assert_eq!(gpu.read(exec.b().unwrap()), want_b);
    // A param the block names through the place's binding: `first`'s `k` is the graph's `k3`.
    exec.set_k3(1).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let want_a: Vec<u32> = want_a.iter().map(|v| (v + 1) * 2 + 1).collect();
    assert_eq!(gpu.read(exec.a().unwrap()), want_a);
    exec.synchronize().unwrap();
}

#[test]
fn a_block_in_an_if_body_runs_when_the_condition_is_set() {
    let gpu = gpu_or_skip!();
    let mut a = gpu.upload(&[41u32, 7]);
    let graph = Maybe::build_from_source(&gpu.ctx, MaybeInputs { a: &mut a, go: 1 }).unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.a().unwrap()), [42, 7]);
    exec.set_go(0).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.a().unwrap()), [42, 7]);
    exec.set_go(1).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.a().unwrap()), [43, 7]);
    exec.synchronize().unwrap();
}

#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(
        &[
            ("Placed", Placed::check_source),
            ("Written", Written::check_source),
            ("Twice", Twice::check_source),
            ("Maybe", Maybe::check_source),
        ],
        &common::ARCHS,
    );
}
