//! The topology's checks, indexes, order and DOT, with no GPU.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use cuda_graph_topology::{NodeKind, NodeName, Topology, TopologyError};

fn chain(n: usize) -> Topology {
    let mut t = Topology::new();
    for i in 0..n {
        t.add_node(&format!("n{i}"), NodeKind::Kernel).unwrap();
    }
    for i in 1..n as u32 {
        t.add_edge(i - 1, i).unwrap();
    }
    t
}

#[test]
fn rejects_cycle_and_prints_its_path() {
    let mut t = chain(3);
    let e = t.add_edge(2, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the edge `n2 -> n0` would close a cycle: n2 -> n0 -> n1 -> n2"
    );
    assert_eq!(t.edges().len(), 2);
}

#[test]
fn rejects_self_edge_duplicate_edge_and_duplicate_name() {
    let mut t = chain(2);
    assert!(matches!(t.add_edge(1, 1), Err(TopologyError::SelfEdge { node }) if node == "n1"));
    assert!(matches!(
        t.add_edge(0, 1),
        Err(TopologyError::DuplicateEdge { .. })
    ));
    assert!(matches!(
        t.add_node("n0", NodeKind::Host),
        Err(TopologyError::DuplicateNode { name }) if name == "n0"
    ));
}

#[test]
fn remove_edge_then_reverse_is_allowed() {
    let mut t = chain(2);
    t.remove_edge(0, 1).unwrap();
    t.add_edge(1, 0).unwrap();
    assert_eq!(t.edges(), &[(1, 0)]);
    assert!(matches!(
        t.remove_edge(0, 1),
        Err(TopologyError::NoSuchEdge { .. })
    ));
}

#[test]
fn dot_uses_names_and_escapes_quotes() {
    let mut t = Topology::new();
    let a = t.add_node("say \"hi\"", NodeKind::Host).unwrap();
    let b = t.add_node("step", NodeKind::Kernel).unwrap();
    t.add_edge(a, b).unwrap();
    assert_eq!(
        t.to_dot("g"),
        "digraph \"g\" {\n  rankdir=TB;\n  \"say \\\"hi\\\"\" [label=\"say \\\"hi\\\"\\nhost\", shape=ellipse];\n  \"step\" [label=\"step\\nkernel\", shape=box];\n  \"say \\\"hi\\\"\" -> \"step\";\n}\n"
    );
}

#[test]
fn lookups_and_edge_checks_built_late_see_every_node_and_edge() {
    // Nodes and edges added the way `cuda_graph!` adds them: no lookup, no edge check.
    let mut t = Topology::new();
    for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
        let deps: Vec<u32> = (0..i as u32).collect();
        let n = t.add_new_node(NodeName::Static(name), NodeKind::Kernel);
        t.add_edges_into_new(&deps, n);
    }
    assert_eq!(
        (t.find("a"), t.find("c"), t.find("d")),
        (Some(0), Some(2), None)
    );
    assert!(matches!(
        t.add_node("b", NodeKind::Empty),
        Err(TopologyError::DuplicateNode { .. })
    ));
    // The first edge check builds the successor lists from the edges so far.
    assert!(matches!(t.add_edge(2, 0), Err(TopologyError::Cycle { .. })));
    assert!(matches!(
        t.add_edge(0, 1),
        Err(TopologyError::DuplicateEdge { .. })
    ));
    // Both stay up to date once built.
    let d = t.add_node("d", NodeKind::Empty).unwrap();
    t.add_edges_into_new(&[2], d);
    assert_eq!(t.find("d"), Some(3));
    assert!(matches!(t.add_edge(3, 0), Err(TopologyError::Cycle { .. })));
    t.add_edge(1, 3).unwrap();
    assert_eq!(t.edges().len(), 5);
}

#[test]
fn order_puts_dependencies_first_and_keeps_insertion_order_among_ready_nodes() {
    let mut t = Topology::new();
    for name in ["a", "b", "c", "d"] {
        t.add_node(name, NodeKind::Empty).unwrap();
    }
    t.add_edge(3, 0).unwrap();
    t.add_edge(2, 1).unwrap();
    assert_eq!(t.order(), vec![2, 1, 3, 0]);
}

#[test]
fn reach_answers_both_directions_and_leaves_unordered_pairs_alone() {
    let mut t = Topology::new();
    for i in 0..70 {
        t.add_node(&format!("n{i}"), NodeKind::Empty).unwrap();
    }
    // A chain across the 64-bit word boundary, and one node aside.
    for i in 60..68 {
        t.add_edge(i, i + 1).unwrap();
    }
    let r = t.reach();
    assert!(r.ordered(60, 68) && r.ordered(68, 60));
    assert!(!r.ordered(60, 69));
    assert!(!r.ordered(0, 1));
}

#[test]
fn a_cycle_names_its_nodes_in_order() {
    let mut t = Topology::new();
    for name in ["a", "b", "c"] {
        t.add_node(name, NodeKind::Empty).unwrap();
    }
    t.add_edge(0, 1).unwrap();
    t.add_edge(1, 2).unwrap();
    match t.add_edge(2, 0) {
        Err(TopologyError::Cycle { nodes, path, .. }) => {
            assert_eq!(nodes, vec![2, 0, 1, 2]);
            assert_eq!(path, "c -> a -> b -> c");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn conditional_bodies_are_scopes() {
    use cuda_graph_topology::TopologyError;
    let mut t = Topology::new();
    let init = t.add_node("init", NodeKind::Kernel).unwrap();
    let side = t.add_node("side", NodeKind::Kernel).unwrap();
    let cond = t.add_node("branch", NodeKind::Conditional).unwrap();
    t.add_edge(init, cond).unwrap();
    let then = t.add_body(cond, "then");
    let other = t.add_body(cond, "else");
    let a = t.add_node_in("a", NodeKind::Kernel, then).unwrap();
    let b = t.add_node_in("b", NodeKind::Kernel, then).unwrap();
    let c = t.add_node_in("c", NodeKind::Kernel, other).unwrap();
    assert_eq!((t.scope(init), t.scope(a), t.scope(c)), (0, then, other));
    assert_eq!(t.owner(then), Some(cond));
    assert!(matches!(
        t.add_edge(init, a),
        Err(TopologyError::CrossScope { .. })
    ));
    let e = t.add_edge(a, c).unwrap_err().to_string();
    assert!(e.contains("the then body of `branch`"), "{e}");
    let r = t.reach();
    // Lifted to scope 0: `init -> branch` orders `init` before both bodies.
    assert!(t.serial(&r, init, a) && t.serial(&r, c, init));
    // `side` and the conditional are unordered, so nothing in its bodies is ordered with it.
    assert!(!t.serial(&r, side, a));
    // One branch runs per launch; the conditional holds its bodies.
    assert!(t.serial(&r, a, c) && t.serial(&r, cond, b));
    // Two unordered nodes of one body may overlap.
    assert!(!t.serial(&r, a, b));
    t.add_edge(a, b).unwrap();
    assert!(t.serial(&t.reach(), a, b));
    // Bodies do not widen the graph, and are drawn as clusters.
    assert_eq!(t.width(), 2);
    let dot = t.to_dot("g");
    assert!(dot.contains("subgraph \"cluster_1\" {") && dot.contains("label=\"branch: else\""));
    assert!(dot.contains("    \"a\" [label="), "{dot}");
}
