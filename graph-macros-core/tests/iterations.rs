//! The race check between iterations of a repeat block against a brute-force oracle.
//!
//! Random bodies (a DAG of up to 5 nodes), carry edges and accesses (a plain buffer, and a
//! stack indexed `l + c` or by a literal) are checked by `cross_races`, which reasons on the
//! body once, and by a plain interpreter that unrolls the block `n` times, computes which node
//! instances reach which, and looks at every pair of instances that touch one buffer. For a
//! literal count the two must agree exactly; for a count that is a param (any count), the check
//! must find a race exactly when some unrolling up to 40 iterations has one (bodies of 5 nodes
//! repeat their order pattern long before that).
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use cuda_graph_macros_core::model::Slot;
use cuda_graph_macros_core::validate::repeat::{carry_fix, cross_races, Access};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Body {
    nodes: usize,
    edges: Vec<(usize, usize)>,
    carry: Vec<(usize, usize)>,
    accesses: Vec<Access>,
}

/// The buffer an access touches in iteration `l`: plain buffers are one buffer; a stack's is
/// told apart by its index.
fn element(a: &Access, l: i64) -> (usize, i64) {
    match a.slot {
        None => (a.buffer, 0),
        Some(Slot::Iter(c)) => (a.buffer, l + c),
        Some(Slot::Const(c)) => (a.buffer, c as i64),
        Some(Slot::Any) => unreachable!("not generated"),
    }
}

/// Whether the block unrolled `n` times has two unordered instances, of different iterations,
/// that touch one buffer, one of them writing.
fn brute_force(b: &Body, n: usize) -> bool {
    let m = b.nodes;
    let total = m * n;
    let id = |node: usize, l: usize| l * m + node;
    let mut reach = vec![vec![false; total]; total];
    for l in 0..n {
        for &(x, y) in &b.edges {
            reach[id(x, l)][id(y, l)] = true;
        }
        if l + 1 < n {
            for &(x, y) in &b.carry {
                reach[id(x, l)][id(y, l + 1)] = true;
            }
        }
    }
    for k in 0..total {
        let row = reach[k].clone();
        for r in reach.iter_mut() {
            if r[k] {
                for (x, &y) in r.iter_mut().zip(&row) {
                    *x |= y;
                }
            }
        }
    }
    for li in 0..n {
        for lj in li + 1..n {
            for x in &b.accesses {
                for y in &b.accesses {
                    if !(x.writes || y.writes) || element(x, li as i64) != element(y, lj as i64) {
                        continue;
                    }
                    let (a, c) = (id(x.node, li), id(y.node, lj));
                    if !reach[a][c] && !reach[c][a] {
                        return true;
                    }
                }
            }
        }
    }
    false
}

