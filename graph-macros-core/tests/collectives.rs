//! Communicators and collectives: the order proof against a brute-force oracle, and the checks
//! of a collective node, each at its token.
//!
//! The oracle: for small random DAGs (up to 7 nodes) with a random subset of nodes made
//! collectives on one communicator (the others empty nodes), every topological order is
//! enumerated. The macro must accept exactly when all of them give the collectives in one
//! sequence, and report, for each collective that some order runs before an earlier-declared
//! one, one error naming the first such earlier collective and itself.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use std::collections::BTreeSet;

use cuda_graph_macros_core::check;
use proptest::prelude::*;

/// The errors the front end reports for `src`, each with the line and column it points at.
fn errors(src: &str) -> Vec<(String, (usize, usize))> {
    let (_, errors) = check(src.parse().expect("valid tokens")).expect("parses");
    errors
        .list()
        .iter()
        .map(|e| {
            let at = e.span().start();
            (e.to_string(), (at.line, at.column))
        })
        .collect()
}

/// A random DAG of up to 7 nodes (edges go forward in a random permutation), and which nodes
/// are collectives.
fn case() -> impl Strategy<Value = (usize, Vec<(usize, usize)>, Vec<bool>)> {
    (1usize..=7).prop_flat_map(|n| {
        let perm = Just((0..n).collect::<Vec<_>>()).prop_shuffle();
        let pairs = prop::collection::btree_set((0..n, 0..n), 0..=n * 2);
        let marked = prop::collection::vec(any::<bool>(), n);
        (Just(n), perm, pairs, marked).prop_map(|(n, perm, pairs, marked)| {
            let edges = pairs
                .into_iter()
                .filter(|(a, b)| a < b)
                .map(|(a, b)| (perm[a], perm[b]))
                .collect();
            (n, edges, marked)
        })
    })
}

/// The graph as `cuda_graph!` source: each collective reduces its own buffer in place (so no
/// two of them race), the other nodes are empty.
fn source(n: usize, edges: &[(usize, usize)], marked: &[bool]) -> String {
    let mut s = String::from("graph G {\n");
    if marked.iter().any(|&m| m) {
        s.push_str("    comm tp;\n");
    }
    for i in (0..n).filter(|&i| marked[i]) {
        s.push_str(&format!("    buffer mut b{i}: f32;\n"));
    }
    for (i, &m) in marked.iter().enumerate().take(n) {
        if m {
            s.push_str(&format!(
                "    n{i} = all_reduce(b{i} -> b{i}, 4, sum) on tp;\n"
            ));
        } else {
            s.push_str(&format!("    n{i} = empty;\n"));
        }
    }
    for &(a, b) in edges {
        s.push_str(&format!("    n{a} -> n{b};\n"));
    }
    s.push('}');
    s
}

/// Every topological order of the DAG.
fn all_orders(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    fn go(
        edges: &[(usize, usize)],
        indeg: &mut [usize],
        prefix: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        let n = indeg.len();
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for v in 0..n {
            if prefix.contains(&v) || indeg[v] != 0 {
                continue;
            }
            prefix.push(v);
            edges
                .iter()
                .filter(|e| e.0 == v)
                .for_each(|e| indeg[e.1] -= 1);
            go(edges, indeg, prefix, out);
            edges
                .iter()
                .filter(|e| e.0 == v)
                .for_each(|e| indeg[e.1] += 1);
            prefix.pop();
        }
    }
    let mut indeg = vec![0; n];
    edges.iter().for_each(|e| indeg[e.1] += 1);
    let mut out = Vec::new();
    go(edges, &mut indeg, &mut Vec::new(), &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn collectives_are_accepted_exactly_when_every_order_issues_them_in_one_sequence(
        (n, edges, marked) in case()
    ) {
        let src = source(n, &edges, &marked);
        let found: BTreeSet<String> = errors(&src).into_iter().map(|(m, _)| m).collect();
        let orders = all_orders(n, &edges);
        let collectives: Vec<usize> = (0..n).filter(|&i| marked[i]).collect();
        let sequences: BTreeSet<Vec<usize>> = orders
            .iter()
            .map(|o| o.iter().copied().filter(|&v| marked[v]).collect())
            .collect();
        prop_assert_eq!(found.is_empty(), sequences.len() == 1, "{}\n{:?}", src, found);
        // One error per collective that some order issues before an earlier-declared one,
        // naming the first of those.
        let pos = |o: &[usize], v: usize| o.iter().position(|&x| x == v).unwrap();
        let mut expected = BTreeSet::new();
        for (k, &b) in collectives.iter().enumerate() {
            let first = collectives[..k].iter().find(|&&a| {
                orders.iter().any(|o| pos(o, a) < pos(o, b))
                    && orders.iter().any(|o| pos(o, b) < pos(o, a))
            });
            if let Some(a) = first {
                expected.insert(format!(
                    "collectives `n{a}` and `n{b}` both run on communicator `tp`, but neither depends on the other: ranks may issue them in different orders and then wait for each other forever; add an edge `n{a} -> n{b}` (or the reverse)"
                ));
            }
        }
        prop_assert_eq!(found, expected, "{}", src);
    }
}

/// One error, its message containing `want`, at `line` and `column` (1-based line, 0-based
/// column, as `proc_macro2` counts).
#[track_caller]
fn one_error(src: &str, want: &str, at: (usize, usize)) {
    let found = errors(src);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].0.contains(want), "{found:#?}");
    assert_eq!(found[0].1, at, "{found:#?}");
}

