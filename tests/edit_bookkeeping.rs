//! What keeps a template in step with the edits of its executable graph, paid per node edited:
//! kernel setters only note what they changed and the template takes it when next needed
//! (merged argument by argument with its own edits); an update copies and sends again only the
//! nodes edited (disabled nodes included); a refused edit, made in place, puts back what it
//! overwrote. Checked by exact values read back after launches, against a CPU computation.

mod common;

use common::POISON;
use cuda_graph::{error::EditError, exec::UpdatePath, Graph, GraphExec, LaunchConfig};

const N: usize = 1024;

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

/// Launches, then reads `y`.
fn run(
    gpu: &common::Gpu,
    exec: &mut GraphExec<'_>,
    y: cuda_graph::buffer::BufMut<u32>,
) -> Vec<u32> {
    exec.launch(&gpu.stream).unwrap();
    gpu.read(exec.buffer(y).unwrap())
}

/// Setter edits reach the template when it is next needed, merged with template-side edits of
/// other arguments of the same node: through an in-place update, a re-instantiation, and a
/// template taken back with `into_graph`.
#[test]
fn setter_edits_and_template_edits_of_one_node_merge() {
    let gpu = gpu_or_skip!();
    let (iota_k, affine) = (gpu.f("iota_u32"), gpu.f("affine_u32"));
    let mut y = gpu.poisoned(N);
    let n = N as u32;
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let fill = g
        .add_kernel("fill", &[], &iota_k, cfg(N), (yb, 0u32, n))
        .unwrap();
    let scale = g
        .add_kernel("scale", &[&fill], &affine, cfg(N), (yb, 2u32, 0u32, n))
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    let affine_of = |mul: u32, add: u32| (0..n).map(|i| i * mul + add).collect::<Vec<_>>();
    // The multiplier through the executable graph, the addend through the template.
    exec.node(scale).unwrap().set_arg::<1>(5).unwrap();
    assert_eq!(run(&gpu, &mut exec, yb), affine_of(5, 0));
    exec.graph_mut()
        .node(scale)
        .unwrap()
        .set_arg::<2>(7)
        .unwrap();
    // Not in the executable graph until the update.
    assert_eq!(run(&gpu, &mut exec, yb), affine_of(5, 0));
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
    assert_eq!(run(&gpu, &mut exec, yb), affine_of(5, 7));
    // An edit of the template first, then one of the executable graph, of other arguments.
    exec.graph_mut()
        .node(scale)
        .unwrap()
        .set_arg::<2>(9)
        .unwrap();
    exec.node(scale).unwrap().set_arg::<1>(4).unwrap();
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
    assert_eq!(run(&gpu, &mut exec, yb), affine_of(4, 9));
    // A setter edit, then a topology change: the new executable graph keeps it.
    exec.node(scale).unwrap().set_arg::<2>(1).unwrap();
    exec.graph_mut().add_empty("extra", &[&scale]).unwrap();
    assert!(matches!(
        exec.update().unwrap(),
        UpdatePath::Reinstantiated { .. }
    ));
    assert_eq!(run(&gpu, &mut exec, yb), affine_of(4, 1));
    // A setter edit of the launch configuration and arguments at once, then the template taken
    // back and instantiated again.
    exec.node(scale)
        .unwrap()
        .set((yb, 3u32, 2u32, n), cfg(N))
        .unwrap();
    exec.node(scale).unwrap().set_arg::<1>(6).unwrap();
    let mut again = exec.into_graph().instantiate().unwrap();
    assert_eq!(run(&gpu, &mut again, yb), affine_of(6, 2));
}

