//! Graphs written with `cuda_graph!`, run on a GPU: every kind of generated setter, with exact
//! values read back. Buffers are poisoned before each run so an unwritten output fails.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::POISON;
use cuda_graph::cudarc::driver::CudaSlice;
use cuda_graph::{
    cuda_graph,
    error::{BuildError, EditError},
    topology::{NodeKind, Topology},
    Error,
};

cuda_graph! {
    /// Three chains; `k` is shared by two of them (`scale_b` uses it in an expression).
    graph Shared {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        buffer mut a: u32;
        buffer mut b: u32;
        buffer mut c: u32;
        param k: u32;
        param n: u32;

        fill_a  = iota_u32<<<n.div_ceil(128), 128>>>(a, 0, n);
        fill_b  = iota_u32<<<n.div_ceil(128), 128>>>(b, 1000, n);
        fill_c  = iota_u32<<<n.div_ceil(128), 128>>>(c, 5000, n);
        scale_a = affine_u32<<<n.div_ceil(128), 128>>>(a, k, 1, n);
        scale_b = affine_u32<<<n.div_ceil(128), 128>>>(b, k + 1, 0, n);
        other_c = affine_u32<<<n.div_ceil(128), 128>>>(c, 2, 0, n);

        fill_a -> scale_a;
        fill_b -> scale_b;
        fill_c -> other_c;
    }

    /// Two nodes of one kernel, the second's block size a param.
    graph Blocks {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer mut y: u32;
        param threads: u32;

        first  = iota_u32<<<1, 128>>>(y, 0, 128);
        second = iota_u32<<<1, threads>>>(y, 7, threads);
        first -> second;
    }

    /// A memset whose value is a param, a copy, a callback and an event.
    graph Signals {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer mut y: u32;
        buffer mut z: u32;
        buffer mut copy: u32;
        param v: u32;
        param n: u32;
        callback tick;
        event done;

        clear = memset(z, v);
        fill  = iota_u32<<<n.div_ceil(128), 128>>>(y, 3, n);
        dup   = memcpy(copy, y);
        note  = host(tick);
        rec   = record(done);

        fill -> dup -> note -> rec;
        clear -> note;
    }

    /// A chain over two buffers; `double` starts on `u`.
    graph Pair {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        buffer mut u: u32;
        buffer mut w: u32;
        param n: u32;
        fill_u = iota_u32<<<n.div_ceil(128), 128>>>(u, 1, n);
        fill_w = iota_u32<<<n.div_ceil(128), 128>>>(w, 100, n);
        double = affine_u32<<<n.div_ceil(128), 128>>>(u, 2, 0, n);
        fill_u -> fill_w -> double;
    }

    /// Nodes of two kernels interleaved; `m` is used by two of the three `affine_u32` nodes.
    /// The generated code keeps the nodes of one kernel in one array and loops over the ones a
    /// setter touches, so this checks that each node keeps its own place.
    graph Interleaved {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        buffer mut a: u32;
        buffer mut b: u32;
        buffer mut c: u32;
        param m: u32;
        param n: u32;
        fill_a  = iota_u32<<<n.div_ceil(128), 128>>>(a, 0, n);
        fill_b  = iota_u32<<<n.div_ceil(128), 128>>>(b, 10, n);
        fill_c  = iota_u32<<<n.div_ceil(128), 128>>>(c, 100, n);
        scale_a = affine_u32<<<n.div_ceil(128), 128>>>(a, m, 0, n);
        scale_b = affine_u32<<<n.div_ceil(128), 128>>>(b, 2, 0, n);
        scale_c = affine_u32<<<n.div_ceil(128), 128>>>(c, m, 5, n);
        fill_a -> scale_a;
        fill_b -> scale_b;
        fill_c -> scale_c;
        scale_a -> scale_b -> scale_c;
    }

    graph Inner {
        kernel affine_u32(y: &mut [u32], mul: u32, add: u32, n: u32);
        buffer mut y: u32;
        param n: u32;
        step = affine_u32<<<n.div_ceil(128), 128>>>(y, 2, 1, n);
    }

    graph Outer {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer mut y: u32;
        param n: u32;
        fill = iota_u32<<<n.div_ceil(128), 128>>>(y, 10, n);
        sub  = child(Inner { y: y, n: 512 });
        fill -> sub;
    }
}

const N: usize = 1024;

fn iota(base: u32, n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| base + i).collect()
}

