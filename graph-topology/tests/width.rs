//! Width capping on random DAGs: the edges added never close a cycle, never repeat a path that
//! exists, leave concurrent nodes alone, and bring the width down to the lane count; a graph
//! narrower than that gets none.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use std::collections::BTreeSet;

use cuda_graph_topology::{NodeKind, Topology};
use proptest::prelude::*;

/// A random DAG: edges only from lower to higher index.
fn dag() -> impl Strategy<Value = (usize, BTreeSet<(u32, u32)>)> {
    (1usize..120).prop_flat_map(|n| {
        let edges = prop::collection::btree_set((0..n as u32, 0..n as u32), 0..n * 2)
            .prop_map(|e| e.into_iter().filter(|(a, b)| a < b).collect());
        (Just(n), edges)
    })
}

fn build(n: usize, edges: &BTreeSet<(u32, u32)>) -> Topology {
    let mut t = Topology::new();
    for i in 0..n {
        t.add_node(&format!("n{i}"), NodeKind::Kernel).unwrap();
    }
    for &(a, b) in edges {
        t.add_edge(a, b).unwrap();
    }
    t
}

/// Whether `b` is reachable from `a` along `edges`.
fn reaches(edges: &[(u32, u32)], a: u32, b: u32) -> bool {
    let mut stack = vec![a];
    let mut seen = BTreeSet::new();
    while let Some(v) = stack.pop() {
        if v == b {
            return true;
        }
        if seen.insert(v) {
            stack.extend(edges.iter().filter(|e| e.0 == v).map(|e| e.1));
        }
    }
    false
}

/// Every node's descendants.
fn closure(n: usize, edges: &[(u32, u32)]) -> Vec<BTreeSet<u32>> {
    (0..n as u32)
        .map(|a| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![a];
            while let Some(v) = stack.pop() {
                for &(x, y) in edges {
                    if x == v && seen.insert(y) {
                        stack.push(y);
                    }
                }
            }
            seen
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn capping_is_acyclic_minimal_and_narrow(
        (n, edges) in dag(),
        lanes in 1usize..12,
        concurrent in prop::collection::btree_set(0u32..120, 0..10),
    ) {
        let mut t = build(n, &edges);
        let keep = |i: u32| concurrent.contains(&i);
        let width = t.width();
        let added = t.cap_width(lanes, &keep);
        if width <= lanes {
            prop_assert!(added.is_empty());
            return Ok(());
        }
        let mut all: Vec<(u32, u32)> = edges.iter().copied().collect();
        for &(a, b) in &added {
            prop_assert!(!keep(a) && !keep(b), "an edge touches a concurrent node");
            prop_assert!(!reaches(&all, a, b), "{a} -> {b} was implied");
            prop_assert!(!reaches(&all, b, a), "{a} -> {b} closes a cycle");
            all.push((a, b));
        }
        // The user's edges left out are implied by what stays: the order is the same.
        let capping = t.capping(lanes, lanes, &keep);
        prop_assert_eq!(&capping.added, &added);
        let kept: Vec<(u32, u32)> = all
            .iter()
            .copied()
            .filter(|e| !capping.redundant.contains(e))
            .collect();
        for &(a, b) in &capping.redundant {
            prop_assert!(edges.contains(&(a, b)), "only the user's edges are left out");
            prop_assert!(reaches(&kept, a, b), "{a} -> {b} was left out but is not implied");
        }
        prop_assert_eq!(closure(n, &all), closure(n, &kept), "the order changed");
        t.set_ordering_edges(added);
        // Each lane is a chain: at most `lanes` ordinary nodes are unordered at once.
        let exempt = (0..n as u32).filter(|&i| keep(i)).count();
        prop_assert!(t.capped_width() <= lanes + exempt, "{} > {lanes} + {exempt}", t.capped_width());
        prop_assert_eq!(t.edges().len(), edges.len(), "the user's edges are untouched");
    }
}

#[test]
fn a_fan_out_becomes_lanes_and_its_dot_draws_them_dashed() {
    let mut t = Topology::new();
    let root = t.add_node("root", NodeKind::Kernel).unwrap();
    let leaves: Vec<u32> = (0..6)
        .map(|i| t.add_node(&format!("l{i}"), NodeKind::Kernel).unwrap())
        .collect();
    let sink = t.add_node("sink", NodeKind::Kernel).unwrap();
    for &l in &leaves {
        t.add_edge(root, l).unwrap();
        t.add_edge(l, sink).unwrap();
    }
    assert_eq!(t.width(), 6);
    let added = t.cap_width(2, &|_| false);
    // l0 and l1 open the two lanes; l2..l5 follow them in turn.
    assert_eq!(added, vec![(1, 3), (2, 4), (3, 5), (4, 6)]);
    t.set_ordering_edges(added);
    assert_eq!(t.capped_width(), 2);
    assert!(t.to_dot("g").contains("\"l0\" -> \"l2\" [style=dashed];"));
    assert_eq!(t.take_ordering_edges().len(), 4);
    assert!(!t.to_dot("g").contains("dashed"));
}

#[test]
fn chains_and_narrow_graphs_are_left_as_written() {
    let mut t = Topology::new();
    for i in 0..50 {
        t.add_node(&format!("c{i}"), NodeKind::Kernel).unwrap();
        if i > 0 {
            t.add_edge(i - 1, i).unwrap();
        }
    }
    assert_eq!(t.width(), 1);
    assert!(t.cap_width(1, &|_| false).is_empty());
    let mut fan = Topology::new();
    let root = fan.add_node("root", NodeKind::Kernel).unwrap();
    for i in 0..8 {
        let l = fan.add_node(&format!("h{i}"), NodeKind::Kernel).unwrap();
        fan.add_edge(root, l).unwrap();
    }
    assert!(fan.cap_width(8, &|_| false).is_empty());
}
