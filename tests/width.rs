//! Width capping on a real GPU: capped and uncapped wide graphs compute bit-identical results
//! on work whose steps do not commute, setters and both update paths keep working on a capped
//! graph, and host, event and `keep_concurrent` (`#[concurrent]`) nodes are never ordered.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use cuda_graph::cudarc::driver::CudaSlice;
use cuda_graph::{
    buffer::BufMut,
    cuda_graph,
    exec::{Instantiate, UpdatePath, DEFAULT_LANES},
    node::{Dep, KernelNode},
    Graph, GraphExec, Kernel, LaunchConfig,
};

/// Chains of this many steps, one per 32-value slot, side by side.
const DEPTH: usize = 3;
const CHAINS: usize = 300;

fn one_block() -> LaunchConfig {
    LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The constants of step `j` of chain `k`.
fn step(k: usize, j: usize) -> (u32, u32) {
    (3 + (k * 7 + j * 13) as u32 % 29, (k * 31 + j * 17) as u32)
}

/// What the chains leave in `y` (wrapping arithmetic, as the kernel), with steps changed by
/// `edits`: `(chain, step, mul, add)`, and extra steps appended by `extra`.
fn expected(edits: &[(usize, usize, u32, u32)], extra: &[(usize, u32, u32)]) -> Vec<u32> {
    let mut y = initial();
    for k in 0..CHAINS {
        let mut steps: Vec<(u32, u32)> = (0..DEPTH).map(|j| step(k, j)).collect();
        for &(ek, ej, m, a) in edits {
            if ek == k {
                steps[ej] = (m, a);
            }
        }
        steps.extend(extra.iter().filter(|e| e.0 == k).map(|e| (e.1, e.2)));
        for (mul, add) in steps {
            for i in 0..32 {
                let v = &mut y[k * 32 + i];
                *v = v.wrapping_mul(mul).wrapping_add(add);
            }
        }
    }
    y
}

fn initial() -> Vec<u32> {
    (0..(CHAINS * 32) as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect()
}

type Affine = KernelNode<(BufMut<u32>, u32, u32, u32, u32)>;

/// A root, `CHAINS` chains of `DEPTH` non-commuting steps, a sink: `CHAINS` wide.
fn wide<'a>(
    gpu: &common::Gpu,
    affine: &'a Kernel,
    y: &'a mut CudaSlice<u32>,
) -> (Graph<'a>, Vec<Vec<Affine>>, BufMut<u32>) {
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(y).unwrap();
    let root = g.add_empty("root", &[]).unwrap();
    let mut chains = Vec::new();
    for k in 0..CHAINS {
        let mut chain: Vec<Affine> = Vec::new();
        for j in 0..DEPTH {
            let (mul, add) = step(k, j);
            let deps: Vec<&dyn Dep> = match chain.last() {
                Some(p) => vec![p],
                None => vec![&root],
            };
            let args = (yb, (k * 32) as u32, 32u32, mul, add);
            let n = g
                .add_kernel(&format!("c{k}_{j}"), &deps, affine, one_block(), args)
                .unwrap();
            chain.push(n);
        }
        chains.push(chain);
    }
    let ends: Vec<Affine> = chains.iter().map(|c| c[DEPTH - 1]).collect();
    let deps: Vec<&dyn Dep> = ends.iter().map(|e| e as &dyn Dep).collect();
    g.add_empty("sink", &deps).unwrap();
    (g, chains, yb)
}

/// Uploads the initial values, launches once, and reads `y` back.
fn run(gpu: &common::Gpu, exec: &mut GraphExec<'_>, yb: BufMut<u32>) -> Vec<u32> {
    gpu.stream
        .memcpy_htod(&initial(), &mut exec.buffer_mut(yb).unwrap())
        .unwrap();
    exec.launch(&gpu.stream).unwrap();
    gpu.read(exec.buffer(yb).unwrap())
}

#[test]
fn capped_and_uncapped_wide_graphs_compute_bit_identical_results() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_at");
    let (mut y1, mut y2) = (gpu.poisoned(CHAINS * 32), gpu.poisoned(CHAINS * 32));
    let (g1, _, yb1) = wide(&gpu, &affine, &mut y1);
    let (g2, _, yb2) = wide(&gpu, &affine, &mut y2);
    assert_eq!(g1.topology().width(), CHAINS);
    let mut capped = g1
        .instantiate_with(Instantiate::new().width_cap(16))
        .unwrap();
    let mut plain = g2
        .instantiate_with(Instantiate::new().no_width_cap())
        .unwrap();
    let t = capped.graph().topology();
    assert!(!t.ordering_edges().is_empty());
    assert!(t.capped_width() <= 16, "{}", t.capped_width());
    assert!(t.to_dot("g").contains("[style=dashed]"));
    assert!(plain.graph().topology().ordering_edges().is_empty());
    let (a, b) = (run(&gpu, &mut capped, yb1), run(&gpu, &mut plain, yb2));
    assert_eq!(a, b, "capping changed a result");
    assert_eq!(a, expected(&[], &[]));
}

