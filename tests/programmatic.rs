//! Programmatic edges (programmatic dependent launch): a `cuda_graph!` chain whose edges the
//! macro accepted after proving each kernel waits before it reads, the runtime API
//! (`Graph::add_programmatic_edge`), in-place updates that keep them, and their removal.
//! Results are checked exactly against a CPU computation on every launch (a dependent that
//! read before its predecessor finished would see the poison or stale values).

mod common;

use cuda_graph::cudarc::driver::CudaSlice;
use cuda_graph::exec::UpdatePath;
use cuda_graph::topology::Port;
use cuda_graph::{cuda_graph, Graph, LaunchConfig};

const N: usize = 4096;

cuda_graph! {
    /// x -> a -> b -> c -> d, every edge programmatic, with different grids.
    graph Chain {
        source "tests/kernels/pdl.cu";
        kernel affine;
        kernel reverse_add;
        buffer x: f32;
        buffer mut a: f32;
        buffer mut b: f32;
        buffer mut c: f32;
        buffer mut d: f32;
        param n: i32;
        param k: f32;
        s1 = affine<<<16, 256>>>(x, a, 2.0, 1.0, n);
        s2 = reverse_add<<<32, 128>>>(a, b, k, n);
        s3 = affine<<<8, 512>>>(b, c, 0.5, k, n);
        s4 = reverse_add<<<64, 64>>>(c, d, 3.0, n);
        #[programmatic]
        s1 -> s2 -> s3 -> s4;
    }
}

cuda_graph! {
    /// s0, then `steps` iterations of u -> v, each carried into the next, then s9. With
    /// `#[programmatic]` on the graph every edge is programmatic: those in each iteration, the
    /// carry edges, and the edges into the first iteration and out of the last.
    #[programmatic]
    graph Looped {
        source "tests/kernels/pdl.cu";
        kernel affine;
        kernel reverse_add;
        buffer x: f32;
        buffer mut a: f32;
        buffer mut b: f32;
        buffer mut d: f32;
        param n: i32;
        param steps: u32;
        s0 = affine<<<16, 256>>>(x, a, 2.0, 1.0, n);
        body = repeat l in 0..steps {
            u = affine<<<8, 512>>>(a, b, 0.5, 1.0, n);
            v = reverse_add<<<32, 128>>>(b, a, 2.0, n);
            u -> v;
            carry v -> u;
        }
        s9 = reverse_add<<<64, 64>>>(a, d, 3.0, n);
        s0 -> body -> s9;
    }
}

cuda_graph! {
    /// `Looped` with its iterations' intermediate in a temporary: the graph then holds memory
    /// nodes, where the driver refuses to turn a plain edge into a programmatic one, so every
    /// programmatic edge must be added as such.
    #[programmatic]
    graph LoopedTemp {
        source "tests/kernels/pdl.cu";
        kernel affine;
        kernel reverse_add;
        buffer x: f32;
        buffer mut a: f32;
        buffer mut d: f32;
        temp t: [f32; n as usize];
        param n: i32;
        param steps: u32;
        s0 = affine<<<16, 256>>>(x, a, 2.0, 1.0, n);
        body = repeat l in 0..steps {
            u = affine<<<8, 512>>>(a, t, 0.5, 1.0, n);
            v = reverse_add<<<32, 128>>>(t, a, 2.0, n);
            u -> v;
            carry v -> u;
        }
        s9 = reverse_add<<<64, 64>>>(a, d, 3.0, n);
        s0 -> body -> s9;
    }
}

fn input() -> Vec<f32> {
    (0..N).map(|i| (i % 97) as f32 - 40.0).collect()
}

/// The chain on the CPU (every step exact in f32 for these inputs).
fn expected(x: &[f32], k: f32) -> Vec<f32> {
    let a: Vec<f32> = x.iter().map(|v| v * 2.0 + 1.0).collect();
    let b: Vec<f32> = (0..N).map(|i| a[N - 1 - i] + k).collect();
    let c: Vec<f32> = b.iter().map(|v| v * 0.5 + k).collect();
    (0..N).map(|i| c[N - 1 - i] + 3.0).collect()
}