/// `Shared` over three buffers, `k = 3`, `n = N`, instantiated.
fn shared<'a>(
    gpu: &common::Gpu,
    a: &'a mut CudaSlice<u32>,
    b: &'a mut CudaSlice<u32>,
    c: &'a mut CudaSlice<u32>,
) -> SharedExec<'a> {
    let inputs = SharedInputs {
        a,
        b,
        c,
        k: 3,
        n: N as u32,
    };
    Shared::build(&gpu.module, inputs)
        .unwrap()
        .instantiate()
        .unwrap()
}

fn poison(exec_buf: &mut cuda_graph::cudarc::driver::CudaViewMut<'_, u32>, gpu: &common::Gpu) {
    gpu.stream
        .memcpy_htod(&vec![POISON; exec_buf.len()], exec_buf)
        .unwrap();
}

#[test]
fn graph_level_setter_updates_every_node_that_uses_the_param_and_no_other() {
    let gpu = gpu_or_skip!();
    let (mut a, mut b, mut c) = (gpu.poisoned(N), gpu.poisoned(N), gpu.poisoned(N));
    let mut exec = shared(&gpu, &mut a, &mut b, &mut c);
    let run = |exec: &mut SharedExec<'_>| {
        for f in [SharedExec::a_mut, SharedExec::b_mut, SharedExec::c_mut] {
            poison(&mut f(exec).unwrap(), &gpu);
        }
        exec.launch(&gpu.stream).unwrap();
        (
            gpu.read(exec.a().unwrap()),
            gpu.read(exec.b().unwrap()),
            gpu.read(exec.c().unwrap()),
        )
    };
    let (ra, rb, rc) = run(&mut exec);
    assert_eq!(ra, (0..N as u32).map(|i| i * 3 + 1).collect::<Vec<_>>());
    assert_eq!(
        rb,
        (0..N as u32).map(|i| (1000 + i) * 4).collect::<Vec<_>>()
    );
    assert_eq!(
        rc,
        (0..N as u32).map(|i| (5000 + i) * 2).collect::<Vec<_>>()
    );

    exec.set_k(7).unwrap();
    assert_eq!(exec.k(), 7);
    let (ra, rb, rc) = run(&mut exec);
    assert_eq!(
        ra,
        (0..N as u32).map(|i| i * 7 + 1).collect::<Vec<_>>(),
        "scale_a uses k"
    );
    assert_eq!(
        rb,
        (0..N as u32).map(|i| (1000 + i) * 8).collect::<Vec<_>>(),
        "scale_b uses k + 1"
    );
    assert_eq!(
        rc,
        (0..N as u32).map(|i| (5000 + i) * 2).collect::<Vec<_>>(),
        "other_c does not"
    );

    // `n` is in every node's grid and arguments: halve it, only the first half is written.
    exec.set_n(N as u32 / 2).unwrap();
    assert_eq!(exec.scale_a().unwrap().launch_config().grid_dim, (4, 1, 1));
    let (ra, rb, rc) = run(&mut exec);
    let h = N / 2;
    assert_eq!(
        &ra[..h],
        &(0..h as u32).map(|i| i * 7 + 1).collect::<Vec<_>>()[..]
    );
    assert!(ra[h..]
        .iter()
        .chain(&rb[h..])
        .chain(&rc[h..])
        .all(|&v| v == POISON));
    assert_eq!(
        &rc[..h],
        &(0..h as u32).map(|i| (5000 + i) * 2).collect::<Vec<_>>()[..]
    );

    // A value that makes a launch invalid (grid 0) is refused, and nothing changes.
    let e = exec.set_n(0).unwrap_err();
    assert!(
        matches!(&e, EditError::InvalidLaunch { node, .. } if node == "fill_a"),
        "{e}"
    );
    assert_eq!(exec.n(), N as u32 / 2);
    let (ra2, _, _) = run(&mut exec);
    assert_eq!(ra2, ra);
}

