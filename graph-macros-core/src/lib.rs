//! The front end of the `cuda_graph!` macro as a plain library, so it can be tested and measured
//! without a proc-macro boundary (the `cuda-graph-macros` crate is a thin shell around
//! [`cuda_graph`]). Use the macro through the `cuda-graph` crate.
//!
//! Phases, one module each:
//! - [`ast`]: the grammar (in its documentation) and the parser;
//! - [`validate`]: every check, all errors collected ([`model::Errors`]), producing the checked
//!   [`model`], the single source of facts for code generation;
//! - [`expand`]: code generation, a pure function of the model.
//!
//! Each node kind (kernel launch, memset, memcpy, host callback, empty, child graph, event
//! record and wait) has one module in `kinds` with its lowering (syntax to model, with its
//! checks) and its expansion (handle type, how `build` adds it, how setters refresh it).
#![warn(missing_docs)]

pub mod ast;
pub mod csrc;
pub mod expand;
pub mod export;
mod gen;
mod hints;
mod kinds;
mod lengths;
pub mod lower;
pub mod model;
pub mod validate;

use proc_macro2::TokenStream;

/// The macro: parses `input`, checks every graph, and emits the errors (each at its token) and
/// the code of every graph. A graph with errors is still expanded without the faulty nodes and
/// edges, so its types exist and one mistake does not cascade into many.
pub fn cuda_graph(input: TokenStream) -> TokenStream {
    cuda_graph_in(input, validate::Dirs::from_env(None))
}

/// [`cuda_graph`], with CUDA source paths looked up in `dirs` (the proc-macro crate passes the
/// directory of the file the macro is called in, besides the manifest directory).
pub fn cuda_graph_in(input: TokenStream, dirs: validate::Dirs) -> TokenStream {
    if let Some(call) = export::import(&input) {
        return call;
    }
    let input = export::unmarked(input);
    let parsed = match syn::parse2::<ast::Input>(input) {
        Ok(parsed) => parsed,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = model::Errors::default();
    let exported = export::exports(&parsed.blocks, &dirs, &mut errors);
    let graphs = validate::check(parsed, &dirs, &mut errors);
    let mut out = errors.into_compile_errors();
    for g in &graphs {
        out.extend(expand::graph(g));
    }
    out.extend(exported);
    out
}

/// Parses and checks `input`: the checked graphs and every error found, or the parse error.
/// CUDA source paths are relative to `CARGO_MANIFEST_DIR`.
pub fn check(input: TokenStream) -> syn::Result<(Vec<model::Graph>, model::Errors)> {
    check_in(input, &validate::Dirs::from_env(None))
}

/// [`check`], with CUDA source paths looked up in `dirs`.
pub fn check_in(
    input: TokenStream,
    dirs: &validate::Dirs,
) -> syn::Result<(Vec<model::Graph>, model::Errors)> {
    let parsed = syn::parse2::<ast::Input>(input)?;
    let mut errors = model::Errors::default();
    let graphs = validate::check(parsed, dirs, &mut errors);
    Ok((graphs, errors))
}
