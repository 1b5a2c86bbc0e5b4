//! The programmatic-launch proof on CUDA source: a kernel may take a programmatic edge only
//! if it waits for its predecessors on every path before it uses a pointer parameter; kernels
//! written right and wrong in the ways people write them.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use cuda_graph_macros_core::csrc::parse;
use cuda_graph_macros_core::csrc::pdl::{triggers, wait, Wait};

const SRC: &str = r#"
#define PDL_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#define PDL_TRIGGER() asm volatile("griddepcontrol.launch_dependents;")

__device__ __forceinline__ void wait_for_producer() { cudaGridDependencySynchronize(); }
__device__ void maybe_wait(int c) { if (c) cudaGridDependencySynchronize(); }
__device__ void go() { cudaTriggerProgrammaticLaunchCompletion(); }

extern "C" __global__ void first(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cudaGridDependencySynchronize();
  y[i] = x[i] * 2.0f;
}

extern "C" __global__ void by_ptx(const float* x, float* y, int n) {
  PDL_TRIGGER();
  PDL_WAIT();
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] += x[i];
}

extern "C" __global__ void by_helper(float* y) {
  wait_for_producer();
  go();
  y[threadIdx.x] = 1.0f;
}

extern "C" __global__ void reads_first(const float* x, float* y) {
  float v = x[threadIdx.x];
  cudaGridDependencySynchronize();
  y[threadIdx.x] = v;
}

extern "C" __global__ void address_first(const float* x, float* y, int n) {
  const float* row = x + blockIdx.x * n;
  cudaGridDependencySynchronize();
  y[threadIdx.x] = row[threadIdx.x];
}

extern "C" __global__ void in_if(const float* x, float* y, int n) {
  if (n > 0) {
    cudaGridDependencySynchronize();
  }
  y[threadIdx.x] = x[threadIdx.x];
}

extern "C" __global__ void braceless_if(const float* x, float* y, int n) {
  if (n > 0) cudaGridDependencySynchronize();
  y[threadIdx.x] = x[threadIdx.x];
}

extern "C" __global__ void in_loop(const float* x, float* y, int n) {
  for (int k = 0; k < n; ++k) cudaGridDependencySynchronize();
  y[threadIdx.x] = x[threadIdx.x];
}

extern "C" __global__ void short_circuit(const float* x, float* y, int n) {
  n > 0 && (cudaGridDependencySynchronize(), true);
  y[threadIdx.x] = x[threadIdx.x];
}

extern "C" __global__ void helper_that_may_skip(const float* x, float* y, int n) {
  maybe_wait(n);
  y[threadIdx.x] = x[threadIdx.x];
}

extern "C" __global__ void never(const float* x, float* y) {
  y[threadIdx.x] = x[threadIdx.x];
}

extern "C" __global__ void after_if_block(const float* x, float* y, int n) {
  if (n > 0) { n = 1; }
  cudaGridDependencySynchronize();
  y[threadIdx.x] = x[threadIdx.x];
}

struct P { float* out; };
extern "C" __global__ void struct_first(P p) {
  p.out[0] = 1.0f;
  cudaGridDependencySynchronize();
}

extern "C" __global__ void compared_first(const float* x, float* y, int n) {
  if (n > x[0]) return;
  cudaGridDependencySynchronize();
  y[threadIdx.x] = 1.0f;
}

extern "C" __global__ void declared_only(float* y);
"#;

fn verdict(name: &str) -> Wait {
    let src = parse(SRC);
    let k = src.kernels.iter().find(|k| k.name == name).expect(name);
    wait(&src, k)
}

#[test]
fn waits_before_any_pointer_use_are_proven() {
    for k in ["first", "by_ptx", "by_helper", "after_if_block"] {
        assert!(
            matches!(verdict(k), Wait::Proven { .. }),
            "{k}: {:?}",
            verdict(k)
        );
    }
    assert_eq!(
        verdict("first"),
        Wait::Proven {
            line: 12,
            early: vec![]
        }
    );
}

#[test]
fn uses_before_the_wait_are_listed_with_their_lines() {
    // Each one must then be given memory no node writes, which the graph checks per node.
    assert_eq!(
        verdict("reads_first"),
        Wait::Proven {
            line: 30,
            early: vec![("x".into(), 29)],
        }
    );
    let early = |k: &str| match verdict(k) {
        Wait::Proven { early, .. } => early.into_iter().map(|(p, _)| p).collect::<Vec<_>>(),
        other => panic!("{k}: {other:?}"),
    };
    assert_eq!(early("address_first"), ["x"]);
    assert_eq!(early("struct_first"), ["p"]);
    assert_eq!(early("compared_first"), ["x"]);
}

