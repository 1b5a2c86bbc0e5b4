//! Conditional nodes built with the runtime API (IF, IF/ELSE, WHILE, SWITCH, nested), launched
//! on a real GPU, with exact values read back; setters on nodes inside bodies; the errors.

mod common;

use common::POISON;
use cuda_graph::{
    error::{BuildError, HandleError},
    topology::TopologyError,
    Graph, LaunchConfig, Module,
};

const COND: &str = include_str!("kernels/cond.cu");
const N: usize = 1000;

fn module(gpu: &common::Gpu) -> Module {
    cuda_graph::compile(&gpu.ctx, COND).expect("compile cond.cu")
}

fn one() -> LaunchConfig {
    LaunchConfig::for_num_elems(1)
}

#[test]
fn while_loop_runs_until_a_kernel_clears_its_condition() {
    let gpu = gpu_or_skip!();
    let m = module(&gpu);
    let (count_up, fill) = (m.function("count_up").unwrap(), m.function("fill").unwrap());
    let mut count = gpu.upload(&[POISON, POISON]);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let cb = g.bind_mut(&mut count).unwrap();
    let clear = g
        .add_kernel("clear", &[], &fill, one(), (cb, 0u32, 2u32))
        .unwrap();
    let again = g.add_condition(1).unwrap();
    let (lp, body) = g.add_while("loop", &[&clear], again).unwrap();
    let step = g
        .in_body(body, |g| {
            g.add_kernel("step", &[], &count_up, one(), (cb, 3u32, 20u32, again))
        })
        .unwrap();
    assert_eq!(g.topology().scope(step.id().index() as u32), body.scope());
    assert!(g.to_dot().contains("label=\"loop: while\""));
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    // 3, 6, ..., 21: seven iterations in one launch.
    assert_eq!(gpu.read(exec.buffer(cb).unwrap()), [21, 7]);

    // A setter reaches the node inside the body of the executable graph.
    exec.node(step).unwrap().set_arg::<1>(5).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(cb).unwrap()), [20, 4]);
    exec.node(step).unwrap().set_arg::<2>(1).unwrap();
    exec.launch(&gpu.stream).unwrap();
    // The body runs once (the default is 1), then the kernel clears the condition.
    assert_eq!(gpu.read(exec.buffer(cb).unwrap()), [5, 1]);

    // A template edit inside the body, through a whole-graph update.
    exec.graph_mut()
        .node(step)
        .unwrap()
        .set_args((cb, 2u32, 9u32, again))
        .unwrap();
    let path = exec.update().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(
        gpu.read(exec.buffer(cb).unwrap()),
        [10, 5],
        "update took {path:?}"
    );
    let _ = lp;
}

#[test]
fn if_else_and_switch_run_the_chosen_body() {
    let gpu = gpu_or_skip!();
    let m = module(&gpu);
    let (decide, fill) = (m.function("decide").unwrap(), m.function("fill").unwrap());
    let mut a = gpu.poisoned(N);
    let mut b = gpu.poisoned(N);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (ab, bb) = (g.bind_mut(&mut a).unwrap(), g.bind_mut(&mut b).unwrap());
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as u32;

    let c = g.add_condition(0).unwrap();
    let pick = g
        .add_kernel("pick", &[], &decide, one(), (1u32, c))
        .unwrap();
    let (_, [then, other]) = g.add_if_else("branch", &[&pick], c).unwrap();
    let yes = g
        .in_body(then, |g| {
            g.add_kernel("yes", &[], &fill, cfg, (ab, 111u32, n))
        })
        .unwrap();
    g.in_body(other, |g| {
        g.add_kernel("no", &[], &fill, cfg, (ab, 222u32, n))
    })
    .unwrap();

    let s = g.add_condition(0).unwrap();
    let sel = g
        .add_kernel("select", &[], &decide, one(), (2u32, s))
        .unwrap();
    let (sw, cases) = g.add_switch("cases", &[&sel], s, 3).unwrap();
    let mut case_nodes = Vec::new();
    for (i, body) in cases.iter().enumerate() {
        let v = 10 + i as u32;
        let name = format!("case{i}");
        case_nodes.push(
            g.in_body(*body, |g| g.add_kernel(&name, &[], &fill, cfg, (bb, v, n)))
                .unwrap(),
        );
    }
    assert_eq!(g.node(sw).unwrap().body_count(), 3);

    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.buffer(ab).unwrap()).iter().all(|&v| v == 111));
    assert!(gpu.read(exec.buffer(bb).unwrap()).iter().all(|&v| v == 12));

    // Else branch, case 0, and a setter inside a branch.
    exec.node(pick).unwrap().set_arg::<0>(0).unwrap();
    exec.node(sel).unwrap().set_arg::<0>(0).unwrap();
    exec.node(case_nodes[0]).unwrap().set_arg::<1>(77).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.buffer(ab).unwrap()).iter().all(|&v| v == 222));
    assert!(gpu.read(exec.buffer(bb).unwrap()).iter().all(|&v| v == 77));

    // Then again, with its value edited; a selector past the last case runs no case.
    exec.node(pick).unwrap().set_arg::<0>(5).unwrap();
    exec.node(yes).unwrap().set_arg::<1>(333).unwrap();
    exec.node(sel).unwrap().set_arg::<0>(3).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu.read(exec.buffer(ab).unwrap()).iter().all(|&v| v == 333));
    assert!(gpu.read(exec.buffer(bb).unwrap()).iter().all(|&v| v == 77));
}

