//! The `cuda_graph!` macro of [cuda-graph](https://github.com/cuda-graph/cuda-graph): a thin
//! shell around `cuda-graph-macros-core`, where the grammar, the checks and the code generation
//! live. Use it through the `cuda-graph` crate.

use proc_macro::TokenStream;

/// Declares CUDA graphs: kernels with typed signatures, buffers, params, callbacks, events,
/// nodes and edges, checked at compile time, with typed setters on the executable graph.
///
/// ```text
/// Input      := Graph*
/// Graph      := OuterAttr* Vis 'graph' Ident '{' Item* '}'
/// Item       := Source | Kernel | Buffer | Param | Callback | Event | Node | Edges
/// Kernel     := 'kernel' Ident ('(' (Ident ':' ParamTy),* ')')? ('in' LitStr)? ';'
/// Source     := 'source' LitStr ';'        the CUDA file the graph's kernels are in
/// ParamTy    := '&' '[' Type ']'            a device buffer the kernel reads
///             | '&' 'mut' '[' Type ']'      a device buffer the kernel writes
///             | Type                        a by-value scalar (any cudarc DeviceRepr type)
/// Buffer     := '#[disjoint]'? ('buffer' | 'host_buffer') 'mut'? Ident ':' Type ';'
/// Param      := 'param' Ident ':' Type ';'
/// Callback   := 'callback' Ident ';'        a `&dyn Fn() + Send + Sync` input
/// Event      := 'event' Ident ';'           a `&CudaEvent` input
/// Node       := '#[concurrent]'? Ident '=' Op ';'
/// Op         := Ident '<<<' Expr ',' Expr (',' Expr)? '>>>' '(' Expr,* ')'   kernel launch
///             | 'memset' '(' Ident ',' Expr ')'                              dst, value
///             | 'memcpy' '(' Ident ',' Ident ')'                             dst, src
///             | 'host' '(' Expr ')'            a declared callback, or a closure `|| ...`
///             | 'empty'
///             | 'child' '(' Path ('{' (Ident ':' Expr),* '}')? ')'           another graph
///             | 'record' '(' Ident ')' | 'wait' '(' Ident ')'
/// Edges      := Group ('->' Group)+ ';'    a -> b -> c;   a -> [b, c] -> d;
/// Group      := Ident | '[' Ident,+ ']'
/// ```
///
/// - `buffer mut` may be written by nodes; `#[disjoint]` on a buffer says its nodes touch
///   disjoint parts of it, so unordered writers are no data race.
/// - `source "kernels/saxpy.cu";` (a path relative to the crate's manifest directory) makes the
///   macro read the file at compile time and check every kernel declaration against its
///   `extern "C" __global__` declaration: it exists, the parameter count, the scalar types
///   (`float` is `f32`, `unsigned` is `u32`, `size_t` is `usize`, ...), and constness
///   (`const float*` is `&[f32]`, `float*` is `&mut [f32]`). A kernel declared without a
///   parameter list (`kernel saxpy;`) takes it from the file. The graph then also has
///   `SOURCE` and `build_from_source(&ctx, inputs)`, which compiles the file with NVRTC once per
///   context; editing the file rebuilds the crate. `kernel k(...) in "other.cu";` names a file
///   for one kernel. Every graph has `PROTOTYPES`, the C prototypes of its kernels.
/// - `#[concurrent]` on a node keeps it out of width capping (a wide graph's unordered nodes may
///   be put into lanes at instantiation; see `Instantiate::width_cap`).
/// - Grid and block are a `u32` or a tuple of up to three; launch dimensions, scalar arguments
///   and memset values are expressions of params and constants. A lowercase name in them must
///   be a param; names starting with an uppercase letter and paths (`u32::MAX`) come from the
///   surrounding scope. Parenthesise an expression that contains `>>`.
/// - A child graph gets the parent's buffers, callbacks and events by name, and expressions of
///   the parent's params and constants; a setter of one of those inputs builds the child again
///   and swaps it into its node in place.
/// - `cond c = 1;` declares a condition handle (a kernel parameter of type `Cond`, set on the
///   device with `cudaGraphSetConditional`); `if c { .. } else { .. }`, `while c { .. }` and
///   `switch c { 0 => { .. } .. }` nodes run inline bodies of nodes and edges.
/// - `temp t: [T; len];` is graph-owned scratch memory, allocated before its first users and
///   freed after its last (placed by the macro); reading it before any write is an error.
/// - `work w;` and `g = capture(w, reads: [..], writes: [..])` run a closure's stream work (a
///   cuBLAS call) captured as a node.
/// - `///` doc comments are allowed on every item.
///
/// For `graph Name`, the macro generates `NameInputs<'a>` (what `Name::build(&module, inputs)`
/// borrows), `Name<'a>` (the template: `build`, `instantiate`, `DOT`), `NameExec<'a>` (launch,
/// a view per node, `set_<param>`, `set_<buffer>`, ...) and `NameChild` (its inputs as a
/// child graph).
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