#[test]
fn setters_and_both_update_paths_keep_working_on_a_capped_graph() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_at");
    let mut y = gpu.poisoned(CHAINS * 32);
    let (g, chains, yb) = wide(&gpu, &affine, &mut y);
    let mut exec = g.instantiate().unwrap();
    assert!(!exec.graph().topology().ordering_edges().is_empty());
    assert_eq!(run(&gpu, &mut exec, yb), expected(&[], &[]));

    // A node setter.
    let (m, a) = step(5, 1);
    exec.node(chains[5][1])
        .unwrap()
        .set_arg::<3>(m + 2)
        .unwrap();
    let mut edits = vec![(5, 1, m + 2, a)];
    assert_eq!(run(&gpu, &mut exec, yb), expected(&edits, &[]));

    // A template edit, updated in place: the ordering edges are in the template too.
    let (m, _) = step(7, 0);
    exec.graph_mut()
        .node(chains[7][0])
        .unwrap()
        .set_arg::<4>(99)
        .unwrap();
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
    edits.push((7, 0, m, 99));
    assert_eq!(run(&gpu, &mut exec, yb), expected(&edits, &[]));

    // A node added: instantiated anew, and capped anew with the new node.
    let g = exec.graph_mut();
    let last = chains[9][DEPTH - 1];
    g.add_kernel(
        "extra",
        &[&last],
        &affine,
        one_block(),
        (yb, 9 * 32, 32u32, 5u32, 1u32),
    )
    .unwrap();
    assert!(matches!(
        exec.update().unwrap(),
        UpdatePath::Reinstantiated { .. }
    ));
    let t = exec.graph().topology();
    assert!(!t.ordering_edges().is_empty());
    assert!(t.capped_width() <= DEFAULT_LANES, "{}", t.capped_width());
    let extra = [(9, 5, 1)];
    assert_eq!(run(&gpu, &mut exec, yb), expected(&edits, &extra));

    // A user edge: the ordering edges go first (they could close a cycle with it), and the
    // update caps again.
    exec.graph_mut()
        .add_edge(&chains[0][DEPTH - 1], &chains[1][0])
        .unwrap();
    assert!(exec.graph().topology().ordering_edges().is_empty());
    assert!(matches!(
        exec.update().unwrap(),
        UpdatePath::Reinstantiated { .. }
    ));
    assert!(!exec.graph().topology().ordering_edges().is_empty());
    assert_eq!(run(&gpu, &mut exec, yb), expected(&edits, &extra));
}