fn body() -> impl Strategy<Value = Body> {
    (1usize..=5).prop_flat_map(|m| {
        let pairs: Vec<(usize, usize)> = (0..m)
            .flat_map(|a| (a + 1..m).map(move |b| (a, b)))
            .collect();
        let all: Vec<(usize, usize)> = (0..m).flat_map(|a| (0..m).map(move |b| (a, b))).collect();
        let edges = proptest::sample::subsequence(pairs.clone(), 0..=pairs.len());
        let carry = proptest::sample::subsequence(all.clone(), 0..=all.len().min(4));
        let access = (
            0..m,
            0usize..2,
            prop_oneof![
                (-1i64..=1).prop_map(Slot::Iter),
                (0i128..3).prop_map(Slot::Const)
            ],
            any::<bool>(),
        )
            .prop_map(|(node, buffer, slot, writes)| Access {
                node,
                buffer,
                // Buffer 0 is plain, buffer 1 a stack.
                slot: (buffer == 1).then_some(slot),
                writes,
            });
        let accesses = proptest::collection::vec(access, 1..=5);
        (edges, carry, accesses).prop_map(move |(edges, carry, accesses)| Body {
            nodes: m,
            edges,
            carry,
            accesses,
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(800))]

    #[test]
    fn a_literal_count_agrees_with_the_unrolled_block(b in body(), n in 0usize..8) {
        let found = cross_races(b.nodes, &b.edges, &b.carry, &b.accesses, Some(n as u64))
            .expect("small bodies are decided");
        prop_assert_eq!(!found.is_empty(), brute_force(&b, n), "{:?} n = {}", b, n);
    }

    /// The carry edges a race's error proposes end every race on its buffer: the unrolled
    /// block with them added has none (for a literal count, and for every count up to 40).
    #[test]
    fn the_proposed_carries_end_every_race_on_the_buffer(b in body(), n in prop::option::of(0usize..8)) {
        let count = n.map(|n| n as u64);
        let found = cross_races(b.nodes, &b.edges, &b.carry, &b.accesses, count)
            .expect("small bodies are decided");
        let mut seen = Vec::new();
        for race in &found {
            if seen.contains(&race.first.buffer) {
                continue;
            }
            seen.push(race.first.buffer);
            let fix = carry_fix(b.nodes, &b.edges, &b.carry, &b.accesses, count, race);
            prop_assert!(!fix.is_empty(), "no fix for {:?} in {:?}", race, b);
            // The race's own carry where it is enough.
            let own = (race.first.node, race.second.node);
            let carry_own: Vec<(usize, usize)> = b.carry.iter().copied().chain([own]).collect();
            let on: Vec<Access> = b.accesses.iter().filter(|a| a.buffer == race.first.buffer).copied().collect();
            if cross_races(b.nodes, &b.edges, &carry_own, &on, count).is_ok_and(|r| r.is_empty()) {
                prop_assert_eq!(&fix, &vec![own]);
            }
            let fixed = Body {
                carry: b.carry.iter().chain(&fix).copied().collect(),
                accesses: b.accesses.iter().filter(|a| a.buffer == race.first.buffer).copied().collect(),
                ..b.clone()
            };
            let counts: Vec<usize> = match n { Some(n) => vec![n], None => (0..=40).collect() };
            for k in counts {
                prop_assert!(!brute_force(&fixed, k), "{:?} leaves a race at {} iterations: {:?}", fix, k, fixed);
            }
        }
    }

    #[test]
    fn any_count_agrees_with_every_unrolling(b in body()) {
        let found = cross_races(b.nodes, &b.edges, &b.carry, &b.accesses, None)
            .expect("small bodies are decided");
        let some = (0..=40).any(|n| brute_force(&b, n));
        prop_assert_eq!(!found.is_empty(), some, "{:?}", b);
    }
}

/// A race is reported at the distance where it happens: a carry edge from the last node to the
/// first orders every later iteration, one that skips a node leaves it unordered with the next
/// iteration's copy.
#[test]
fn races_are_reported_at_their_distance() {
    let w = |node| Access {
        node,
        buffer: 0,
        slot: None,
        writes: true,
    };
    // a -> b, carry b -> a: iterations in order.
    let ordered = cross_races(2, &[(0, 1)], &[(1, 0)], &[w(0), w(1)], None).unwrap();
    assert!(ordered.is_empty());
    // No edge inside, carry a -> a: b of iteration l and b of l + 1 are unordered.
    let races = cross_races(2, &[], &[(0, 0)], &[w(1)], None).unwrap();
    assert_eq!(races[0].distance, 1);
    // A stack read two iterations ahead meets its writer at distance 2 only, and a count of 2
    // never reaches that distance.
    let stack = |node, c, writes| Access {
        node,
        buffer: 1,
        slot: Some(Slot::Iter(c)),
        writes,
    };
    let accesses = [stack(0, 0, true), stack(1, 2, false)];
    let races = cross_races(2, &[(0, 1)], &[], &accesses, None).unwrap();
    assert_eq!(races.len(), 1);
    assert_eq!(
        (races[0].first.node, races[0].second.node, races[0].distance),
        (1, 0, 2)
    );
    assert!(cross_races(2, &[(0, 1)], &[], &accesses, Some(2))
        .unwrap()
        .is_empty());
}
