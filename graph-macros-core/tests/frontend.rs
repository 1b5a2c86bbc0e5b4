//! Property tests on the macro's front end (parse -> validate -> expand), through the library
//! directly. No GPU needed.
//!
//! - random edge sets over random node names are accepted exactly when they form a DAG,
//!   compared with a reference topological sort;
//! - random token input never panics the macro;
//! - data races are reported for exactly the node pairs a brute-force reference finds.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use std::collections::BTreeSet;

use cuda_graph_macros_core::{check, expand, lower};
use proc_macro2::TokenStream;
use proptest::prelude::*;

/// What the macro does with `src`: `Ok(expansion)` or `Err(messages)`.
fn run(src: &str) -> Result<TokenStream, Vec<String>> {
    run_tokens(src.parse().expect("test input is valid Rust tokens"))
}

/// Reference: Kahn's algorithm.
fn is_dag(n: usize, edges: &BTreeSet<(usize, usize)>) -> bool {
    let mut indeg = vec![0; n];
    for &(_, b) in edges {
        indeg[b] += 1;
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut seen = 0;
    while let Some(v) = ready.pop() {
        seen += 1;
        for &(a, b) in edges {
            if a == v {
                indeg[b] -= 1;
                if indeg[b] == 0 {
                    ready.push(b);
                }
            }
        }
    }
    seen == n
}

fn graph_src(names: &[String], edges: &BTreeSet<(usize, usize)>, grouped: bool) -> String {
    let mut s = String::from("graph G {\n");
    for n in names {
        s.push_str(&format!("    {n} = empty;\n"));
    }
    if grouped {
        // Fan-out groups: `a -> [b, c];`
        let mut by_src: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for &(a, b) in edges {
            by_src.entry(a).or_default().push(b);
        }
        for (a, bs) in by_src {
            let targets: Vec<&str> = bs.iter().map(|&b| names[b].as_str()).collect();
            s.push_str(&format!("    {} -> [{}];\n", names[a], targets.join(", ")));
        }
    } else {
        for &(a, b) in edges {
            s.push_str(&format!("    {} -> {};\n", names[a], names[b]));
        }
    }
    s.push_str("}\n");
    s
}

fn names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::btree_set("n_[a-z0-9]{1,6}", 1..12).prop_map(|s| s.into_iter().collect())
}

fn graph_case() -> impl Strategy<Value = (Vec<String>, BTreeSet<(usize, usize)>)> {
    names().prop_flat_map(|names| {
        let n = names.len();
        let edges = prop::collection::btree_set((0..n, 0..n), 0..(n * 2 + 1)).prop_map(|e| {
            e.into_iter()
                .filter(|(a, b)| a != b)
                .collect::<BTreeSet<_>>()
        });
        (Just(names), edges)
    })
}

/// Nodes that each read or write one buffer, with edges that only go forward (a DAG).
fn race_case() -> impl Strategy<Value = (Vec<bool>, BTreeSet<(usize, usize)>)> {
    (1usize..14).prop_flat_map(|n| {
        let writes = prop::collection::vec(any::<bool>(), n);
        let edges = prop::collection::btree_set((0..n, 0..n), 0..(n * 2 + 1)).prop_map(|e| {
            e.into_iter()
                .filter(|(a, b)| a < b)
                .collect::<BTreeSet<_>>()
        });
        (writes, edges)
    })
}