#[test]
fn an_unordered_pair_is_reported_at_the_later_node_naming_both() {
    one_error(
        "graph G {
            comm tp; buffer mut x: f32; buffer mut y: f32;
            a = all_reduce(x -> x, 4, sum) on tp;
            b = all_reduce(y -> y, 4, sum) on tp;
        }",
        "collectives `a` and `b` both run on communicator `tp`",
        (4, 12),
    );
}

#[test]
fn collectives_on_two_communicators_need_no_order() {
    let src = "graph G {
        comm tp; comm dp; buffer mut x: f32; buffer mut y: f32;
        a = all_reduce(x -> x, 4, sum) on tp;
        b = all_reduce(y -> y, 4, sum) on dp;
    }";
    assert_eq!(errors(src), vec![]);
}

#[test]
fn a_count_that_uses_rank_is_reported_at_rank() {
    one_error(
        "graph G {
            comm tp; buffer x: f32; buffer mut y: f32; param n: u32;
            a = all_reduce(x -> y, n * (rank + 1), sum) on tp;
        }",
        "`rank` makes it differ",
        (3, 40),
    );
}

#[test]
fn rank_and_world_go_in_roots_peers_lengths_and_launches() {
    let src = "graph G {
        kernel k(y: &mut [f32], r: u32, w: u32);
        comm tp; buffer x: f32; buffer mut y: f32; temp t: [f32; 4 * world];
        f = k<<<world, 32>>>(t, rank, world);
        a = all_gather(t -> y, 4) on tp;
        b = broadcast(y -> y, 4 * world, root = world - 1) on tp;
        s = send(x, 4, to = (rank + 1) % world) on tp;
        r = recv(y, 4, from = (rank + world - 1) % world) on tp;
        f -> a -> b -> s -> r;
    }";
    assert_eq!(errors(src), vec![]);
}

#[test]
fn rank_without_a_comm_and_with_two_are_errors_at_the_name() {
    one_error(
        "graph G {
            kernel k(y: &mut [f32], r: u32);
            buffer mut y: f32;
            a = k<<<1, 1>>>(y, rank);
        }",
        "declare one with `comm name;`",
        (4, 31),
    );
    one_error(
        "graph G {
            kernel k(y: &mut [f32], r: u32);
            comm tp; comm dp; buffer mut y: f32;
            a = k<<<1, 1>>>(y, world);
            b = all_reduce(y -> y, 4, sum) on tp;
            c = all_reduce(y -> y, 4, sum) on dp;
            a -> b -> c;
        }",
        "declares two (`tp`, `dp`)",
        (4, 31),
    );
}

#[test]
fn an_input_named_rank_or_world_beside_a_comm_is_an_error_at_its_name() {
    one_error(
        "graph G {
            comm tp; buffer mut world: f32;
            b = all_reduce(world -> world, 4, sum) on tp;
        }",
        "`world` is built in",
        (2, 32),
    );
}