#[test]
fn a_programmatic_chain_computes_what_the_cpu_does_on_every_launch() {
    let gpu = gpu_or_skip!();
    assert!(Chain::DOT.contains("\"s1\" -> \"s2\" [style=bold, label=\"programmatic\"];"));
    let x = input();
    let nan = f32::from_bits(0x7fc0_dead);
    let dx = gpu.upload(&x);
    let mut bufs: Vec<CudaSlice<f32>> = (0..4).map(|_| gpu.upload(&vec![nan; N])).collect();
    let [a, b, c, d] = &mut bufs[..] else {
        unreachable!()
    };
    let g = Chain::build_from_source(
        &gpu.ctx,
        ChainInputs {
            x: &dx,
            a,
            b,
            c,
            d,
            n: N as i32,
            k: 0.0,
        },
    )
    .unwrap();
    assert_eq!(g.graph().topology().programmatic_edges().len(), 3);
    let mut exec = g.instantiate().unwrap();
    for round in 0..50 {
        let k = (round % 7) as f32;
        exec.set_k(k).unwrap();
        exec.launch(&gpu.stream).unwrap();
        assert_eq!(
            gpu.read(exec.d().unwrap()),
            expected(&x, k),
            "round {round}"
        );
    }
}

/// `Looped` on the CPU (every step exact in f32 for these inputs).
fn looped(x: &[f32], steps: u32) -> Vec<f32> {
    let mut a: Vec<f32> = x.iter().map(|v| v * 2.0 + 1.0).collect();
    for _ in 0..steps {
        let b: Vec<f32> = a.iter().map(|v| v * 0.5 + 1.0).collect();
        a = (0..N).map(|i| b[N - 1 - i] + 2.0).collect();
    }
    (0..N).map(|i| a[N - 1 - i] + 3.0).collect()
}

/// Edges into and out of a repeat block are programmatic too (each target waits before it
/// reads, each source triggers): 2 per iteration less one carry, plus the two boundary edges;
/// a block that runs no time passes its dependency through, plain. Every launch computes what
/// the CPU does, so no kernel read before its predecessor was done.
#[test]
fn edges_into_and_out_of_a_repeat_block_are_programmatic() {
    let gpu = gpu_or_skip!();
    let x = input();
    let nan = f32::from_bits(0x7fc0_dead);
    let dx = gpu.upload(&x);
    for steps in [0u32, 1, 3, 6] {
        let mut bufs: Vec<CudaSlice<f32>> = (0..3).map(|_| gpu.upload(&vec![nan; N])).collect();
        let [a, b, d] = &mut bufs[..] else {
            unreachable!()
        };
        let g = Looped::build_from_source(
            &gpu.ctx,
            LoopedInputs {
                x: &dx,
                a,
                b,
                d,
                n: N as i32,
                steps,
            },
        )
        .unwrap();
        let t = g.graph().topology();
        let want = if steps == 0 {
            0
        } else {
            2 * steps as usize + 1
        };
        assert_eq!(t.programmatic_edges().len(), want, "{steps} steps");
        assert_eq!(t.edges().len(), want.max(1), "{steps} steps");
        let mut exec = g.instantiate().unwrap();
        for round in 0..20 {
            exec.launch(&gpu.stream).unwrap();
            assert_eq!(
                gpu.read(exec.d().unwrap()),
                looped(&x, steps),
                "{steps} steps, round {round}"
            );
        }
    }
}

