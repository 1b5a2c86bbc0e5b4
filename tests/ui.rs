//! Compile-time guarantees, checked with trybuild: what the borrow checker and the type system
//! reject in the runtime API (`ui-tests/runtime/`), what `cuda_graph!` rejects
//! (`ui-tests/macro/`), each with the `.stderr` rustc printed, and what compiles (`pass/`,
//! `macro-pass/`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/runtime/*.rs");
    t.compile_fail("ui-tests/macro/*.rs");
    t.pass("ui-tests/pass/*.rs");
    t.pass("ui-tests/macro-pass/*.rs");
}

/// What must compile also compiles warning-free: every case that must pass, and every example,
/// denies warnings, so generated code that warns in a user's crate (an `unused_parens`, a
/// missing doc) fails here.
#[test]
fn what_must_compile_denies_warnings() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut missing = Vec::new();
    let mut seen = 0;
    for dir in [
        "ui-tests/pass",
        "ui-tests/macro-pass",
        "examples",
        "flagships/examples",
    ] {
        let entries = std::fs::read_dir(format!("{root}/{dir}"))
            .unwrap_or_else(|e| panic!("read {dir}: {e}"));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|x| x == "rs") {
                seen += 1;
                let text = std::fs::read_to_string(&path).expect("read a case");
                let denies = text.lines().any(|l| {
                    let l = l.trim();
                    l.starts_with("#![deny(") && l.contains("warnings")
                });
                if !denies {
                    missing.push(path.display().to_string());
                }
            }
        }
    }
    assert!(seen > 20, "only {seen} cases found");
    assert!(
        missing.is_empty(),
        "add `#![deny(warnings)]` at the top of: {missing:?}"
    );
}