#[test]
fn a_use_with_no_unconditional_wait_is_found_with_its_line() {
    assert_eq!(
        verdict("in_if"),
        Wait::UsedBefore {
            param: "y".into(),
            line: 44,
            conditional: Some((42, "if".into())),
        }
    );
}

#[test]
fn a_wait_that_some_path_skips_does_not_count() {
    let conditional = |k: &str| match verdict(k) {
        Wait::UsedBefore { .. } | Wait::Never { .. } => (),
        other => panic!("{k}: {other:?}"),
    };
    for k in [
        "in_if",
        "braceless_if",
        "in_loop",
        "short_circuit",
        "helper_that_may_skip",
        "never",
    ] {
        conditional(k);
    }
    // With no pointer use at all before the end, the construct is named.
    let src = parse(
        "extern \"C\" __global__ void k(int n) { if (n) { cudaGridDependencySynchronize(); } }",
    );
    assert_eq!(
        wait(&src, &src.kernels[0]),
        Wait::Never {
            conditional: Some((1, "if".into()))
        }
    );
    assert_eq!(verdict("declared_only"), Wait::NoBody);
}

#[test]
fn triggers_are_found_directly_through_ptx_and_through_helpers() {
    let src = parse(SRC);
    let t = |name: &str| triggers(&src, src.kernels.iter().find(|k| k.name == name).unwrap());
    assert!(t("by_ptx"));
    assert!(t("by_helper"));
    assert!(!t("first"));
}

/// Random kernel bodies against a brute-force oracle that runs every path (each `if` taken
/// or not, each loop 0, 1 or 2 times, `return` ending the path): whenever the proof accepts a
/// kernel, every pointer a path uses before it has waited is one the proof lists as used early
/// (which the graph then requires to be memory no node writes).
mod oracle {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum S {
        Use,
        Read,
        Wait,
        Ret,
        Scalar,
        If(Vec<S>),
        IfElse(Vec<S>, Vec<S>),
        BracelessIf(Box<S>),
        For(Vec<S>),
        Block(Vec<S>),
        Ternary,
    }

    fn stmt() -> impl Strategy<Value = S> {
        let leaf = prop_oneof![
            3 => Just(S::Use),
            2 => Just(S::Read),
            3 => Just(S::Wait),
            1 => Just(S::Ret),
            2 => Just(S::Scalar),
            1 => Just(S::Ternary),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(S::If),
                (
                    prop::collection::vec(inner.clone(), 0..3),
                    prop::collection::vec(inner.clone(), 0..3)
                )
                    .prop_map(|(a, b)| S::IfElse(a, b)),
                inner.clone().prop_map(|s| S::BracelessIf(Box::new(s))),
                prop::collection::vec(inner.clone(), 0..3).prop_map(S::For),
                prop::collection::vec(inner, 0..3).prop_map(S::Block),
            ]
        })
    }

    fn c(s: &S, out: &mut String) {
        match s {
            S::Use => out.push_str("y[0] = x[0];\n"),
            S::Read => out.push_str("n = n + (int)w[0];\n"),
            S::Wait => out.push_str("cudaGridDependencySynchronize();\n"),
            S::Ret => out.push_str("return;\n"),
            S::Scalar => out.push_str("n = n + 1;\n"),
            S::Ternary => out.push_str("n = n > 0 ? (cudaGridDependencySynchronize(), 1) : 0;\n"),
            S::If(b) => {
                out.push_str("if (n > 0) {\n");
                b.iter().for_each(|s| c(s, out));
                out.push_str("}\n");
            }
            S::IfElse(a, b) => {
                out.push_str("if (n > 1) {\n");
                a.iter().for_each(|s| c(s, out));
                out.push_str("} else {\n");
                b.iter().for_each(|s| c(s, out));
                out.push_str("}\n");
            }
            S::BracelessIf(s) => {
                out.push_str("if (n > 2) ");
                c(s, out);
            }
            S::For(b) => {
                out.push_str("for (int k = 0; k < n; ++k) {\n");
                b.iter().for_each(|s| c(s, out));
                out.push_str("}\n");
            }
            S::Block(b) => {
                out.push_str("{\n");
                b.iter().for_each(|s| c(s, out));
                out.push_str("}\n");
            }
        }
    }

    /// The pointers each path uses before it has waited (bits: 1 `x`, 2 `y`, 4 `w`). States
    /// in, paths out (each: waited, returned, pointers used before the wait).
    fn run(body: &[S], states: Vec<(bool, bool, u8)>) -> Vec<(bool, bool, u8)> {
        let mut states = states;
        for s in body {
            let mut next = Vec::new();
            for (waited, returned, early) in states {
                if returned {
                    next.push((waited, true, early));
                    continue;
                }
                let at = |used: u8| if waited { early } else { early | used };
                match s {
                    S::Use => next.push((waited, false, at(1 | 2))),
                    S::Read => next.push((waited, false, at(4))),
                    S::Scalar => next.push((waited, false, early)),
                    S::Wait => next.push((true, false, early)),
                    S::Ret => next.push((waited, true, early)),
                    // The wait in `?:` runs on one branch only.
                    S::Ternary => {
                        next.push((true, false, early));
                        next.push((waited, false, early));
                    }
                    S::If(b) | S::Block(b) => {
                        if matches!(s, S::If(_)) {
                            next.push((waited, false, early));
                        }
                        next.extend(run(b, vec![(waited, false, early)]));
                    }
                    S::IfElse(a, b) => {
                        next.extend(run(a, vec![(waited, false, early)]));
                        next.extend(run(b, vec![(waited, false, early)]));
                    }
                    S::BracelessIf(one) => {
                        next.push((waited, false, early));
                        next.extend(run(std::slice::from_ref(one), vec![(waited, false, early)]));
                    }
                    S::For(b) => {
                        next.push((waited, false, early));
                        let once = run(b, vec![(waited, false, early)]);
                        let again = once.iter().filter(|s| !s.1).copied().collect();
                        let twice = run(b, again);
                        next.extend(once);
                        next.extend(twice);
                    }
                }
            }
            next.sort_unstable();
            next.dedup();
            states = next;
        }
        states
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn an_accepted_kernel_uses_before_waiting_only_what_the_proof_lists(
            body in prop::collection::vec(stmt(), 0..8)
        ) {
            let mut text = String::from(
                "extern \"C\" __global__ void k(const float* x, float* y, const float* w, int n) {\n",
            );
            body.iter().for_each(|s| c(s, &mut text));
            text.push_str("}\n");
            let src = parse(&text);
            let verdict = wait(&src, &src.kernels[0]);
            if let Wait::Proven { early, .. } = verdict {
                let listed = early.iter().fold(0u8, |m, (p, _)| {
                    m | match p.as_str() {
                        "x" => 1,
                        "y" => 2,
                        "w" => 4,
                        other => panic!("not a pointer parameter: {other}"),
                    }
                });
                for (_, _, used) in run(&body, vec![(false, false, 0)]) {
                    prop_assert!(
                        used & !listed == 0,
                        "accepted, but a path uses {used:#b} before waiting and the proof lists {listed:#b}:\n{text}"
                    );
                }
            }
        }
    }
}