/// A chain of 64 nodes, edited on both sides, some nodes twice, some disabled and enabled
/// again: after each update the graph computes what a CPU computes from the same edits.
#[test]
fn many_edits_on_both_sides_survive_updates_node_for_node() {
    let gpu = gpu_or_skip!();
    let affine = gpu.f("affine_u32");
    const K: usize = 64;
    let mut y = gpu.upload(&vec![1u32; N]);
    let n = N as u32;
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let yb = g.bind_mut(&mut y).unwrap();
    let mut nodes = Vec::new();
    for k in 0..K {
        let deps: Vec<&dyn cuda_graph::node::Dep> = nodes
            .last()
            .map(|d| vec![d as &dyn cuda_graph::node::Dep])
            .unwrap_or_default();
        let name = format!("k{k}");
        nodes.push(
            g.add_kernel(&name, &deps, &affine, cfg(N), (yb, 1u32, k as u32, n))
                .unwrap(),
        );
    }
    let mut exec = g.instantiate().unwrap();
    // (mul, add, enabled) per node, as the CPU sees them.
    let mut model: Vec<(u32, u32, bool)> = (0..K).map(|k| (1, k as u32, true)).collect();
    let expect = |model: &[(u32, u32, bool)], start: u32| {
        model
            .iter()
            .filter(|m| m.2)
            .fold(start, |v, m| v.wrapping_mul(m.0).wrapping_add(m.1))
    };
    let mut start = 1u32;
    for round in 0..4u32 {
        for k in 0..K {
            let r = (k as u32).wrapping_mul(7).wrapping_add(round);
            if r % 3 == 0 {
                exec.node(nodes[k])
                    .unwrap()
                    .set_arg::<1>(r % 5 + 1)
                    .unwrap();
                model[k].0 = r % 5 + 1;
            }
            if r % 4 == 1 {
                exec.graph_mut()
                    .node(nodes[k])
                    .unwrap()
                    .set_arg::<2>(r)
                    .unwrap();
                model[k].1 = r;
            }
            if r % 11 == 2 {
                let on = !model[k].2;
                exec.node(nodes[k]).unwrap().set_enabled(on).unwrap();
                model[k].2 = on;
            }
        }
        assert_eq!(exec.update().unwrap(), UpdatePath::InPlace, "round {round}");
        let got = run(&gpu, &mut exec, yb);
        let want = expect(&model, start);
        assert!(
            got.iter().all(|&v| v == want),
            "round {round}: {} != {want}",
            got[0]
        );
        start = want;
    }
    // The template taken back keeps every edit and every disabled node.
    let mut again = exec.into_graph().instantiate().unwrap();
    let got = run(&gpu, &mut again, yb);
    let want = expect(&model, start);
    assert!(got.iter().all(|&v| v == want), "{} != {want}", got[0]);
    let off = (0..K).filter(|&k| !model[k].2).count();
    assert!(off > 0, "the rounds disable some node");
}

/// A whole-argument edit is made in place; refused (a buffer of another graph), it puts back
/// what it overwrote, on a block kept in place and on a longer one, and an update after it
/// brings back nothing of it.
#[test]
fn a_refused_whole_argument_edit_changes_nothing() {
    let gpu = gpu_or_skip!();
    let (affine, wide) = (gpu.f("affine_u32"), gpu.f("wide_u32"));
    let mut y = gpu.upload(&vec![2u32; N]);
    let mut z = gpu.poisoned(N);
    let mut foreign_buf = gpu.poisoned(N);
    let n = N as u32;
    let mut other = Graph::new(&gpu.ctx).unwrap();
    let foreign = other.bind_mut(&mut foreign_buf).unwrap();
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (yb, zb) = (g.bind_mut(&mut y).unwrap(), g.bind_mut(&mut z).unwrap());
    let short = g
        .add_kernel("short", &[], &affine, cfg(N), (yb, 3u32, 1u32, n))
        .unwrap();
    let long = g
        .add_kernel(
            "long",
            &[],
            &wide,
            cfg(N),
            (zb, 1u64, 2u64, 3u64, 4u64, 5u64, 6u64, 7u64, 8u64, n),
        )
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    assert!(run(&gpu, &mut exec, yb).iter().all(|&v| v == 7));
    let refused = exec.node(short).unwrap().set_args((foreign, 5, 5, n));
    assert!(matches!(refused, Err(EditError::Handle(_))), "{refused:?}");
    let refused = exec
        .node(long)
        .unwrap()
        .set_args((foreign, 9, 9, 9, 9, 9, 9, 9, 9, n));
    assert!(matches!(refused, Err(EditError::Handle(_))), "{refused:?}");
    // Still 3y + 1, and z = i + 36.
    assert!(run(&gpu, &mut exec, yb).iter().all(|&v| v == 22));
    let want_z: Vec<u32> = (0..n).map(|i| i + 36).collect();
    assert_eq!(gpu.read(exec.buffer(zb).unwrap()), want_z);
    assert_eq!(exec.update().unwrap(), UpdatePath::InPlace);
    assert!(run(&gpu, &mut exec, yb).iter().all(|&v| v == 67));
    // Accepted, on both.
    exec.node(short).unwrap().set_args((yb, 1, 1, n)).unwrap();
    exec.node(long)
        .unwrap()
        .set_args((zb, 0, 0, 0, 0, 0, 0, 0, 100, n))
        .unwrap();
    assert!(run(&gpu, &mut exec, yb).iter().all(|&v| v == 68));
    let want_z: Vec<u32> = (0..n).map(|i| i + 100).collect();
    assert_eq!(gpu.read(exec.buffer(zb).unwrap()), want_z);
    assert_ne!(want_z[0], POISON);
}