#[test]
fn setter_over_some_nodes_of_a_kernel_reaches_exactly_those() {
    let gpu = gpu_or_skip!();
    let (mut a, mut b, mut c) = (gpu.poisoned(N), gpu.poisoned(N), gpu.poisoned(N));
    let inputs = InterleavedInputs {
        a: &mut a,
        b: &mut b,
        c: &mut c,
        m: 3,
        n: N as u32,
    };
    let mut exec = Interleaved::build(&gpu.module, inputs)
        .unwrap()
        .instantiate()
        .unwrap();
    let run = |exec: &mut InterleavedExec<'_>| {
        for f in [
            InterleavedExec::a_mut,
            InterleavedExec::b_mut,
            InterleavedExec::c_mut,
        ] {
            poison(&mut f(exec).unwrap(), &gpu);
        }
        exec.launch(&gpu.stream).unwrap();
        [exec.a(), exec.b(), exec.c()].map(|buf| gpu.read(buf.unwrap()))
    };
    let expect = |m: u32| {
        [
            (0..N as u32).map(|i| i * m).collect::<Vec<_>>(),
            (0..N as u32).map(|i| (10 + i) * 2).collect(),
            (0..N as u32).map(|i| (100 + i) * m + 5).collect(),
        ]
    };
    assert_eq!(run(&mut exec), expect(3));
    exec.set_m(7).unwrap();
    assert_eq!(
        run(&mut exec),
        expect(7),
        "scale_a and scale_c use m, scale_b not"
    );
    // A node view reaches its own node: scale_c's `add`, then scale_a's `mul`.
    exec.scale_c().unwrap().set_add(6).unwrap();
    exec.scale_a().unwrap().set_mul(4).unwrap();
    let [ra, rb, rc] = run(&mut exec);
    assert_eq!(ra, (0..N as u32).map(|i| i * 4).collect::<Vec<_>>());
    assert_eq!(rb, expect(7)[1]);
    assert_eq!(
        rc,
        (0..N as u32).map(|i| (100 + i) * 7 + 6).collect::<Vec<_>>()
    );
}

#[test]
fn node_views_have_named_typed_setters() {
    let gpu = gpu_or_skip!();
    let (mut a, mut b, mut c) = (gpu.poisoned(N), gpu.poisoned(N), gpu.poisoned(N));
    let mut exec = shared(&gpu, &mut a, &mut b, &mut c);
    // One node only: `mul` of scale_a, and `base` of fill_b; launch setters through the view.
    exec.scale_a().unwrap().set_mul(10).unwrap();
    exec.fill_b().unwrap().set_base(2000).unwrap();
    exec.fill_a().unwrap().set_block((256, 1, 1)).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.a().unwrap()),
        (0..N as u32).map(|i| i * 10 + 1).collect::<Vec<_>>()
    );
    assert_eq!(
        gpu.read(exec.b().unwrap()),
        (0..N as u32).map(|i| (2000 + i) * 4).collect::<Vec<_>>()
    );
    assert_eq!(
        gpu.read(exec.c().unwrap()),
        (0..N as u32).map(|i| (5000 + i) * 2).collect::<Vec<_>>()
    );
    assert_eq!(
        exec.fill_a().unwrap().launch_config().block_dim,
        (256, 1, 1)
    );
    // A graph-level setter sends again what uses its param: `mul` of scale_a is `k` again,
    // and fill_b's edited `base` (which does not use `n`) stays through `set_n`.
    exec.set_k(4).unwrap();
    exec.set_n(N as u32).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.a().unwrap()),
        (0..N as u32).map(|i| i * 4 + 1).collect::<Vec<_>>()
    );
    assert_eq!(
        gpu.read(exec.b().unwrap()),
        (0..N as u32).map(|i| (2000 + i) * 5).collect::<Vec<_>>()
    );
}

#[test]
fn node_view_buffer_setter_takes_a_handle() {
    let gpu = gpu_or_skip!();
    let (mut u, mut w) = (gpu.poisoned(N), gpu.poisoned(N));
    let mut exec = Pair::build(
        &gpu.module,
        PairInputs {
            u: &mut u,
            w: &mut w,
            n: N as u32,
        },
    )
    .unwrap()
    .instantiate()
    .unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.u().unwrap()),
        (1..=N as u32).map(|v| 2 * v).collect::<Vec<_>>()
    );
    assert_eq!(gpu.read(exec.w().unwrap()), iota(100, N));
    let hs = exec.handles();
    exec.double().unwrap().set_y(hs.w).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.u().unwrap()), iota(1, N));
    assert_eq!(
        gpu.read(exec.w().unwrap()),
        (100..100 + N as u32).map(|v| 2 * v).collect::<Vec<_>>()
    );
}

