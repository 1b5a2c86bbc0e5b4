//! Compile-time guarantees, checked with trybuild: what the borrow checker and the type system
//! reject (`ui-tests/runtime/*.rs`, each with the `.stderr` rustc printed), and what compiles.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/runtime/*.rs");
    t.pass("ui-tests/pass/*.rs");
}