/// Reference: for each node, the first earlier node it races with (one of the two writes the
/// buffer and no path orders them), found by searching paths one pair at a time.
fn reference_races(writes: &[bool], edges: &BTreeSet<(usize, usize)>) -> BTreeSet<(usize, usize)> {
    let reaches = |from: usize, to: usize| {
        let mut stack = vec![from];
        let mut seen = BTreeSet::new();
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            if seen.insert(v) {
                stack.extend(edges.iter().filter(|e| e.0 == v).map(|e| e.1));
            }
        }
        false
    };
    (0..writes.len())
        .filter_map(|j| {
            (0..j)
                .find(|&i| (writes[i] || writes[j]) && !reaches(i, j) && !reaches(j, i))
                .map(|i| (i, j))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn races_are_reported_exactly_where_the_reference_finds_them((writes, edges) in race_case()) {
        // Declare only what is used: an unused kernel is an error of its own.
        let mut src = String::from("graph G {\n");
        if writes.iter().any(|&w| !w) {
            src.push_str("    kernel r(y: &[f32]);\n");
        }
        if writes.iter().any(|&w| w) {
            src.push_str("    kernel w(y: &mut [f32]);\n    buffer mut y: f32;\n");
        } else {
            src.push_str("    buffer y: f32;\n");
        }
        for (i, &wr) in writes.iter().enumerate() {
            src.push_str(&format!("    n{i} = {}<<<1, 1>>>(y);\n", if wr { "w" } else { "r" }));
        }
        for &(a, b) in &edges {
            src.push_str(&format!("    n{a} -> n{b};\n"));
        }
        src.push_str("}\n");
        let found: BTreeSet<(usize, usize)> = match run(&src) {
            Ok(_) => BTreeSet::new(),
            Err(errs) => errs
                .iter()
                .map(|e| {
                    assert!(e.starts_with("data race"), "{e}");
                    let names: Vec<usize> = e
                        .split('`')
                        .skip(1)
                        .step_by(2)
                        .take(2)
                        .map(|n| n.trim_start_matches('n').parse().expect("a node name"))
                        .collect();
                    (names[0], names[1])
                })
                .collect(),
        };
        prop_assert_eq!(found, reference_races(&writes, &edges), "{}", src);
    }

    #[test]
    fn accepted_exactly_when_the_edges_form_a_dag((names, edges) in graph_case(), grouped in any::<bool>()) {
        let src = graph_src(&names, &edges, grouped);
        let result = run(&src);
        let dag = is_dag(names.len(), &edges);
        prop_assert_eq!(result.is_ok(), dag, "{}\n{:?}", src, result.err());
        if !dag {
            let errs = run(&src).unwrap_err();
            prop_assert!(errs.iter().all(|e| e.contains("closes a cycle")), "{:?}", errs);
        }
    }

    #[test]
    fn self_edges_and_repeated_edges_are_rejected((names, edges) in graph_case(), pick in any::<prop::sample::Index>()) {
        prop_assume!(!edges.is_empty() && is_dag(names.len(), &edges));
        let edge = *pick.get(&edges.iter().collect::<Vec<_>>());
        let mut src = graph_src(&names, &edges, false);
        src.insert_str(src.len() - 2, &format!("    {} -> {};\n", names[edge.0], names[edge.1]));
        let errs = run(&src).unwrap_err();
        prop_assert_eq!(errs.len(), 1);
        prop_assert!(errs[0].contains("is written twice"), "{:?}", errs);
        let mut src = graph_src(&names, &edges, false);
        src.insert_str(src.len() - 2, &format!("    {0} -> {0};\n", names[edge.0]));
        let errs = run(&src).unwrap_err();
        prop_assert!(errs[0].contains("cannot depend on itself"), "{:?}", errs);
    }

    #[test]
    fn random_tokens_never_panic_and_every_rejection_points_at_a_token(src in token_soup()) {
        let outcome = std::panic::catch_unwind(|| rejections_point_into(&src));
        prop_assert!(outcome.is_ok(), "the macro panicked on: {}", src);
        prop_assert_eq!(outcome.unwrap(), Ok(()), "{}", src);
    }

    #[test]
    fn mutated_valid_graphs_never_panic_and_every_rejection_points_at_a_token(
        cut in 0usize..2000,
        insert in token_piece(),
    ) {
        let mut src = String::from(VALID);
        let at = (cut % src.len()).min(src.len());
        let at = (0..=at).rev().find(|&i| src.is_char_boundary(i)).unwrap_or(0);
        src.insert_str(at, &format!(" {insert} "));
        let outcome = std::panic::catch_unwind(|| rejections_point_into(&src));
        prop_assert!(outcome.is_ok(), "the macro panicked on: {}", src);
        prop_assert_eq!(outcome.unwrap(), Ok(()), "{}", src);
    }
}

fn run_tokens(tokens: TokenStream) -> Result<TokenStream, Vec<String>> {
    let (graphs, errors) = check(tokens).map_err(|e| vec![e.to_string()])?;
    let out = graphs.iter().map(expand::graph).collect();
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors.messages())
    }
}

/// Runs the front end on `src`; every error it reports must point at tokens of `src` (a byte
/// range inside it), except a parse error at the very end of the input, which points at the
/// macro call itself (there is no token after the last one).
fn rejections_point_into(src: &str) -> Result<(), String> {
    let Ok(tokens) = src.parse::<TokenStream>() else {
        return Ok(());
    };
    let inside = |span: proc_macro2::Span| {
        let r = span.byte_range();
        r.start < r.end && r.end <= src.len()
    };
    match check(tokens) {
        Err(e) if inside(e.span()) || e.to_string().starts_with("unexpected end of input") => {
            Ok(())
        }
        Err(e) => Err(format!("parse error without a span in the input: {e}")),
        Ok((graphs, errors)) => {
            for g in &graphs {
                let _ = expand::graph(g);
            }
            match errors.list().iter().find(|e| !inside(e.span())) {
                Some(e) => Err(format!("error without a span in the input: {e}")),
                None => Ok(()),
            }
        }
    }
}