#[test]
fn nested_if_inside_a_while() {
    let gpu = gpu_or_skip!();
    let m = module(&gpu);
    let f = |n: &str| m.function(n).unwrap();
    let (count_up, decide_odd, bump, fill) = (f("count_up"), f("decide_odd"), f("bump"), f("fill"));
    let mut count = gpu.upload(&[POISON, POISON]);
    let mut odd = gpu.poisoned(1);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (cb, ob) = (
        g.bind_mut(&mut count).unwrap(),
        g.bind_mut(&mut odd).unwrap(),
    );
    let c1 = g
        .add_kernel("c1", &[], &fill, one(), (cb, 0u32, 2u32))
        .unwrap();
    let c2 = g
        .add_kernel("c2", &[], &fill, one(), (ob, 0u32, 1u32))
        .unwrap();
    let again = g.add_condition(1).unwrap();
    let (_, body) = g.add_while("loop", &[&c1, &c2], again).unwrap();
    g.in_body(body, |g| {
        let step = g.add_kernel("step", &[], &count_up, one(), (cb, 1u32, 10u32, again))?;
        // A handle for a conditional inside the body is made inside it.
        let is_odd = g.add_condition(0)?;
        let test = g.add_kernel("test", &[&step], &decide_odd, one(), (cb, is_odd))?;
        let (_, inner) = g.add_if("when_odd", &[&test], is_odd)?;
        g.in_body(inner, |g| g.add_kernel("bump", &[], &bump, one(), (ob,)))
    })
    .unwrap();
    let dot = g.to_dot();
    assert!(dot.contains("label=\"when_odd: if\""), "{dot}");
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(cb).unwrap()), [10, 10]);
    assert_eq!(gpu.read(exec.buffer(ob).unwrap()), [5]);
    // Launches start over: the handle is reset to its default.
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(ob).unwrap()), [5]);
}

#[test]
fn misuse_of_bodies_and_handles_is_an_error_and_changes_nothing() {
    let gpu = gpu_or_skip!();
    let m = module(&gpu);
    let (decide, fill) = (m.function("decide").unwrap(), m.function("fill").unwrap());
    let mut a = gpu.poisoned(4);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let ab = g.bind_mut(&mut a).unwrap();
    let c = g.add_condition(1).unwrap();
    let outside = g
        .add_kernel("outside", &[], &fill, one(), (ab, 1u32, 4u32))
        .unwrap();
    let (lp, body) = g.add_while("loop", &[], c).unwrap();
    let inside = g
        .in_body(body, |g| {
            g.add_kernel("inside", &[], &decide, one(), (0u32, c))
        })
        .unwrap();
    let before = g.len();

    let e = g
        .in_body(body, |g| g.add_host("log", &[], || {}))
        .unwrap_err();
    assert!(matches!(e, BuildError::NotInBody { ref conditional, .. } if conditional == "loop"));
    assert!(
        e.to_string().contains("add it before or after `loop`"),
        "{e}"
    );
    let e = g
        .in_body(body, |g| g.add_empty("join", &[&outside]))
        .unwrap_err();
    assert!(matches!(e, BuildError::DependencyOutsideBody { .. }), "{e}");
    let e = g.add_empty("after", &[&inside]).unwrap_err();
    assert!(matches!(e, BuildError::DependencyOutsideBody { .. }), "{e}");
    let e = g.add_edge(&outside, &inside).unwrap_err();
    assert!(
        matches!(e, BuildError::Topology(TopologyError::CrossScope { .. })),
        "{e}"
    );
    // A handle made outside a body, for a conditional inside it.
    let e = g.in_body(body, |g| g.add_if("inner", &[], c)).unwrap_err();
    assert!(matches!(e, BuildError::ConditionScope { .. }), "{e}");
    // A handle of another graph, as a kernel argument and for a conditional node.
    let mut other = Graph::new(&gpu.ctx).unwrap();
    let e = other
        .add_kernel("foreign", &[], &decide, one(), (0u32, c))
        .unwrap_err();
    assert!(
        matches!(
            e,
            BuildError::Handle(HandleError::Foreign { what: "condition" })
        ),
        "{e}"
    );
    let e = other.add_while("foreign_loop", &[], c).unwrap_err();
    assert!(matches!(e, BuildError::Handle(_)), "{e}");
    let e = g.add_switch("none", &[], c, 0).unwrap_err();
    assert!(matches!(e, BuildError::NoCases { .. }), "{e}");
    assert_eq!(g.len(), before, "failed adds leave the graph as it was");

    // Still usable: the loop runs its body once.
    g.add_edge(&outside, &lp).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(ab).unwrap()), [1, 1, 1, 1]);
}
