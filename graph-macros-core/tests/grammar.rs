//! The grammar is written once (`graph-macros/grammar.md`, shown in the macro's rustdoc); this
//! checks that it names every keyword the parser knows, so a new piece of syntax cannot land
//! undocumented. It reads the sources, so like the trybuild harness it stays out of the GPU pack
//! (`shared/gpu/pack.sh` leaves out tests whose source names trybuild) and runs in CI.

#[test]
fn the_grammar_names_every_keyword() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ast = std::fs::read_to_string(root.join("src/ast.rs")).expect("read ast.rs");
    let grammar =
        std::fs::read_to_string(root.join("../graph-macros/grammar.md")).expect("read grammar.md");
    let keywords: Vec<&str> = ast
        .split("custom_keyword!(")
        .skip(1)
        .map(|rest| &rest[..rest.find(')').expect("a closing parenthesis")])
        .collect();
    assert!(keywords.len() >= 15, "found only {keywords:?}");
    let missing: Vec<_> = keywords
        .iter()
        .filter(|k| !grammar.contains(&format!("'{k}'")))
        .collect();
    assert!(missing.is_empty(), "grammar.md does not name {missing:?}");
}