#[test]
fn collectives_stay_out_of_conditional_bodies_unless_the_condition_is_agreed() {
    one_error(
        "graph G {
            kernel set(c: Cond);
            comm tp; buffer mut x: f32; cond go;
            s = set<<<1, 1>>>(go);
            i = if go { a = all_reduce(x -> x, 4, sum) on tp; }
            s -> i;
        }",
        "collective `a` is inside the body of conditional node `i`, whose condition `go` is set on each rank's device: a rank that skips the collective leaves the others waiting for it forever; if every rank of `tp` sets `go` alike (from values that are the same on every rank, such as an all-reduce's result), declare it so: `cond go on tp;`",
        (5, 24),
    );
    // Declared agreed on the communicator: an IF and a WHILE whose body holds a repeat block
    // of collectives ordered by its carry edge, and a collective after it.
    let ok = "graph G {
        kernel set(c: Cond);
        comm tp; buffer mut x: f32; buffer mut y: f32; param n: u32;
        cond go on tp; cond again on tp = 1;
        s = set<<<1, 1>>>(go);
        i = if go { a = all_reduce(x -> x, 4, sum) on tp; }
        w = while again {
            r = repeat l in 0..n { b = all_reduce(x -> x, 4, sum) on tp; carry b -> b; }
            c = all_reduce(y -> y, 4, max) on tp;
            t = set<<<1, 1>>>(again);
            r -> c -> t;
        }
        s -> i -> w;
    }";
    assert_eq!(errors(ok), vec![]);
    // Inside an agreed WHILE, the order proof still holds within the body.
    one_error(
        "graph G {
            kernel set(c: Cond);
            comm tp; buffer mut x: f32; buffer mut y: f32; cond again on tp = 1;
            w = while again {
                a = all_reduce(x -> x, 4, sum) on tp;
                b = all_reduce(y -> y, 4, sum) on tp;
                t = set<<<1, 1>>>(again);
                a -> t; b -> t;
            }
        }",
        "collectives `a` and `b` both run on communicator `tp`",
        (6, 16),
    );
    // An agreed WHILE around an IF that is not: the inner condition decides too.
    one_error(
        "graph G {
            kernel set2(c: Cond, d: Cond);
            comm tp; buffer mut x: f32; cond again on tp = 1; cond maybe;
            w = while again {
                t = set2<<<1, 1>>>(again, maybe);
                i = if maybe { a = all_reduce(x -> x, 4, sum) on tp; }
                t -> i;
            }
        }",
        "whose condition `maybe` is set on each rank's device",
        (6, 31),
    );
    // Agreed on another communicator.
    one_error(
        "graph G {
            kernel set(c: Cond);
            comm tp; comm dp; buffer mut x: f32; cond go on dp;
            s = set<<<1, 1>>>(go);
            i = if go { a = all_reduce(x -> x, 4, sum) on tp; }
            d = all_reduce(x -> x, 4, sum) on dp;
            s -> i -> d;
        }",
        "(it is agreed on `dp`, not on `tp`)",
        (5, 24),
    );
    // `on` names something that is not a communicator.
    one_error(
        "graph G {
            kernel set(c: Cond);
            comm tp; buffer mut x: f32; cond go on x;
            s = set<<<1, 1>>>(go);
            i = if go { k = set<<<1, 1>>>(go); }
            a = all_reduce(x -> x, 4, sum) on tp;
            s -> i -> a;
        }",
        "condition `go` is declared agreed on `x`, which is a buffer",
        (3, 51),
    );
}

#[test]
fn a_repeat_block_of_collectives_needs_carry_edges_and_one_count() {
    // One collective a layer, each layer after the one before: accepted.
    let ok = "graph G {
        comm tp; buffer mut x: f32; param n: u32;
        r = repeat l in 0..n { a = all_reduce(x -> x, 4, sum) on tp; carry a -> a; };
    }";
    assert_eq!(errors(ok), vec![]);
    // Without the carry edge, layer l + 1's all-reduce may be issued first on some rank.
    one_error(
        "graph G {
            comm tp; buffer mut x: f32; buffer mut y: f32; param n: u32;
            r = repeat l in 0..n {
                a = all_reduce(x -> x, 4, sum) on tp;
                b = all_reduce(y -> y, 4, sum) on tp;
                a -> b;
                carry a -> a;
            };
        }",
        "collectives `b` in iteration l and `a` in iteration l + 1 of repeat block `r` both run on communicator `tp`, but no carry edge orders them",
        (4, 16),
    );
    // A count that differs between ranks.
    one_error(
        "graph G {
            comm tp; buffer mut x: f32; param n: u32;
            r = repeat l in 0..n + rank { a = all_reduce(x -> x, 4, sum) on tp; carry a -> a; };
        }",
        "the count of repeat block `r` must be the same on every rank",
        (3, 35),
    );
    // Once is always in order.
    let once = "graph G {
        comm tp; buffer mut x: f32; buffer mut y: f32;
        r = repeat l in 0..1 {
            a = all_reduce(x -> x, 4, sum) on tp;
            b = all_reduce(y -> y, 4, sum) on tp;
            a -> b;
        };
    }";
    assert_eq!(errors(once), vec![]);
}

/// A repeat block of up to 4 body nodes (some collectives, one buffer each), random edges in
/// the body and random carry edges, run `count` times (a literal) or `n` times (a param).
/// A block: body nodes, body edges, carry edges, which nodes are collectives, the count.
type Block = (
    usize,
    Vec<(usize, usize)>,
    Vec<(usize, usize)>,
    Vec<bool>,
    Option<u64>,
);