/// A file that defines the runtime's calls itself: NVRTC calls the file's (a function is
/// preferred to the device API's templates), so the proof reads its body, not its name.
#[test]
fn a_wait_or_trigger_the_file_defines_itself_counts_by_its_body() {
    let own = |wait_body: &str, trigger_body: &str| {
        format!(
            "__device__ __forceinline__ void cudaGridDependencySynchronize() {{ {wait_body} }}\n\
             __device__ void cudaTriggerProgrammaticLaunchCompletion() {{ {trigger_body} }}\n\
             extern \"C\" __global__ void k(const float* x, float* y) {{\n\
               cudaTriggerProgrammaticLaunchCompletion();\n\
               cudaGridDependencySynchronize();\n\
               y[threadIdx.x] = x[threadIdx.x];\n\
             }}\n"
        )
    };
    let verdicts = |text: &str| {
        let src = parse(text);
        let k = src.kernels.iter().find(|k| k.name == "k").expect("k");
        (wait(&src, k), triggers(&src, k))
    };
    // Defined as CUDA's header defines them: a wait and a trigger.
    let (w, t) = verdicts(&own(
        r#"asm volatile("griddepcontrol.wait;" ::: "memory");"#,
        r#"asm volatile("griddepcontrol.launch_dependents;");"#,
    ));
    assert_eq!(
        w,
        Wait::Proven {
            line: 5,
            early: vec![]
        }
    );
    assert!(t);
    // Defined to do nothing: the call is no wait, and `y` is written with none.
    let (w, t) = verdicts(&own("", ""));
    assert_eq!(
        w,
        Wait::UsedBefore {
            param: "y".into(),
            line: 6,
            conditional: None
        }
    );
    assert!(!t);
    // Only declared (no body): the runtime's call, by name.
    let declared = "__device__ void cudaGridDependencySynchronize();\n\
        extern \"C\" __global__ void k(const float* x, float* y) {\n\
          cudaGridDependencySynchronize();\n\
          y[threadIdx.x] = x[threadIdx.x];\n\
        }\n";
    assert_eq!(
        verdicts(declared).0,
        Wait::Proven {
            line: 3,
            early: vec![]
        }
    );
}