/// The same with a temporary between the two kernels of an iteration: it builds (no plain
/// edge is turned into a programmatic one in a graph with memory nodes) and computes what the
/// CPU does.
#[test]
fn a_programmatic_repeat_block_with_a_temporary_builds_and_computes() {
    let gpu = gpu_or_skip!();
    let x = input();
    let nan = f32::from_bits(0x7fc0_dead);
    let dx = gpu.upload(&x);
    for steps in [1u32, 4] {
        let mut bufs: Vec<CudaSlice<f32>> = (0..2).map(|_| gpu.upload(&vec![nan; N])).collect();
        let [a, d] = &mut bufs[..] else {
            unreachable!()
        };
        let g = LoopedTemp::build_from_source(
            &gpu.ctx,
            LoopedTempInputs {
                x: &dx,
                a,
                d,
                n: N as i32,
                steps,
            },
        )
        .unwrap();
        assert!(!g.graph().topology().programmatic_edges().is_empty());
        let mut exec = g.instantiate().unwrap();
        for round in 0..5 {
            exec.launch(&gpu.stream).unwrap();
            assert_eq!(
                gpu.read(exec.d().unwrap()),
                looped(&x, steps),
                "{steps} steps, round {round}"
            );
        }
    }
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The runtime API: a plain edge made programmatic, a template edit and an in-place update
/// that keep it, a refused edge into a memset (nothing changes), and the edge removed again.
#[test]
fn runtime_programmatic_edges_survive_updates_and_can_be_removed() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, include_str!("kernels/pdl.cu")).unwrap();
    let (affine, reverse) = (
        module.function("affine").unwrap(),
        module.function("reverse_add").unwrap(),
    );
    let x = input();
    let nan = f32::from_bits(0x7fc0_dead);
    let dx = gpu.upload(&x);
    let (mut a, mut b) = (gpu.upload(&vec![nan; N]), gpu.upload(&vec![nan; N]));
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (xb, ab, bb) = (
        g.bind(&dx).unwrap(),
        g.bind_mut(&mut a).unwrap(),
        g.bind_mut(&mut b).unwrap(),
    );
    let n = N as i32;
    let s1 = g
        .add_kernel(
            "s1",
            &[],
            &affine,
            cfg(16, 256),
            (xb, ab, 2.0f32, 1.0f32, n),
        )
        .unwrap();
    let s2 = g
        .add_kernel(
            "s2",
            &[&s1],
            &reverse,
            cfg(32, 128),
            (ab.read(), bb, 0.0f32, n),
        )
        .unwrap();
    let clear = g.add_memset("clear", &[&s2], ab, 0.0f32).unwrap();
    g.add_programmatic_edge(&s1, &s2, Port::Programmatic)
        .unwrap();
    assert!(g
        .to_dot()
        .contains("\"s1\" -> \"s2\" [style=bold, label=\"programmatic\"];"));
    // Into a memset: refused, the graph as it was.
    let err = g
        .add_programmatic_edge(&s2, &clear, Port::Programmatic)
        .unwrap_err();
    assert!(err.to_string().contains("`clear` is not a kernel"), "{err}");
    let want = |bias: f32| -> Vec<f32> {
        let a: Vec<f32> = x.iter().map(|v| v * 2.0 + bias).collect();
        (0..N).map(|i| a[N - 1 - i]).collect()
    };
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(bb).unwrap()), want(1.0));

    // A template edit, updated in place: the programmatic edge stays.
    exec.graph_mut()
        .node(s1)
        .unwrap()
        .set_arg::<3>(5.0f32)
        .unwrap();
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(bb).unwrap()), want(5.0));
    assert_eq!(exec.graph().topology().programmatic_edges().len(), 1);

    // Removed (and a plain edge in its place): the graph is instantiated anew.
    exec.graph_mut().remove_edge(&s1, &s2).unwrap();
    exec.graph_mut().add_edge(&s1, &s2).unwrap();
    assert!(exec.graph().topology().programmatic_edges().is_empty());
    assert_ne!(exec.update().unwrap(), UpdatePath::InPlace);
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(bb).unwrap()), want(5.0));
}

/// The graphs' sources compiled as `build_from_source` will, to machine code, with no GPU:
/// sm_90 only (`tests/kernels/pdl.cu` runs `griddepcontrol` itself, which sm_80 does not have).
#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(
        &[
            ("Chain", Chain::check_source),
            ("Looped", Looped::check_source),
            ("LoopedTemp", LoopedTemp::check_source),
        ],
        &[cuda_graph::check::Arch::SM_90],
    );
}
