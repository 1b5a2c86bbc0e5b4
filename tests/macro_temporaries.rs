//! Temporaries (graph-owned memory) written in `cuda_graph!`: allocated before their first use
//! and freed after their last, sized from params, with exact values read back.

mod common;

use common::POISON;
use cuda_graph::error::EditError;
use cuda_graph::prelude::*;

cuda_graph! {
    /// out = 2 (3 (7 + i) + 1) + 5 (100 + i), through two temporaries of `n` elements.
    graph Scratch {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer mut out: u32;
        param n: u32;
        param mul: u32;
        temp t: [u32; n];
        temp u: [u32; n];

        fill   = iota_u32<<<n.div_ceil(256), 256>>>(t, 7, n);
        scale  = affine_u32<<<n.div_ceil(256), 256>>>(t, mul, 1, n);
        fill_u = iota_u32<<<n.div_ceil(256), 256>>>(u, 100, n);
        mix    = lincomb_u32<<<n.div_ceil(256), 256>>>(t, 2, u, 5, out, n);
        fill -> scale -> mix;
        fill_u -> mix;
    }
}

#[test]
fn temporaries_are_allocated_around_their_users() {
    // Placed from the structure: alloc before the first users, free after the last.
    let dot = Scratch::DOT;
    for edge in [
        "\"alloc_t\" -> \"fill\"",
        "\"mix\" -> \"free_t\"",
        "\"alloc_u\" -> \"fill_u\"",
        "\"mix\" -> \"free_u\"",
    ] {
        assert!(dot.contains(edge), "{edge} in\n{dot}");
    }
    assert_eq!(
        Scratch::TEMPORARIES,
        &[("t", "u32", "n"), ("u", "u32", "n")]
    );
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, common::KERNELS).unwrap();
    let n = 5000u32;
    let mut out = gpu.poisoned(n as usize);
    let graph = Scratch::build(
        &module,
        ScratchInputs {
            out: &mut out,
            n,
            mul: 3,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    assert_eq!(exec.temporary_bytes(), 2 * n as usize * 4);
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.out().unwrap());
    for i in 0..n {
        assert_eq!(
            got[i as usize],
            2 * (3 * (7 + i) + 1) + 5 * (100 + i),
            "element {i}"
        );
    }
    // A smaller length fits in what was allocated; a larger one is refused, and nothing
    // changes.
    exec.set_n(100).unwrap();
    exec.set_mul(4).unwrap();
    gpu.stream
        .memcpy_htod(&vec![POISON; n as usize], &mut exec.out_mut().unwrap())
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.out().unwrap());
    assert_eq!(got[99], 2 * (4 * (7 + 99) + 1) + 5 * (100 + 99));
    assert_eq!(got[100], POISON);
    let e = exec.set_n(n + 1).unwrap_err();
    assert!(matches!(e, EditError::TemporaryTooSmall { .. }), "{e}");
    assert_eq!(exec.n(), 100);
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.out().unwrap())[100], POISON);
}
