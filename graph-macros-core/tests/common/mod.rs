//! What the front-end tests share.

use std::path::PathBuf;

use cuda_graph_macros_core::{check_in, validate::Dirs};

/// The front end's errors for `graph G { <items> }` read from `manifest`, other than the ones
/// every graph that only declares kernels has (its kernels are never launched).
pub fn declaration_errors(items: &str, manifest: PathBuf) -> Vec<String> {
    let src = format!("graph G {{ {items} }}");
    let dirs = Dirs {
        manifest: Some(manifest),
        call: None,
    };
    let (_, errs) = check_in(src.parse().expect("tokens"), &dirs).expect("parses");
    errs.messages()
        .into_iter()
        .filter(|m| !m.contains("never launched") && !m.contains("no node launches"))
        .collect()
}
