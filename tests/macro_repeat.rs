//! Repeat blocks written in `cuda_graph!`: a body of nodes written once and run `n` times (a
//! param or a literal), stacks of buffers indexed by the loop variable (a slice of buffers or
//! one buffer with a stride), carry edges between iterations, the loop variable in
//! expressions, per-iteration views and setters; exact values read back and checked against a
//! host computation.

mod common;

use common::POISON;
use cuda_graph::buffer::{Stack, StackMut};
use cuda_graph::error::{BuildError, EditError};
use cuda_graph::prelude::*;

cuda_graph! {
    /// x = iota; then per layer l: x = 3 x + w[l] + (l + k) (the loop variable and a param in
    /// an argument), and trace[l] = x; then out = 2 x.
    graph Layers {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        buffer w[layers]: u32;
        buffer mut x: u32;
        buffer mut trace[layers]: u32;
        buffer mut out: u32;
        param layers: u32;
        param n: u32;
        param k: u32;

        init = iota_u32<<<n.div_ceil(256), 256>>>(x, 1, n);
        body = repeat l in 0..layers {
            mix  = lincomb_u32<<<n.div_ceil(256), 256>>>(x, 3, w[l], 1, x, n);
            bias = affine_u32<<<n.div_ceil(256), 256>>>(x, 1, l as u32 + k, n);
            snap = lincomb_u32<<<n.div_ceil(256), 256>>>(x, 1, x, 0, trace[l], n);
            mix -> bias -> snap;
            // Iteration l + 1 overwrites x after iteration l's snapshot read it.
            carry snap -> mix;
        }
        last = lincomb_u32<<<n.div_ceil(256), 256>>>(x, 2, x, 0, out, n);
        init -> body -> last;
    }

    /// Four literal iterations over one strided stack: y[l] = l + 10 + base, each iteration on
    /// its own part, so no carry edge is needed.
    graph Parts {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer mut y[4]: u32;
        param n: u32;
        param base: u32;
        fill = repeat l in 0..4 {
            each = iota_u32<<<n.div_ceil(256), 256>>>(y[l], (l as u32 + 1) * 10 + base, n);
        }
    }
}

/// The host's version of `Layers`.
fn layers_on_host(w: &[Vec<u32>], n: usize, k: u32) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut x: Vec<u32> = (0..n as u32).map(|i| 1 + i).collect();
    let mut traces = Vec::new();
    for (l, wl) in w.iter().enumerate() {
        for i in 0..n {
            x[i] = x[i]
                .wrapping_mul(3)
                .wrapping_add(wl[i])
                .wrapping_add(l as u32 + k);
        }
        traces.push(x.clone());
    }
    let out = x.iter().map(|v| v.wrapping_mul(2)).collect();
    (traces, out)
}

#[test]
fn repeat_block_is_drawn_once_with_its_count() {
    let dot = Layers::DOT;
    assert!(dot.contains("repeat l in 0..layers"), "{dot}");
    assert!(dot.contains("\"snap\" -> \"mix\" [style=dashed"), "{dot}");
    assert!(dot.contains("\"init\" -> \"body\""), "{dot}");
    assert_eq!(dot.matches("\"mix\" [label").count(), 1, "{dot}");
}

#[test]
fn layers_run_in_order_with_their_own_weights() {
    let gpu = gpu_or_skip!();
    let n = 1000usize;
    let layers = 5usize;
    let weights: Vec<Vec<u32>> = (0..layers)
        .map(|l| (0..n as u32).map(|i| i * 7 + 13 * l as u32 + 1).collect())
        .collect();
    let w: Vec<_> = weights.iter().map(|v| gpu.upload(v)).collect();
    let mut trace: Vec<_> = (0..layers).map(|_| gpu.poisoned(n)).collect();
    let (mut x, mut out) = (gpu.poisoned(n), gpu.poisoned(n));
    let graph = Layers::build(
        &gpu.module,
        LayersInputs {
            w: Stack::slices(&w),
            x: &mut x,
            trace: StackMut::slices(&mut trace),
            out: &mut out,
            layers: layers as u32,
            n: n as u32,
            k: 4,
        },
    )
    .unwrap();
    // One driver node per iteration of each body node, and the nodes around the block.
    assert_eq!(graph.graph().len(), 2 + 3 * layers);
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let (traces, expected) = layers_on_host(&weights, n, 4);
    assert_eq!(gpu.read(exec.out().unwrap()), expected);

    // A param used in the block: every iteration's node takes it.
    exec.set_k(100).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let (_, expected) = layers_on_host(&weights, n, 100);
    assert_eq!(gpu.read(exec.out().unwrap()), expected);

    // One iteration's node, through its view: only layer 2's bias changes.
    exec.bias(2).unwrap().set_add(0).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let mut x_host: Vec<u32> = (0..n as u32).map(|i| 1 + i).collect();
    for (l, wl) in weights.iter().enumerate() {
        let add = if l == 2 { 0 } else { l as u32 + 100 };
        for i in 0..n {
            x_host[i] = x_host[i]
                .wrapping_mul(3)
                .wrapping_add(wl[i])
                .wrapping_add(add);
        }
    }
    let expected: Vec<u32> = x_host.iter().map(|v| v.wrapping_mul(2)).collect();
    assert_eq!(gpu.read(exec.out().unwrap()), expected);

    // No iteration 5: an error naming the node, not a panic.
    match exec.bias(5) {
        Err(EditError::NoIteration {
            node,
            iteration: 5,
            count: 5,
        }) => assert_eq!(node, "bias"),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("iteration 5 of 5 was found"),
    }
    drop(exec);
    let _ = traces;
}

