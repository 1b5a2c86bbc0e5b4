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
/// Item       := Kernel | Buffer | Param | Callback | Event | Node | Edges
/// Kernel     := 'kernel' Ident '(' (Ident ':' ParamTy),* ')' ';'
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
/// - `#[concurrent]` on a node keeps it out of width capping (a wide graph's unordered nodes may
///   be put into lanes at instantiation; see `Instantiate::width_cap`).
/// - Grid and block are a `u32` or a tuple of up to three; launch dimensions, scalar arguments
///   and memset values are expressions of params and constants. A lowercase name in them must
///   be a param; names starting with an uppercase letter and paths (`u32::MAX`) come from the
///   surrounding scope. Parenthesise an expression that contains `>>`.
/// - A child graph gets the parent's buffers, callbacks and events by name, and constants for
///   its params.
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
    cuda_graph_macros_core::cuda_graph(input.into()).into()
}