#[test]
fn buffer_setter_rebinds_and_repoints_every_node() {
    let gpu = gpu_or_skip!();
    let (mut a, mut b, mut c) = (gpu.poisoned(N), gpu.poisoned(N), gpu.poisoned(N));
    let (mut a2, mut c2) = (gpu.poisoned(N), gpu.poisoned(N));
    let mut exec = shared(&gpu, &mut a, &mut b, &mut c);
    exec.set_a(&mut a2).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.a().unwrap()),
        (0..N as u32).map(|i| i * 3 + 1).collect::<Vec<_>>()
    );
    // Poison the current `c`, swap in `c2`: the next launch must leave the old one alone.
    poison(&mut exec.c_mut().unwrap(), &gpu);
    exec.set_c(&mut c2).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.c().unwrap()),
        (0..N as u32).map(|i| (5000 + i) * 2).collect::<Vec<_>>()
    );
    drop(exec);
    assert!(
        gpu.read(&c).iter().all(|&v| v == POISON),
        "the old `c` is untouched"
    );
    assert!(
        gpu.read(&a).iter().all(|&v| v == POISON),
        "the old `a` is untouched"
    );
}

#[test]
fn memset_param_memcpy_callback_and_event_setters() {
    let gpu = gpu_or_skip!();
    let (mut y, mut z, mut copy) = (gpu.poisoned(N), gpu.poisoned(N), gpu.poisoned(N));
    let (mut z2, mut short) = (gpu.poisoned(N), gpu.poisoned(N - 1));
    let (first, second) = (AtomicU32::new(0), AtomicU32::new(0));
    let tick1 = || {
        first.fetch_add(1, Ordering::SeqCst);
    };
    let tick2 = || {
        second.fetch_add(1, Ordering::SeqCst);
    };
    let (e1, e2) = (
        gpu.ctx.new_event(None).unwrap(),
        gpu.ctx.new_event(None).unwrap(),
    );
    let mut exec = Signals::build(
        &gpu.module,
        SignalsInputs {
            y: &mut y,
            z: &mut z,
            copy: &mut copy,
            v: 11,
            n: N as u32,
            tick: &tick1,
            done: &e1,
        },
    )
    .unwrap()
    .instantiate()
    .unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.z().unwrap()).iter().all(|&v| v == 11));
    assert_eq!(gpu.read(exec.copy().unwrap()), iota(3, N));
    exec.set_v(12).unwrap();
    exec.set_tick(&tick2).unwrap();
    exec.set_done(&e2).unwrap();
    exec.launch(&gpu.stream).unwrap();
    e2.synchronize().unwrap();
    assert_eq!(
        second.load(Ordering::SeqCst),
        1,
        "the graph recorded e2 after `note` ran"
    );
    assert!(gpu.read(exec.z().unwrap()).iter().all(|&v| v == 12));
    // Rebinding the memset's destination: a too-short buffer is refused, nothing changes.
    let e = exec.set_z(&mut short).unwrap_err();
    assert!(
        matches!(&e, EditError::BufferTooShort { node, .. } if node == "clear"),
        "{e}"
    );
    // A setter sends only what uses its input: rebinding `z` keeps the view's value edit, and
    // `set_v` then sets the value again.
    exec.clear().unwrap().set_value(20).unwrap();
    exec.set_z(&mut z2).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.z().unwrap()).iter().all(|&v| v == 20));
    exec.set_v(13).unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    assert!(gpu.read(exec.z().unwrap()).iter().all(|&v| v == 13));
    assert_eq!(first.load(Ordering::SeqCst), 1);
    assert_eq!(second.load(Ordering::SeqCst), 3);
    drop(exec);
    assert!(
        gpu.read(&z).iter().all(|&v| v == 12),
        "the old `z` kept its last value"
    );
    assert!(gpu.read(&short).iter().all(|&v| v == POISON));
}

#[test]
fn child_graph_declared_with_the_macro() {
    let gpu = gpu_or_skip!();
    let mut y = gpu.poisoned(N);
    let mut exec = Outer::build(
        &gpu.module,
        OuterInputs {
            y: &mut y,
            n: N as u32,
        },
    )
    .unwrap()
    .instantiate()
    .unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.y().unwrap());
    // The child doubles-plus-one the first 512 elements.
    for (i, v) in got.iter().enumerate() {
        let base = 10 + i as u32;
        let want = if i < 512 { base * 2 + 1 } else { base };
        assert_eq!(*v, want, "element {i}");
    }
}

#[test]
fn dot_is_computed_at_compile_time_and_matches_the_runtime() {
    // No GPU needed.
    let mut t = Topology::new();
    let names = [
        "fill_a", "fill_b", "fill_c", "scale_a", "scale_b", "other_c",
    ];
    for (i, n) in names.iter().enumerate() {
        assert_eq!(t.add_node(n, NodeKind::Kernel).unwrap(), i as u32);
    }
    for (a, b) in [(0, 3), (1, 4), (2, 5)] {
        t.add_edge(a, b).unwrap();
    }
    assert_eq!(Shared::DOT, t.to_dot("Shared"));
    assert!(Shared::DOT.starts_with("digraph \"Shared\""));
    assert!(Signals::DOT.contains("\"rec\" [label=\"rec\\nevent record\", shape=diamond];"));
}

