//! The `cuda_graph!` macro of `cuda-graph`: a thin
//! shell around `cuda-graph-macros-core`, where the grammar, the checks and the code generation
//! live. Use it through the `cuda-graph` crate.
#![warn(missing_docs)]

use proc_macro::TokenStream;

/// Declares CUDA graphs: kernels with typed signatures, buffers, params, callbacks, events,
/// nodes and edges, checked at compile time, with typed setters on the executable graph.
///
#[doc = include_str!("../grammar.md")]
///
/// ```ignore
/// use cuda_graph::prelude::*;
///
/// cuda_graph! {
///     pub graph Saxpy {
///         kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
///         buffer x: f32;
///         buffer mut y: f32;
///         param a: f32;
///         param n: u32;
///         step = saxpy<<<n.div_ceil(256), 256>>>(a, x, y, n);
///     }
/// }
/// ```
///
/// Every misuse is a compile error at the offending token (unknown or duplicate names, cycles,
/// wrong argument counts and types, read-only buffers written, data races between unordered
/// nodes, ...); the `cuda-graph` crate's README lists them with their messages.
#[proc_macro]
pub fn cuda_graph(input: TokenStream) -> TokenStream {
    // CUDA source paths are relative to the manifest directory; the calling file's directory is
    // looked in second.
    let call = proc_macro::Span::call_site()
        .local_file()
        .and_then(|f| f.parent().map(std::path::Path::to_path_buf))
        // Absolute, so `include_str!` in the expansion finds the file from any directory.
        .map(|d| std::fs::canonicalize(&d).unwrap_or(d));
    let dirs = cuda_graph_macros_core::validate::Dirs::from_env(call);
    cuda_graph_macros_core::cuda_graph_in(input.into(), dirs).into()
}