fn block_case() -> impl Strategy<Value = Block> {
    (1usize..=4).prop_flat_map(|n| {
        let pairs = prop::collection::btree_set((0..n, 0..n), 0..=n);
        let carry = prop::collection::btree_set((0..n, 0..n), 0..=2);
        let marked = prop::collection::vec(any::<bool>(), n);
        let count = prop_oneof![Just(None), (0u64..=4).prop_map(Some)];
        (Just(n), pairs, carry, marked, count).prop_map(|(n, pairs, carry, marked, count)| {
            let edges = pairs.into_iter().filter(|(a, b)| a < b).collect();
            (n, edges, carry.into_iter().collect(), marked, count)
        })
    })
}

/// Whether every two collective instances of the block unrolled `times` times are joined by a
/// path (the condition `order.rs` checks against every topological order).
fn unrolled_in_order(
    n: usize,
    edges: &[(usize, usize)],
    carry: &[(usize, usize)],
    marked: &[bool],
    times: usize,
) -> bool {
    let total = n * times;
    let mut reach = vec![vec![false; total]; total];
    for it in 0..times {
        for &(a, b) in edges {
            reach[it * n + a][it * n + b] = true;
        }
        if it + 1 < times {
            for &(a, b) in carry {
                reach[it * n + a][(it + 1) * n + b] = true;
            }
        }
    }
    for (i, row) in reach.iter_mut().enumerate() {
        row[i] = true;
    }
    for k in 0..total {
        let via = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (r, &v) in row.iter_mut().zip(&via) {
                    *r |= v;
                }
            }
        }
    }
    let instances: Vec<usize> = (0..total).filter(|&v| marked[v % n]).collect();
    instances
        .iter()
        .all(|&a| instances.iter().all(|&b| reach[a][b] || reach[b][a]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn a_block_of_collectives_is_accepted_exactly_when_every_unrolling_is_in_order(
        (n, edges, carry, marked, count) in block_case()
    ) {
        let mut s = String::from("graph G {\n    comm tp;\n    param n: u32;\n");
        for i in (0..n).filter(|&i| marked[i]) {
            s.push_str(&format!("    buffer mut b{i}: f32;\n"));
        }
        let times = count.map_or("n".to_owned(), |c| c.to_string());
        s.push_str(&format!("    r = repeat l in 0..{times} {{\n"));
        for (i, &m) in marked.iter().enumerate() {
            if m {
                s.push_str(&format!("        n{i} = all_reduce(b{i} -> b{i}, 4, sum) on tp;\n"));
            } else {
                s.push_str(&format!("        n{i} = empty;\n"));
            }
        }
        for &(a, b) in &edges {
            s.push_str(&format!("        n{a} -> n{b};\n"));
        }
        for &(a, b) in &carry {
            s.push_str(&format!("        carry n{a} -> n{b};\n"));
        }
        s.push_str("    };\n}");
        let found: Vec<String> = errors(&s)
            .into_iter()
            .map(|(m, _)| m)
            .filter(|m| m.contains("collectives `"))
            .collect();
        // A param count: every count, so an unrolling long enough to show every distance
        // between iterations that can occur (more than the body's nodes).
        // A body is checked as written even when it runs zero times (one iteration's order).
        let times = count.map_or(2 * n + 2, |c| c.max(1) as usize);
        let ordered = unrolled_in_order(n, &edges, &carry, &marked, times);
        prop_assert_eq!(found.is_empty(), ordered, "{}\n{:?}", s, found);
        // Between iterations: one error a block, and none when one iteration is out of order
        // already (that error comes first, one per collective).
        let between = found.iter().filter(|m| m.contains(" in iteration ")).count();
        prop_assert!(between <= 1, "one error a block: {:?}", found);
        prop_assert!(between == 0 || found.len() == 1, "one mistake, one error: {:?}", found);
    }
}

#[test]
fn a_graph_with_a_comm_is_no_child_graph() {
    one_error(
        "graph Inner {
            comm tp; buffer mut y: f32;
            b = all_reduce(y -> y, 4, sum) on tp;
        }
        graph Outer {
            buffer mut y: f32;
            c = child(Inner { y: y });
        }",
        "a graph with a `comm` cannot be a child graph",
        (7, 22),
    );
}

#[test]
fn params_of_collectives_get_no_setter() {
    let src = "graph G {
        kernel k(y: &mut [f32], v: u32);
        comm tp; buffer mut y: f32; param n: u32; param m: u32;
        f = k<<<1, 32>>>(y, m);
        a = all_reduce(y -> y, n, sum) on tp;
        f -> a;
    }";
    let (graphs, errors) = check(src.parse().unwrap()).unwrap();
    assert!(errors.is_empty(), "{:?}", errors.messages());
    let text = cuda_graph_macros_core::expand::graph(&graphs[0]).to_string();
    assert!(text.contains("fn set_m"), "{text}");
    assert!(!text.contains("fn set_n"), "{text}");
    assert!(
        !text.contains("fn set_rank") && !text.contains("fn set_tp"),
        "{text}"
    );
    assert!(!text.contains("fn __cg_child"), "{text}");
}
