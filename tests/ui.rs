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
