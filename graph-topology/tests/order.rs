//! The order proof for collectives (`Topology::unordered_pairs`) against a brute-force oracle:
//! on small random DAGs with a random subset of nodes marked, every topological order is
//! enumerated; the marked nodes come in one sequence in all of them exactly when the proof
//! finds no unordered pair, and a pair is reported exactly when some order puts either first.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use std::collections::BTreeSet;

use cuda_graph_topology::{NodeKind, Topology};
use proptest::prelude::*;

/// A random DAG of up to 7 nodes (edges go forward in a random permutation, so node indices
/// do not follow the order), and a random subset of marked nodes, listed in index order.
fn case() -> impl Strategy<Value = (usize, Vec<(u32, u32)>, Vec<u32>)> {
    (1usize..=7).prop_flat_map(|n| {
        let perm = Just((0..n as u32).collect::<Vec<_>>()).prop_shuffle();
        let pairs = prop::collection::btree_set((0..n as u32, 0..n as u32), 0..=n * 2);
        let marked = prop::collection::vec(any::<bool>(), n);
        (Just(n), perm, pairs, marked).prop_map(|(n, perm, pairs, marked)| {
            let edges = pairs
                .into_iter()
                .filter(|(a, b)| a < b)
                .map(|(a, b)| (perm[a as usize], perm[b as usize]))
                .collect();
            let marked = (0..n as u32).filter(|&i| marked[i as usize]).collect();
            (n, edges, marked)
        })
    })
}

fn build(n: usize, edges: &[(u32, u32)]) -> Topology {
    let mut t = Topology::new();
    for i in 0..n {
        t.add_node(&format!("n{i}"), NodeKind::Captured).unwrap();
    }
    for &(a, b) in edges {
        t.add_edge(a, b).unwrap();
    }
    t
}

/// Every topological order of the DAG, by backtracking over the nodes ready at each step.
fn all_orders(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
    fn go(
        n: usize,
        edges: &[(u32, u32)],
        indeg: &mut Vec<usize>,
        done: &mut Vec<bool>,
        prefix: &mut Vec<u32>,
        out: &mut Vec<Vec<u32>>,
    ) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for v in 0..n as u32 {
            if done[v as usize] || indeg[v as usize] != 0 {
                continue;
            }
            done[v as usize] = true;
            prefix.push(v);
            for &(a, b) in edges {
                if a == v {
                    indeg[b as usize] -= 1;
                }
            }
            go(n, edges, indeg, done, prefix, out);
            for &(a, b) in edges {
                if a == v {
                    indeg[b as usize] += 1;
                }
            }
            prefix.pop();
            done[v as usize] = false;
        }
    }
    let mut indeg = vec![0; n];
    for &(_, b) in edges {
        indeg[b as usize] += 1;
    }
    let mut out = Vec::new();
    go(
        n,
        edges,
        &mut indeg,
        &mut vec![false; n],
        &mut Vec::new(),
        &mut out,
    );
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The proof accepts exactly when every topological order gives the marked nodes in one
    /// sequence.
    #[test]
    fn accepted_exactly_when_every_order_gives_one_sequence((n, edges, marked) in case()) {
        let t = build(n, &edges);
        let orders = all_orders(n, &edges);
        prop_assert!(!orders.is_empty());
        let sequences: BTreeSet<Vec<u32>> = orders
            .iter()
            .map(|o| o.iter().copied().filter(|v| marked.contains(v)).collect())
            .collect();
        let pairs = t.unordered_pairs(&t.reach(), &marked);
        prop_assert_eq!(pairs.is_empty(), sequences.len() == 1, "pairs {:?}, sequences {:?}", pairs, sequences);
    }

    /// A pair is reported exactly when some order runs one first and another the other, once,
    /// with the earlier-listed node first.
    #[test]
    fn a_pair_is_reported_exactly_when_orders_disagree_on_it((n, edges, marked) in case()) {
        let t = build(n, &edges);
        let orders = all_orders(n, &edges);
        let pos = |o: &[u32], v: u32| o.iter().position(|&x| x == v).unwrap();
        let mut expected = Vec::new();
        for (k, &a) in marked.iter().enumerate() {
            for &b in &marked[k + 1..] {
                let a_first = orders.iter().any(|o| pos(o, a) < pos(o, b));
                let b_first = orders.iter().any(|o| pos(o, b) < pos(o, a));
                if a_first && b_first {
                    expected.push((a, b));
                }
            }
        }
        prop_assert_eq!(t.unordered_pairs(&t.reach(), &marked), expected);
    }
}

#[test]
fn a_diamond_orders_its_ends_but_not_its_sides() {
    // a -> [b, c] -> d
    let t = build(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let r = t.reach();
    assert!(t.unordered_pairs(&r, &[0, 1, 3]).is_empty());
    assert_eq!(t.unordered_pairs(&r, &[0, 1, 2, 3]), vec![(1, 2)]);
}

#[test]
fn nodes_in_bodies_of_one_conditional_are_unordered() {
    // An IF/ELSE `c` with one node in each branch, and one node after it.
    let mut t = Topology::new();
    let c = t.add_node("c", NodeKind::Conditional).unwrap();
    let after = t.add_node("after", NodeKind::Captured).unwrap();
    t.add_edge(c, after).unwrap();
    let (then, other) = (t.add_body(c, "then"), t.add_body(c, "else"));
    let x = t.add_node_in("x", NodeKind::Captured, then).unwrap();
    let y = t.add_node_in("y", NodeKind::Captured, other).unwrap();
    let r = t.reach();
    assert_eq!(t.unordered_pairs(&r, &[x, y]), vec![(x, y)]);
    // Each is ordered before the node after the conditional, through it.
    assert!(t.unordered_pairs(&r, &[x, after]).is_empty());
}