const VALID: &str = r#"
graph G {
    kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
    kernel sum(y: &[f32], total: &mut [f32], n: u32);
    buffer x: f32;
    buffer mut y: f32;
    buffer mut total: f32;
    host_buffer mut out: f32;
    param a: f32;
    param n: u32;
    callback done;
    event ev;
    clear = memset(total, 0.0);
    step = saxpy<<<n.div_ceil(256), 256>>>(a, x, y, n);
    reduce = sum<<<1, 1024, 0>>>(y, total, n);
    back = memcpy(out, total);
    tell = host(done);
    rec = record(ev);
    join = empty;
    step -> reduce -> back -> [tell, rec] -> join;
    clear -> reduce;
}
"#;

fn token_piece() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "graph",
        "kernel",
        "buffer",
        "host_buffer",
        "param",
        "callback",
        "event",
        "memset",
        "memcpy",
        "host",
        "empty",
        "child",
        "record",
        "wait",
        "mut",
        "->",
        "=",
        ";",
        ",",
        ":",
        "&",
        "<<<",
        ">>>",
        "<",
        ">",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "x",
        "y",
        "n",
        "a",
        "G",
        "step",
        "0",
        "1.5",
        "\"s\"",
        "|| 1",
        "::",
        ".",
        "*",
        "+",
        "pub",
        "#[doc = \"d\"]",
        "n.div_ceil(2)",
        "u32",
        "f32",
        "&mut [u32]",
        "&[f32]",
    ])
    .prop_map(str::to_owned)
}

/// Random tokens from the grammar's vocabulary, groups balanced.
fn token_soup() -> impl Strategy<Value = String> {
    let leaf = token_piece().prop_filter("no lone delimiters", |t| {
        !matches!(t.as_str(), "(" | ")" | "[" | "]" | "{" | "}")
    });
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(|v| v.join(" ")),
            prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("( {} )", v.join(" "))),
            prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[ {} ]", v.join(" "))),
            prop::collection::vec(inner, 0..6).prop_map(|v| format!("{{ {} }}", v.join(" "))),
        ]
    })
}

#[test]
fn the_valid_example_expands() {
    let out = run(VALID).unwrap_or_else(|e| panic!("{e:?}"));
    let text = out.to_string();
    assert!(text.contains("struct GExec"), "{text}");
    assert!(text.contains("fn set_a"), "{text}");
}

#[test]
fn free_identifiers_skip_methods_paths_and_types() {
    let e: syn::Expr =
        syn::parse_str("n.div_ceil(BLOCK) + u32::MAX.min(m as u32) + f(k) + q!(z)").unwrap();
    let ids: Vec<String> = lower::free_idents(quote::ToTokens::to_token_stream(&e))
        .iter()
        .map(|i| i.to_string())
        .collect();
    // `f` is a function and `q!` a macro; their arguments are values.
    assert_eq!(ids, vec!["n", "m", "k", "z"]);
}

/// The body of the first `cuda_graph! { ... }` in a Rust source file.
fn macro_body(file: &str) -> Option<&str> {
    let start = file.find("cuda_graph! {")? + "cuda_graph! {".len();
    let mut depth = 1;
    for (i, c) in file[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&file[start..start + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every misuse program of the trybuild suite: what the front end rejects, it rejects at tokens
/// of the input.
#[test]
fn every_misuse_of_the_ui_suite_is_reported_at_a_token() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui-tests/macro");
    let mut rejected = 0;
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("the ui-tests folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a test file");
        let Some(body) = macro_body(&text) else {
            continue;
        };
        assert_eq!(rejections_point_into(body), Ok(()), "{}", path.display());
        let tokens: TokenStream = body.parse().expect("valid tokens");
        if check(tokens).map_or(true, |(_, e)| !e.is_empty()) {
            rejected += 1;
        }
    }
    // Most cases are the macro's own errors; the rest are rustc's (types at the user's tokens).
    assert!(
        rejected >= 20,
        "only {rejected} of {} rejected",
        files.len()
    );
}

#[test]
fn c_parameter_names_become_snake_case_setters_by_the_documented_rule() {
    use cuda_graph_macros_core::lower::{rust_param_names, snake_case};
    assert_eq!(snake_case("numRows"), "num_rows");
    assert_eq!(snake_case("N"), "n");
    assert_eq!(snake_case("ldA"), "ld_a");
    assert_eq!(snake_case("HTTPCode"), "http_code");
    assert_eq!(snake_case("already_snake"), "already_snake");
    assert_eq!(snake_case("x2Y"), "x2_y");
    let names = rust_param_names(&[
        Some("A"),
        Some("grid"),
        None,
        Some("type"),
        Some("a"),
        Some("block"),
        Some("self"),
    ]);
    assert_eq!(
        names,
        ["a", "grid_1", "p2", "type_3", "a_4", "block_5", "self_6"]
    );
}