#[test]
fn host_event_and_kept_concurrent_nodes_are_never_ordered() {
    let gpu = gpu_or_skip!();
    let iota = gpu.f("iota_at");
    let ran = AtomicU32::new(0);
    let ev = gpu.ctx.new_event(None).unwrap();
    let mut y = gpu.poisoned(100 * 32);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let root = g.add_empty("root", &[]).unwrap();
    let mut leaves = Vec::new();
    for k in 0..100u32 {
        let args = (yb, 32 * k, 32u32, 1000 * k);
        leaves.push(
            g.add_kernel(&format!("l{k}"), &[&root], &iota, one_block(), args)
                .unwrap(),
        );
    }
    let mut exempt = Vec::new();
    for k in 0..40 {
        let h = g
            .add_host(&format!("h{k}"), &[&root], || {
                ran.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
        exempt.push(h.id().index() as u32);
    }
    exempt.push(
        g.add_event_record("rec", &[&root], &ev)
            .unwrap()
            .id()
            .index() as u32,
    );
    g.keep_concurrent(&leaves[0]).unwrap();
    exempt.push(leaves[0].id().index() as u32);
    let mut exec = g.instantiate_with(Instantiate::new().width_cap(8)).unwrap();
    let edges = exec.graph().topology().ordering_edges().to_vec();
    assert!(!edges.is_empty());
    assert!(
        edges
            .iter()
            .all(|(a, b)| !exempt.contains(a) && !exempt.contains(b)),
        "an ordering edge touches a host, event or concurrent node"
    );
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 40);
    let got = gpu.read(exec.buffer(yb).unwrap());
    for k in 0..100u32 {
        for i in 0..32u32 {
            assert_eq!(got[(32 * k + i) as usize], 1000 * k + i);
        }
    }
}

cuda_graph! {
    /// 40 leaves; `l01` is kept out of width capping.
    graph Wide40 {
        kernel iota_at(y: &mut [u32], offset: u32, count: u32, base: u32);
        #[disjoint]
        buffer mut y: u32;
        root = iota_at<<<1, 32>>>(y, 0, 32, 0);
        #[concurrent]
        l01 = iota_at<<<1, 32>>>(y, 32, 32, 1);
        l02 = iota_at<<<1, 32>>>(y, 64, 32, 2);
        l03 = iota_at<<<1, 32>>>(y, 96, 32, 3);
        l04 = iota_at<<<1, 32>>>(y, 128, 32, 4);
        l05 = iota_at<<<1, 32>>>(y, 160, 32, 5);
        l06 = iota_at<<<1, 32>>>(y, 192, 32, 6);
        l07 = iota_at<<<1, 32>>>(y, 224, 32, 7);
        l08 = iota_at<<<1, 32>>>(y, 256, 32, 8);
        l09 = iota_at<<<1, 32>>>(y, 288, 32, 9);
        l10 = iota_at<<<1, 32>>>(y, 320, 32, 10);
        l11 = iota_at<<<1, 32>>>(y, 352, 32, 11);
        l12 = iota_at<<<1, 32>>>(y, 384, 32, 12);
        l13 = iota_at<<<1, 32>>>(y, 416, 32, 13);
        l14 = iota_at<<<1, 32>>>(y, 448, 32, 14);
        l15 = iota_at<<<1, 32>>>(y, 480, 32, 15);
        l16 = iota_at<<<1, 32>>>(y, 512, 32, 16);
        l17 = iota_at<<<1, 32>>>(y, 544, 32, 17);
        l18 = iota_at<<<1, 32>>>(y, 576, 32, 18);
        l19 = iota_at<<<1, 32>>>(y, 608, 32, 19);
        l20 = iota_at<<<1, 32>>>(y, 640, 32, 20);
        l21 = iota_at<<<1, 32>>>(y, 672, 32, 21);
        l22 = iota_at<<<1, 32>>>(y, 704, 32, 22);
        l23 = iota_at<<<1, 32>>>(y, 736, 32, 23);
        l24 = iota_at<<<1, 32>>>(y, 768, 32, 24);
        l25 = iota_at<<<1, 32>>>(y, 800, 32, 25);
        l26 = iota_at<<<1, 32>>>(y, 832, 32, 26);
        l27 = iota_at<<<1, 32>>>(y, 864, 32, 27);
        l28 = iota_at<<<1, 32>>>(y, 896, 32, 28);
        l29 = iota_at<<<1, 32>>>(y, 928, 32, 29);
        l30 = iota_at<<<1, 32>>>(y, 960, 32, 30);
        l31 = iota_at<<<1, 32>>>(y, 992, 32, 31);
        l32 = iota_at<<<1, 32>>>(y, 1024, 32, 32);
        l33 = iota_at<<<1, 32>>>(y, 1056, 32, 33);
        l34 = iota_at<<<1, 32>>>(y, 1088, 32, 34);
        l35 = iota_at<<<1, 32>>>(y, 1120, 32, 35);
        l36 = iota_at<<<1, 32>>>(y, 1152, 32, 36);
        l37 = iota_at<<<1, 32>>>(y, 1184, 32, 37);
        l38 = iota_at<<<1, 32>>>(y, 1216, 32, 38);
        l39 = iota_at<<<1, 32>>>(y, 1248, 32, 39);
        l40 = iota_at<<<1, 32>>>(y, 1280, 32, 40);
        sink = iota_at<<<1, 32>>>(y, 1312, 32, 41);
        root -> [l01, l02, l03, l04, l05, l06, l07, l08, l09, l10, l11, l12, l13, l14,
            l15, l16, l17, l18, l19, l20, l21, l22, l23, l24, l25, l26, l27, l28, l29,
            l30, l31, l32, l33, l34, l35, l36, l37, l38, l39, l40] -> sink;
    }
}

#[test]
fn a_concurrent_node_of_a_macro_graph_is_kept_out_of_capping() {
    let gpu = gpu_or_skip!();
    let mut y = gpu.poisoned(42 * 32);
    let graph = Wide40::build(&gpu.module, Wide40Inputs { y: &mut y }).unwrap();
    // 40 wide: under the default threshold, so capped on request.
    let mut exec = graph
        .instantiate_with(Instantiate::new().width_cap(8))
        .unwrap();
    let t = exec.graph().topology();
    let l01 = t.find("l01").unwrap();
    assert!(!t.ordering_edges().is_empty());
    assert!(t
        .ordering_edges()
        .iter()
        .all(|&(a, b)| a != l01 && b != l01));
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.y().unwrap());
    for k in 0..42u32 {
        for i in 0..32u32 {
            assert_eq!(got[(32 * k + i) as usize], k + i, "slot {k}");
        }
    }
}
