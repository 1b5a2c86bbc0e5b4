//! `Topology::add_new_nodes_in` (what `cuda_graph!` records the nodes of one kernel with)
//! against its oracle, the same rows added one by one with `add_new_node_in` and
//! `add_edges_into_new`: on random sequences of batches, with lookups and edge checks made
//! between them (which build the name index and the successor lists) and nodes in conditional
//! bodies, both topologies hold the same names, kinds, scopes, edges, successors and DOT.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use cuda_graph_topology::{NodeKind, NodeName, Topology};
use proptest::prelude::*;

/// Names for up to 64 nodes, living as long as the program (as `cuda_graph!`'s do).
const NAMES: [&str; 64] = {
    const fn name(i: usize) -> &'static str {
        const ALL: &str = "n00n01n02n03n04n05n06n07n08n09n10n11n12n13n14n15n16n17n18n19n20n21n22n23n24n25n26n27n28n29n30n31n32n33n34n35n36n37n38n39n40n41n42n43n44n45n46n47n48n49n50n51n52n53n54n55n56n57n58n59n60n61n62n63";
        let (_, rest) = ALL.split_at(i * 3);
        let (name, _) = rest.split_at(3);
        name
    }
    let mut out = [""; 64];
    let mut i = 0;
    while i < 64 {
        out[i] = name(i);
        i += 1;
    }
    out
};

/// One step: a batch of rows (each row's dependencies as picks among the nodes before it,
/// kept distinct), in scope 0 or a new body; a lookup by name (which builds the name index);
/// an edge check (which builds the successor lists); or a body that holds no node yet.
#[derive(Debug, Clone)]
enum Step {
    Batch { rows: Vec<Vec<u32>>, in_body: bool },
    Find,
    CheckEdge,
    EmptyBody,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let row = prop::collection::vec(any::<u32>(), 0..4);
    let batch = (prop::collection::vec(row, 1..6), any::<bool>())
        .prop_map(|(rows, in_body)| Step::Batch { rows, in_body });
    prop::collection::vec(
        prop_oneof![
            6 => batch,
            1 => Just(Step::Find),
            2 => Just(Step::CheckEdge),
            1 => Just(Step::EmptyBody),
        ],
        1..8,
    )
}

/// Applies `steps` to two topologies, batch by batch and row by row; the rows' picks become
/// distinct earlier nodes of the same scope (as the runtime checks before recording).
fn run(steps: &[Step]) -> (Topology, Topology) {
    let (mut batch, mut rows_one) = (Topology::new(), Topology::new());
    for step in steps {
        match step {
            Step::Find => {
                for t in [&mut batch, &mut rows_one] {
                    let _ = t.find("n00");
                }
            }
            Step::EmptyBody => {
                if !batch.is_empty() {
                    let s = batch.add_body(0, "else");
                    assert_eq!(rows_one.add_body(0, "else"), s);
                }
            }
            Step::CheckEdge => {
                for t in [&mut batch, &mut rows_one] {
                    if t.len() >= 2 {
                        // The edge itself may be refused; the lists are built either way.
                        let _ = t.check_edge(0, t.len() as u32 - 1);
                    }
                }
            }
            Step::Batch { rows, in_body } => {
                let first = batch.len() as u32;
                if first as usize + rows.len() > NAMES.len() {
                    break;
                }
                let scope = if *in_body && first > 0 {
                    let s = batch.add_body(0, "then");
                    assert_eq!(rows_one.add_body(0, "then"), s);
                    s
                } else {
                    0
                };
                let mut made: Vec<(&'static str, Vec<u32>)> = Vec::new();
                for (j, picks) in rows.iter().enumerate() {
                    let index = first + j as u32;
                    // Earlier nodes of this scope: of the graph before, and of the batch.
                    let earlier: Vec<u32> = (0..index)
                        .filter(|&d| d >= first || batch.scope(d) == scope)
                        .collect();
                    let mut deps = Vec::new();
                    if !earlier.is_empty() {
                        for p in picks {
                            let d = earlier[*p as usize % earlier.len()];
                            if !deps.contains(&d) {
                                deps.push(d);
                            }
                        }
                    }
                    made.push((NAMES[index as usize], deps));
                }
                let rows: Vec<(&'static str, &[u32])> =
                    made.iter().map(|(n, d)| (*n, d.as_slice())).collect();
                assert_eq!(
                    batch.add_new_nodes_in(&rows, NodeKind::Kernel, scope),
                    first
                );
                for &(name, deps) in &rows {
                    let i =
                        rows_one.add_new_node_in(NodeName::Static(name), NodeKind::Kernel, scope);
                    rows_one.add_edges_into_new(deps, i);
                }
            }
        }
    }
    (batch, rows_one)
}

/// The fast path with the successor lists built, with nodes in a body before the batch (their
/// scopes kept), and with a body that holds no node.
#[test]
fn a_batch_after_an_edge_check_and_a_body() {
    let body_first = [
        Step::Batch {
            rows: vec![vec![], vec![0]],
            in_body: false,
        },
        Step::Batch {
            rows: vec![vec![], vec![0, 1]],
            in_body: true,
        },
        Step::CheckEdge,
        Step::Batch {
            rows: vec![vec![0], vec![1, 5], vec![2, 3, 1]],
            in_body: false,
        },
    ];
    let empty_body = [
        Step::Batch {
            rows: vec![vec![]],
            in_body: false,
        },
        Step::EmptyBody,
        Step::CheckEdge,
        Step::Batch {
            rows: vec![vec![0], vec![1, 0]],
            in_body: false,
        },
    ];
    for steps in [&body_first[..], &empty_body[..]] {
        let (batch, rows_one) = run(steps);
        same(&batch, &rows_one).unwrap();
    }
}

/// Whether two topologies hold the same nodes, scopes, edges, successors, lookups and DOT.
fn same(a: &Topology, b: &Topology) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.len(), b.len());
    prop_assert_eq!(a.edges(), b.edges());
    for i in 0..a.len() as u32 {
        prop_assert_eq!(a.name(i), b.name(i));
        prop_assert_eq!(a.kind(i), b.kind(i));
        prop_assert_eq!(a.scope(i), b.scope(i));
        prop_assert_eq!(a.successors(i), b.successors(i));
        prop_assert_eq!(a.find(b.name(i)), Some(i));
    }
    prop_assert_eq!(a.to_dot("g"), b.to_dot("g"));
    prop_assert_eq!(a.differs_from(b), None);
    Ok(())
}

proptest! {
    #[test]
    fn a_batch_records_what_its_rows_one_by_one_record(steps in steps()) {
        let (batch, rows_one) = run(&steps);
        same(&batch, &rows_one)?;
    }
}
