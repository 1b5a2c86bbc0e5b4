//! A `cuda_graph!` graph as a child of another: a parent param flows into the child, and the
//! parent's param, buffer and callback setters reach the child (it is built again with the new
//! inputs and swapped into its node in place). Exact values read back.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::POISON;
use cuda_graph::cuda_graph;

cuda_graph! {
    /// y = 2 (base + i), then a callback.
    graph Inner {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        buffer mut y: u32;
        param base: u32;
        param n: u32;
        callback done;
        fill  = iota_u32<<<n.div_ceil(128), 128>>>(y, base, n);
        scale = affine_u32<<<n.div_ceil(128), 128>>>(y, 2, 0, n);
        tell  = host(done);
        fill -> scale -> tell;
    }

    /// The child with `base = 10 k`, then y = y + 1.
    graph Outer {
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        buffer mut y: u32;
        param k: u32;
        param n: u32;
        callback cb;
        sub   = child(Inner { y: y, base: k * 10, n: n, done: cb });
        after = affine_u32<<<n.div_ceil(128), 128>>>(y, 1, 1, n);
        sub -> after;
    }
}

#[test]
fn parent_inputs_flow_into_the_child_and_their_setters_reach_it() {
    let gpu = gpu_or_skip!();
    let n = 3000u32;
    let mut y = gpu.poisoned(n as usize);
    let mut z = gpu.poisoned(n as usize);
    let (first, second) = (AtomicU32::new(0), AtomicU32::new(0));
    let cb1 = || {
        first.fetch_add(1, Ordering::SeqCst);
    };
    let cb2 = || {
        second.fetch_add(1, Ordering::SeqCst);
    };
    let graph = Outer::build(
        &gpu.module,
        OuterInputs {
            y: &mut y,
            k: 3,
            n,
            cb: &cb1,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.y().unwrap());
    assert!((0..n).all(|i| got[i as usize] == 2 * (30 + i) + 1));
    assert_eq!(first.load(Ordering::SeqCst), 1);

    // A parent param that flows into the child.
    exec.set_k(5).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.y().unwrap());
    assert!((0..n).all(|i| got[i as usize] == 2 * (50 + i) + 1));

    // A param both use: the child and the parent's own node.
    exec.set_n(100).unwrap();
    gpu.stream
        .memcpy_htod(&vec![POISON; n as usize], &mut exec.y_mut().unwrap())
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.y().unwrap());
    assert_eq!(got[99], 2 * (50 + 99) + 1);
    assert_eq!(got[100], POISON);

    // A buffer and a callback the child uses.
    exec.set_n(n).unwrap();
    exec.set_y(&mut z).unwrap();
    exec.set_cb(&cb2).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.y().unwrap());
    assert!((0..n).all(|i| got[i as usize] == 2 * (50 + i) + 1));
    assert_eq!(
        (first.load(Ordering::SeqCst), second.load(Ordering::SeqCst)),
        (3, 1)
    );
    // Typed edits of a node inside the child, through the parent's executable graph: one
    // driver call for the child, no rebuild.
    exec.edit_sub(|g, h| g.node(h.scale())?.set_arg::<1>(3))
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.y().unwrap());
    assert!((0..n).all(|i| got[i as usize] == 3 * (50 + i) + 1));
    // A later rebuild (an input the child uses changed) starts from the inputs again.
    exec.set_k(6).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.y().unwrap());
    assert!((0..n).all(|i| got[i as usize] == 2 * (60 + i) + 1));
    drop(exec);
    // The first buffer kept what the third launch wrote.
    assert_eq!(gpu.read(&y)[99], 2 * (50 + 99) + 1);
}
