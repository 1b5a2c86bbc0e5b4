//! The `cuda_graph!` macro: a CUDA graph declared as a block, checked at compile time, expanded
//! into code against the cuda-graph runtime. Use it through the `cuda-graph` crate.
//!
//! Phases, one module each: [`ast`] (grammar and parser) -> [`validate`] (every check, errors
//! collected) -> [`expand`], [`expand_build`] and [`expand_exec`] (code generation); [`dot`] renders the graph.

mod ast;
mod dot;
mod expand;
mod expand_build;
mod expand_exec;
mod validate;

use proc_macro::TokenStream;

/// Declares CUDA graphs: kernels, buffers, params, callbacks, events, nodes and edges, checked
/// at compile time. The grammar is in [`ast`]'s documentation and in the `cuda-graph` crate's
/// README, with an example; use the macro through `cuda_graph::cuda_graph!`.
#[proc_macro]
pub fn cuda_graph(input: TokenStream) -> TokenStream {
    expand_all(input.into()).into()
}

fn expand_all(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let parsed = match syn::parse2::<ast::Input>(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = validate::Errors::default();
    let graphs = validate::check(parsed, &mut errors);
    let mut out = errors.into_compile_errors();
    for g in &graphs {
        out.extend(expand::expand(g));
    }
    out
}