#[test]
fn traces_are_written_per_iteration() {
    let gpu = gpu_or_skip!();
    let (n, layers) = (300usize, 3usize);
    let weights: Vec<Vec<u32>> = (0..layers)
        .map(|l| (0..n as u32).map(|i| (i ^ 0x55) + l as u32).collect())
        .collect();
    let w: Vec<_> = weights.iter().map(|v| gpu.upload(v)).collect();
    let mut trace: Vec<_> = (0..layers).map(|_| gpu.poisoned(n)).collect();
    let (mut x, mut out) = (gpu.poisoned(n), gpu.poisoned(n));
    {
        let graph = Layers::build(
            &gpu.module,
            LayersInputs {
                w: (&w).into(),
                x: &mut x,
                trace: (&mut trace).into(),
                out: &mut out,
                layers: layers as u32,
                n: n as u32,
                k: 9,
            },
        )
        .unwrap();
        let mut exec = graph.instantiate().unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
    }
    let (traces, _) = layers_on_host(&weights, n, 9);
    for (l, t) in trace.iter().enumerate() {
        assert_eq!(gpu.read(t), traces[l], "trace of layer {l}");
    }
}

#[test]
fn a_block_of_zero_iterations_passes_its_dependencies_through() {
    let gpu = gpu_or_skip!();
    let n = 64usize;
    let (mut x, mut out) = (gpu.poisoned(n), gpu.poisoned(n));
    let w: Vec<cuda_graph::buffer::CudaSlice<u32>> = Vec::new();
    let mut trace: Vec<cuda_graph::buffer::CudaSlice<u32>> = Vec::new();
    let graph = Layers::build(
        &gpu.module,
        LayersInputs {
            w: Stack::slices(&w),
            x: &mut x,
            trace: StackMut::slices(&mut trace),
            out: &mut out,
            layers: 0,
            n: n as u32,
            k: 1,
        },
    )
    .unwrap();
    assert_eq!(graph.graph().len(), 2);
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let expected: Vec<u32> = (0..n as u32).map(|i| 2 * (1 + i)).collect();
    assert_eq!(gpu.read(exec.out().unwrap()), expected);
}

#[test]
fn a_stack_of_the_wrong_length_is_an_error_naming_it() {
    let gpu = gpu_or_skip!();
    let n = 32usize;
    let w: Vec<_> = (0..2).map(|_| gpu.upload(&vec![1u32; n])).collect();
    let mut trace: Vec<_> = (0..3).map(|_| gpu.poisoned(n)).collect();
    let (mut x, mut out) = (gpu.poisoned(n), gpu.poisoned(n));
    let err = Layers::build(
        &gpu.module,
        LayersInputs {
            w: Stack::slices(&w),
            x: &mut x,
            trace: StackMut::slices(&mut trace),
            out: &mut out,
            layers: 3,
            n: n as u32,
            k: 1,
        },
    )
    .err()
    .expect("two weights for three layers");
    match err {
        cuda_graph::Error::Build(BuildError::StackLength {
            input,
            expected: 3,
            found: 2,
        }) => assert_eq!(input, "w"),
        e => panic!("unexpected error {e}"),
    }
}

#[test]
fn a_strided_stack_gives_each_iteration_its_part() {
    let gpu = gpu_or_skip!();
    let n = 100usize;
    let mut y = gpu.poisoned(4 * n);
    {
        let graph = Parts::build(
            &gpu.module,
            PartsInputs {
                y: StackMut::strided(&mut y, n),
                n: n as u32,
                base: 5,
            },
        )
        .unwrap();
        let mut exec = graph.instantiate().unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
        // One iteration's node, through its view: its base only.
        exec.each(3).unwrap().set_base(1000).unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
    }
    let got = gpu.read(&y);
    for l in 0..4 {
        let base = if l == 3 {
            1000
        } else {
            (l as u32 + 1) * 10 + 5
        };
        let want: Vec<u32> = (0..n as u32).map(|i| base + i).collect();
        assert_eq!(&got[l * n..(l + 1) * n], &want[..], "part {l}");
    }
    assert!(got.iter().all(|&v| v != POISON));
    // A stride that does not divide the buffer is an error, not a panic.
    let mut z = gpu.poisoned(4 * n + 1);
    let err = Parts::build(
        &gpu.module,
        PartsInputs {
            y: StackMut::strided(&mut z, n),
            n: n as u32,
            base: 5,
        },
    )
    .err()
    .expect("a stride that does not divide");
    assert!(
        matches!(
            err,
            cuda_graph::Error::Build(BuildError::StackStride { .. })
        ),
        "{err}"
    );
}