/// The nodes of one kernel are added together (its parameters checked once), yet each node's
/// launch is checked on its own: a block too large for the device on the second node is an
/// error naming it; a valid one builds and runs.
#[test]
fn each_node_of_a_kernel_has_its_launch_checked() {
    let gpu = gpu_or_skip!();
    let mut y = gpu.upload(&vec![POISON; 128]);
    let Err(e) = Blocks::build(
        &gpu.module,
        BlocksInputs {
            y: &mut y,
            threads: 4096,
        },
    ) else {
        panic!("a block of 4096 threads was accepted");
    };
    assert!(
        matches!(&e, Error::Build(BuildError::InvalidLaunch { node, .. }) if node == "second"),
        "{e}"
    );
    let mut exec = Blocks::build(
        &gpu.module,
        BlocksInputs {
            y: &mut y,
            threads: 64,
        },
    )
    .unwrap()
    .instantiate()
    .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.y().unwrap());
    let want: Vec<u32> = (0..128).map(|i| if i < 64 { 7 + i } else { i }).collect();
    assert_eq!(got, want);
}

/// The nodes of one kernel, as `cuda_graph!` adds them (`Graph::add_kernels_after`): every row
/// is checked and its arguments written before the first driver node is made, so a mistake in
/// a later row (a block too large for the device, a buffer of another graph) adds none of them
/// and the graph stays usable; right rows then build a chain that computes what the CPU does.
#[test]
fn a_mistake_in_any_row_of_a_kernel_adds_none_of_them() {
    use cuda_graph::{error::HandleError, Graph, LaunchConfig};
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_u32");
    let n = 256u32;
    let (mut y, mut elsewhere) = (gpu.poisoned(n as usize), gpu.poisoned(n as usize));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut other = Graph::new(&gpu.ctx).unwrap();
    let foreign = other.bind_mut(&mut elsewhere).unwrap();
    let rows: [(&'static str, &[u32]); 3] = [("a", &[]), ("b", &[0]), ("c", &[1])];
    let ok = LaunchConfig::for_num_elems(n);
    let too_big = LaunchConfig {
        block_dim: (4096, 1, 1),
        ..ok
    };
    let mut handles = Vec::new();

    let e = g
        .add_kernels_after(&iota, &rows, &mut handles, |j| {
            (if j == 2 { too_big } else { ok }, (yb, 10 * j as u32, n))
        })
        .unwrap_err();
    assert!(
        matches!(&e, BuildError::InvalidLaunch { node, .. } if node == "c"),
        "{e}"
    );
    assert_eq!(
        (g.len(), handles.len()),
        (0, 0),
        "no row of the kernel was added"
    );

    let e = g
        .add_kernels_after(&iota, &rows, &mut handles, |j| {
            (ok, (if j == 1 { foreign } else { yb }, 10 * j as u32, n))
        })
        .unwrap_err();
    assert!(
        matches!(&e, BuildError::Handle(HandleError::Foreign { .. })),
        "{e}"
    );
    assert_eq!(
        (g.len(), handles.len()),
        (0, 0),
        "no row of the kernel was added"
    );

    // A row given a node of the same batch twice: an error naming both (that node is not
    // recorded yet).
    let twice: [(&'static str, &[u32]); 2] = [("a", &[]), ("b", &[0, 0])];
    let e = g
        .add_kernels_after(&iota, &twice, &mut handles, |j| (ok, (yb, j as u32, n)))
        .unwrap_err();
    assert!(
        matches!(&e, BuildError::RepeatedDependency { node, dependency } if node == "b" && dependency == "a"),
        "{e}"
    );
    assert_eq!(
        (g.len(), handles.len()),
        (0, 0),
        "no row of the kernel was added"
    );

    // Each row overwrites what the one before it wrote: the last one's values stay.
    g.add_kernels_after(&iota, &rows, &mut handles, |j| (ok, (yb, 10 * j as u32, n)))
        .unwrap();
    assert_eq!((g.len(), handles.len()), (3, 3));
    assert_eq!(g.topology().name(2), "c");
    assert!(g.to_dot().contains("\"b\" -> \"c\""));
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    let got = gpu.read(exec.buffer(yb).unwrap());
    let want: Vec<u32> = (0..n).map(|i| 20 + i).collect();
    assert_eq!(got, want);
}
