//! The checked model of a graph: what validation resolved from the syntax, and the only source
//! of facts for code generation. Names are resolved to indices, each expression carries the
//! params it uses, and the structure (edges, order, predecessors) lives in one [`Topology`].

use std::collections::BTreeSet;

use cuda_graph_topology::{NodeKind, Topology};
use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Expr, Ident, Path, Type, Visibility};

pub use crate::ast::{CollectiveOp, CondOp, ParamTy, RedOp};

/// Errors, collected: every check adds to it, and nothing is reported until all checks ran.
/// Beside them, the fixes some of them propose, as data (what the message writes, and what
/// tests apply to check that it fixes what the error reports).
/// And the inputs whose uses an error dropped (`graph:name`, or `graph:*` for all of a graph),
/// which are not reported unused.
#[derive(Default)]
pub struct Errors(
    Vec<syn::Error>,
    BTreeSet<String>,
    Vec<Fix>,
    BTreeSet<String>,
);

/// A fix an error proposes, by node names: after it, what the error reports is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// The error (its index in [`Errors::messages`]).
    pub error: usize,
    /// What to write: these additions together end what the error reports.
    pub add: Vec<Add>,
}

/// What a [`Fix`] writes into the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Add {
    /// An edge `from -> to;` in the scope that holds both.
    Edge {
        /// The source node's name.
        from: String,
        /// The target node's name.
        to: String,
    },
    /// A carry edge `carry from -> to;` in the body of repeat block `block`.
    Carry {
        /// The repeat block's name.
        block: String,
        /// The source node's name (a node of the block's body, in iteration `l`).
        from: String,
        /// The target node's name (a node of the block's body, in iteration `l + 1`).
        to: String,
    },
}

impl Errors {
    /// Notes that the error just added proposes `add`.
    pub fn propose(&mut self, add: Vec<Add>) {
        let error = self.0.len().saturating_sub(1);
        self.2.push(Fix { error, add });
    }

    /// The fixes proposed, by error.
    pub fn fixes(&self) -> &[Fix] {
        &self.2
    }

    /// An error at `span`, unless one with the same `key` (the mistake: `read-only:y`, say) was
    /// reported: one mistake met at several uses gives one error, at the first.
    pub fn once(&mut self, key: String, span: Span, msg: impl std::fmt::Display) {
        if self.1.insert(key) {
            self.at(span, msg);
        }
    }

    /// An error at `span`.
    pub fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, msg));
    }

    /// An error over the tokens from `start` to `end` (`&mut`, say).
    pub fn range(&mut self, start: Span, end: Span, msg: impl std::fmt::Display) {
        let tokens: TokenStream = [
            proc_macro2::TokenTree::Ident(Ident::new("start", start)),
            proc_macro2::TokenTree::Ident(Ident::new("end", end)),
        ]
        .into_iter()
        .collect();
        self.0.push(syn::Error::new_spanned(tokens, msg));
    }

    /// Notes that an error dropped a use of input `name` of `graph` (`*`: of any of its
    /// inputs, where what was dropped is unknown), so it is not reported unused as well.
    pub fn dropped_use(&mut self, graph: &str, name: &str) {
        self.3.insert(format!("{graph}:{name}"));
    }

    /// Whether an error dropped a use of input `name` of `graph` (see [`Errors::dropped_use`]).
    pub fn use_dropped(&self, graph: &str, name: &str) -> bool {
        self.3.contains(&format!("{graph}:{name}")) || self.3.contains(&format!("{graph}:*"))
    }

    /// A parse error.
    pub fn push(&mut self, e: syn::Error) {
        self.0.push(e);
    }

    /// How many errors were found.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no error was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The messages, in the order they were found.
    pub fn messages(&self) -> Vec<String> {
        self.0.iter().map(|e| e.to_string()).collect()
    }

    /// The errors themselves.
    pub fn list(&self) -> &[syn::Error] {
        &self.0
    }

    /// `compile_error!` invocations at each error's span.
    pub fn into_compile_errors(self) -> TokenStream {
        self.0.into_iter().map(|e| e.to_compile_error()).collect()
    }
}

/// A declared kernel.
pub struct Kernel {
    /// Its name in the graph.
    pub name: Ident,
    /// Its parameters: name and type.
    pub params: Vec<(Ident, ParamTy)>,
    /// Whether a node launches it (an unused kernel is an error).
    pub used: bool,
    /// The CUDA source it was checked against (an index into `Graph::sources`).
    pub source: Option<usize>,
    /// Its declaration had an error (reported): nodes launching it are left out silently.
    pub broken: bool,
    /// For a kernel with C++ linkage: the name the module finds it by (its qualified name,
    /// with template arguments for a template instance); `None`: its own name.
    pub load: Option<String>,
    /// Rust types whose layout must be a C type's (checked where the expansion compiles).
    pub sizes: Vec<LayoutCheck>,
    /// What its CUDA source says about programmatic dependent launch (`None`: no source).
    pub pdl: Option<Pdl>,
}

/// A Rust type standing for a C type whose layout the reader knows (a struct the file defines,
/// a vector type, ...): checked where the expansion compiles, with `msg` if it differs.
pub struct LayoutCheck {
    /// The Rust type.
    pub ty: Type,
    /// The C type's size in bytes.
    pub size: usize,
    /// `None`: the C type's alignment is not one value (a tensor map's changed with CUDA 13).
    pub align: Option<usize>,
    /// The error shown if the layouts differ.
    pub msg: String,
}

/// What a kernel's CUDA source says about programmatic dependent launch.
#[derive(Debug, Clone)]
pub struct Pdl {
    /// `Ok` when it waits for its predecessors unconditionally, using no pointer before but
    /// those in `early`; else why not, in words, quoting the C line.
    pub waits: Result<(), String>,
    /// The parameters it uses before its wait: a node on a programmatic edge must give each
    /// one memory that no node writes.
    pub early: Vec<EarlyUse>,
    /// Whether it triggers its dependents' launch on some path.
    pub triggers: bool,
}

/// A kernel parameter used before the kernel waits for its predecessors.
#[derive(Debug, Clone)]
pub struct EarlyUse {
    /// The parameter's name.
    pub param: String,
    /// Its position among the kernel's parameters (`usize::MAX` when no parameter has its name).
    pub index: usize,
    /// It holds addresses of memory the graph does not track (an array of addresses, a tensor
    /// map): what it reaches cannot be proved unwritten, whatever buffer gives it.
    pub through: bool,
    /// The C line of its first use, quoted as messages quote it.
    pub line: String,
}

/// A buffer declaration.
pub struct Buffer {
    /// `host_buffer`: host memory, which only memcpy nodes read or write.
    pub host: bool,
    /// Declared `mut`: nodes may write it.
    pub mutable: bool,
    /// The element type.
    pub elem: Type,
    /// Written by unordered nodes on purpose (disjoint parts): no race check.
    pub disjoint: bool,
    /// Graph-owned memory (`temp`): its length, an expression of params and constants. Not an
    /// input of `build`: allocation and free nodes are placed around the nodes that use it.
    pub temp: Option<Value>,
    /// `buffer x: [T; len];`: the length every bound buffer must hold (each buffer of a
    /// stack), an expression of params and constants that `build` and the setters check.
    pub len: Option<Value>,
    /// A stack of buffers (`buffer w[count]: T;`, one per iteration of a repeat block): its
    /// count, an expression of params and constants, and where it is written.
    pub stack: Option<(Value, Span)>,
    /// `on peer`: a buffer of another device than the graph's, which only memcpy nodes use
    /// (a peer copy).
    pub peer: bool,
}

/// What an input is.
#[allow(clippy::large_enum_variant)] // a few per graph, built once per macro call
pub enum InputKind {
    /// A buffer (`buffer`, `host_buffer`) or a temporary (`temp`).
    Buffer(Buffer),
    /// A param (`param name: T;`), of this type.
    Param(Type),
    /// A host callback (`callback name;`), which host nodes call.
    Callback,
    /// A CUDA event (`event name;`), which record and wait nodes take.
    Event,
    /// Captured work (`work name;`), given to one `capture(...)` node.
    Work,
    /// An NCCL communicator (`comm name;`), which collective nodes run on.
    Comm,
}

impl InputKind {
    /// "a buffer", "a param", ...
    pub fn describe(&self) -> &'static str {
        match self {
            InputKind::Buffer(Buffer { temp: Some(_), .. }) => "a temporary",
            InputKind::Buffer(Buffer { host: false, .. }) => "a buffer",
            InputKind::Buffer(Buffer { host: true, .. }) => "a host buffer",
            InputKind::Param(_) => "a param",
            InputKind::Callback => "a callback",
            InputKind::Event => "an event",
            InputKind::Work => "a work",
            InputKind::Comm => "a communicator",
        }
    }

    /// "buffer", "param", ...
    pub fn noun(&self) -> &'static str {
        &self.describe()[self.describe().find(' ').map_or(0, |i| i + 1)..]
    }

    /// Its buffer declaration, if it is a buffer or a temporary.
    pub fn buffer(&self) -> Option<&Buffer> {
        match self {
            InputKind::Buffer(b) => Some(b),
            _ => None,
        }
    }
}

/// A declared input: a field of `NameInputs`.
pub struct Input {
    /// Its name, as declared (the field's name).
    pub name: Ident,
    /// What it is.
    pub kind: InputKind,
    /// Whether something of the graph uses it (an unused input is an error).
    pub used: bool,
    /// `rank` or `world` in a graph with one `comm`: a `u32` param that `build` reads from
    /// that communicator input, not a field of `NameInputs` (no setter, no accessor).
    pub implicit: Option<Implicit>,
}

/// A param the graph has without declaring it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implicit {
    /// `rank`: the rank of communicator (input) `usize`.
    Rank(usize),
    /// `world`: its size.
    World(usize),
}

/// An expression written in the graph (a launch dimension, a kernel argument, a memset value)
/// and the params it uses.
pub struct Value {
    /// The expression, without parentheses around all of it ([`bare`]).
    pub expr: Expr,
    /// The params it uses (input indices).
    pub params: BTreeSet<usize>,
    /// Whether it uses the loop variable of the repeat block it is in.
    pub iter: bool,
}

impl Value {
    /// The value if it is an integer literal.
    pub fn literal(&self) -> Option<i128> {
        literal(&self.expr)
    }
}

/// `e` without the parentheses around all of it (`(a * b)` is `a * b`): the grammar asks for
/// them around an expression with `>>`, and users write them around counts and arguments, but
/// where generated code puts an expression (a `let`, a call's argument, a block's value) they
/// would draw `unused_parens` in the user's crate. Code that puts a value into a larger
/// expression parenthesises it itself.
pub fn bare(e: Expr) -> Expr {
    match e {
        Expr::Paren(p) if p.attrs.is_empty() => bare(*p.expr),
        e => e,
    }
}

/// `e` if it is an integer literal (possibly negative).
pub fn literal(e: &Expr) -> Option<i128> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => literal(&u.expr).map(|v| -v),
        Expr::Paren(p) => literal(&p.expr),
        _ => None,
    }
}

/// Which buffer of a stack a kernel argument takes: `w[l + offset]` (the loop variable of the
/// repeat block the node is in, plus a literal), or an expression of params and constants
/// (which may use the loop variable otherwise).
#[allow(clippy::large_enum_variant)] // a few per graph, built once per macro call
pub enum StackIndex {
    /// `l + offset` (`l - c` is a negative offset).
    Iter(i64),
    /// Any other index: an expression of params and constants.
    Value(Value),
}

/// A stack index as the race checks compare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// `l + c`: another buffer in each iteration.
    Iter(i64),
    /// A literal: the same buffer in every iteration.
    Const(i128),
    /// Anything else: any buffer, as far as the checks know.
    Any,
}

impl StackIndex {
    /// The index as the race checks compare it.
    pub fn slot(&self) -> Slot {
        match self {
            StackIndex::Iter(c) => Slot::Iter(*c),
            StackIndex::Value(v) => match v.literal() {
                Some(c) => Slot::Const(c),
                None => Slot::Any,
            },
        }
    }
}

/// A kernel argument.
#[allow(clippy::large_enum_variant)] // a few per graph, built once per macro call
pub enum Arg {
    /// A buffer; `read` when a writable buffer goes to a read-only parameter; `index` for one
    /// buffer of a stack.
    Buffer {
        /// The buffer (an input index).
        input: usize,
        /// A writable buffer given to a read-only parameter (passed as `x.read()`).
        read: bool,
        /// Where the argument names the buffer.
        span: Span,
        /// Which buffer of a stack (`w[l]`); `None` for a plain buffer.
        index: Option<StackIndex>,
    },
    /// A value for a scalar parameter: an expression of params and constants (and, in a
    /// repeat block, the loop variable).
    Value(Value),
    /// A condition handle (a `cond`), which the kernel sets.
    Cond {
        /// The condition handle (an index into [`Graph::conds`]).
        cond: usize,
        /// Where the argument names it.
        span: Span,
    },
}

impl Arg {
    /// Whether the argument is input `i` (a buffer) or uses it (a param).
    pub fn uses(&self, i: usize) -> bool {
        match self {
            Arg::Buffer { input, .. } => *input == i,
            Arg::Value(v) => v.params.contains(&i),
            Arg::Cond { .. } => false,
        }
    }
}

/// A kernel launch: `step = saxpy<<<grid, block, smem>>>(args)`.
pub struct Launch {
    /// The kernel launched (an index into [`Graph::kernels`]).
    pub kernel: usize,
    /// The arguments, one per kernel parameter, in order.
    pub args: Vec<Arg>,
    /// The grid dimensions.
    pub grid: Value,
    /// The block dimensions.
    pub block: Value,
    /// The dynamic shared memory in bytes (`None`: none written, 0).
    pub smem: Option<Value>,
}

impl Launch {
    /// The launch dimensions (grid, block, shared memory), for what they use.
    pub fn dims(&self) -> impl Iterator<Item = &Value> {
        [&self.grid, &self.block]
            .into_iter()
            .chain(self.smem.as_ref())
    }
}

/// A memset node: `clear = memset(total, 0.0)`.
pub struct Memset {
    /// The device buffer written (an input index).
    pub dst: usize,
    /// The value every element is set to: an expression of params and constants (and, in a
    /// repeat block, the loop variable).
    pub value: Value,
}

/// A memcpy node: `back = memcpy(out, total)` (destination, source).
pub struct Memcpy {
    /// The buffer written (an input index).
    pub dst: usize,
    /// The buffer read (an input index).
    pub src: usize,
}

/// What a host node runs: `host(done)` or `host(|| ...)`.
#[allow(clippy::large_enum_variant)] // a few per graph, built once per macro call
pub enum Host {
    /// A declared callback.
    Callback(usize),
    /// A closure written in place.
    Closure(Expr),
}

/// What a child node passes for one of the child graph's inputs.
#[allow(clippy::large_enum_variant)] // a few per graph, built once per macro call
pub enum ChildArg {
    /// An input of the parent, and where the user named it.
    Input(usize, Span),
    /// An expression of the parent's params and constants (the child is built again when
    /// one of those params changes).
    Value(Value),
}

/// A child graph node: `sub = child(Other { y: y, k: 3 })`.
pub struct Child {
    /// The child graph's type, as written (`Other`).
    pub ty: Path,
    /// The fields written: each child input's name and what the parent passes for it.
    pub fields: Vec<(Ident, ChildArg)>,
}

/// A declared condition handle: `cond name = default;`.
pub struct Cond {
    /// Its name.
    pub name: Ident,
    /// `cond name on comm;`: the communicator whose ranks all set it alike (as written;
    /// resolved by the collective checks).
    pub on: Option<Ident>,
    /// A constant `u32` expression (0 when none is written).
    pub default: Option<Expr>,
    /// The conditional node it decides.
    pub conditional: Option<usize>,
    /// The kernel nodes it is passed to (which set it).
    pub setters: Vec<usize>,
}

/// A conditional node: IF, IF/ELSE, WHILE or SWITCH on condition `cond`, with `size` bodies
/// (scopes `first..first + size` of the topology).
pub struct Conditional {
    /// Which kind: IF, IF/ELSE, WHILE or SWITCH.
    pub op: CondOp,
    /// The `if`, `while` or `switch` keyword, where errors about the node's control flow point.
    pub keyword: Span,
    /// The condition handle it tests (an index into [`Graph::conds`]).
    pub cond: usize,
    /// How many bodies it has (a SWITCH's cases, two for IF/ELSE, else one).
    pub size: u32,
    /// The topology scope of its first body; the others follow it.
    pub first: u32,
    /// A WHILE's iteration limit (`while c, max n`): an expression of params and constants
    /// (a `u32`, at least 1), which a setter of those params changes. The runtime adds the
    /// counter's reset before the node and the counting kernel as its body's last node.
    pub limit: Option<Value>,
}

/// A repeat block: its nodes (scope `scope` of the topology) run `count` times, iteration
/// `l + 1`'s after iteration `l`'s where a carry edge says so.
pub struct Repeat {
    /// The `repeat` keyword, where errors about its iterations point.
    pub keyword: Span,
    /// The loop variable, as written (`_` when the body names none).
    pub var: Ident,
    /// How many times the body runs: an expression of params and constants.
    pub count: Value,
    /// The topology scope that holds its body.
    pub scope: u32,
    /// Carry edges (node indices), with the arrow written.
    pub carry: Vec<(u32, u32, Span)>,
    /// Carry edges written `#[programmatic]`, with where (checked after every edge is in).
    pub requested: Vec<(u32, u32, Span)>,
    /// Carry edges that are programmatic.
    pub programmatic: Vec<(u32, u32)>,
    /// Edges into the block made programmatic by `#[programmatic]` on the graph: (the node
    /// before the block, a first node of its first iteration).
    pub entries: Vec<(u32, u32)>,
    /// Edges out of the block made programmatic so: (a last node of its last iteration, the
    /// node after the block).
    pub exits: Vec<(u32, u32)>,
}

impl Repeat {
    /// The loop variable as messages name an iteration (`l + 1`): `l` for a block written
    /// `repeat _ in ..`, whose body names none.
    pub fn var_shown(&self) -> String {
        if self.var == "_" {
            "l".to_owned()
        } else {
            self.var.to_string()
        }
    }

    /// The count, if it is a literal.
    pub fn literal(&self) -> Option<i128> {
        self.count.literal()
    }
}

/// What a node does: one variant per node kind.
#[allow(clippy::large_enum_variant)] // a few per graph, built once per macro call
pub enum NodeOp {
    /// A kernel launch.
    Launch(Launch),
    /// A memset.
    Memset(Memset),
    /// A memcpy.
    Memcpy(Memcpy),
    /// A host callback or closure.
    Host(Host),
    /// An empty node (`empty`), or a node kept after an error of its own ([`Graph::ghosts`]).
    Empty,
    /// A child graph.
    Child(Child),
    /// `record(ev)`: records event (input) `usize`.
    Record(usize),
    /// `wait(ev)`: waits for event (input) `usize`.
    Wait(usize),
    /// A conditional node (IF, IF/ELSE, WHILE or SWITCH), standing for its bodies.
    Conditional(Conditional),
    /// A repeat block, standing for all its iterations.
    Repeat(Repeat),
    /// The allocation of temporary (input) `usize`, placed from the graph's structure.
    MemAlloc(usize),
    /// Its free.
    MemFree(usize),
    /// Captured work (input `work`) and the buffers it reads and writes.
    Captured(CapturedWork),
    /// An NCCL collective or point-to-point operation on a communicator.
    Collective(Collective),
}

/// A collective node: which operation, on which communicator (input), which buffers.
pub struct Collective {
    /// Which operation (`all_reduce`, `send`, ...).
    pub op: CollectiveOp,
    /// The communicator it runs on (an input index).
    pub comm: usize,
    /// The buffer read (none for `recv`).
    pub src: Option<usize>,
    /// The buffer written (none for `send`).
    pub dst: Option<usize>,
    /// The element count: an expression of params, constants and `world`, the same on every
    /// rank.
    pub count: Value,
    /// The reduction of `all_reduce` and `reduce_scatter`.
    pub reduce: Option<RedOp>,
    /// `broadcast`'s root, `send`'s and `recv`'s peer (may use `rank`).
    pub peer: Option<Value>,
}

/// A captured node: which work input, which buffers.
pub struct CapturedWork {
    /// The work captured (an input index).
    pub work: usize,
    /// The buffers it declares read (`reads: [..]`, input indices).
    pub reads: Vec<usize>,
    /// The buffers it declares written (`writes: [..]`, input indices).
    pub writes: Vec<usize>,
}

impl NodeOp {
    /// The runtime's kind of this node (what DOT shows).
    pub fn kind(&self) -> NodeKind {
        match self {
            NodeOp::Launch(_) => NodeKind::Kernel,
            NodeOp::Memset(_) => NodeKind::Memset,
            NodeOp::Memcpy(_) => NodeKind::Memcpy,
            NodeOp::Host(_) => NodeKind::Host,
            NodeOp::Empty => NodeKind::Empty,
            NodeOp::Child(_) => NodeKind::Child,
            NodeOp::Record(_) => NodeKind::EventRecord,
            NodeOp::Wait(_) => NodeKind::EventWait,
            NodeOp::Conditional(_) => NodeKind::Conditional,
            NodeOp::Repeat(_) => NodeKind::Repeat,
            NodeOp::MemAlloc(_) => NodeKind::MemAlloc,
            NodeOp::MemFree(_) => NodeKind::MemFree,
            // The runtime adds a collective as a captured node (NCCL's kernels captured from a
            // stream).
            NodeOp::Captured(_) | NodeOp::Collective(_) => NodeKind::Captured,
        }
    }
}

/// What a node touches.
#[derive(Default)]
pub struct Uses {
    /// Params its launch dimensions, arguments or value use.
    pub params: BTreeSet<usize>,
    /// Buffers read (input indices).
    pub reads: BTreeSet<usize>,
    /// Buffers written (input indices).
    pub writes: BTreeSet<usize>,
    /// Condition handles passed to it (a kernel sets them).
    pub conds: BTreeSet<usize>,
    /// Which buffers of stacks it uses: the stack (input index), the buffer, and whether it
    /// writes it.
    pub slots: Vec<(usize, Slot, bool)>,
    /// Buffers a node with an error (reported) names where its access is not known: no race is
    /// claimed on them, and for initialisation they count as written.
    pub unknown: BTreeSet<usize>,
}

impl Uses {
    /// Whether the node uses input `i` in any way.
    pub fn any(&self, i: usize) -> bool {
        self.params.contains(&i) || self.reads.contains(&i) || self.writes.contains(&i)
    }
}

/// A node of the graph: one written in it, or the allocation or free node of a temporary.
pub struct Node {
    /// Its name (`alloc_x` and `free_x` for temporary `x`'s).
    pub name: Ident,
    /// What it does.
    pub op: NodeOp,
    /// What it touches.
    pub uses: Uses,
    /// `#[concurrent]`: kept out of width capping.
    pub concurrent: bool,
    /// Its scope in the topology: 0, or the conditional body it is in.
    pub scope: u32,
}

/// A checked graph.
pub struct Graph {
    /// The attributes written on the graph, less `#[programmatic]`: the generated graph
    /// struct carries them.
    pub attrs: Vec<Attribute>,
    /// Its visibility, which the generated types get.
    pub vis: Visibility,
    /// Its name: the graph type's, and the stem of `NameInputs`, `NameExec`, ...
    pub name: Ident,
    /// The declared kernels.
    pub kernels: Vec<Kernel>,
    /// The inputs, as declared, then the implicit params (`rank`, `world`); an input index
    /// is a position here.
    pub inputs: Vec<Input>,
    /// The declared condition handles.
    pub conds: Vec<Cond>,
    /// The nodes (node `i` of the topology is `nodes[i]`).
    pub nodes: Vec<Node>,
    /// Node names, kinds and the accepted edges (node `i` of the topology is `nodes[i]`);
    /// the programmatic ones are marked there.
    pub topo: Topology,
    /// Edges written `#[programmatic]`, with their arrow (checked after every edge is in).
    pub programmatic: Vec<(u32, u32, proc_macro2::Span)>,
    /// `#[programmatic]` on the graph: every edge that can be one becomes programmatic.
    pub auto_programmatic: bool,
    /// Warnings (a correct graph that could be better): where, and what.
    pub warnings: Vec<(proc_macro2::Span, String)>,
    /// Node indices in the order `build` adds them: every node after its dependencies, and
    /// the nodes of a conditional body right after their conditional node.
    pub order: Vec<usize>,
    /// Each node's dependencies.
    pub preds: Vec<Vec<usize>>,
    /// Nodes kept after an error of their own (reported), as empty nodes with the uses that
    /// were sound, so that the checks across nodes go on around them.
    pub ghosts: BTreeSet<usize>,
    /// Generated methods that would collide (reported), left out of the expansion: a method
    /// name, or `node:NAME` for a node's view.
    pub hidden: BTreeSet<String>,
    /// The CUDA source files read (where they were found).
    pub sources: Vec<std::path::PathBuf>,
    /// Every kernel is declared from one named CUDA file (read or not): the graph gets
    /// `SOURCE`, `compile_options`, `check_source` and `build_from_source`, with their
    /// signatures even when the file or a declaration has an error, so code calling them
    /// reports nothing more.
    pub one_source: bool,
    /// Files they include (`#include "..."`): the name as written and where it was found.
    pub headers: Vec<(String, std::path::PathBuf)>,
    /// The macros the graph defines for its sources (`define NAME = value;`).
    pub defines: Vec<(String, String)>,
    /// Params that size the graph (a repeat count, a stack's count or index) or that a
    /// collective uses (its count, root or peer, captured once): they get no setter, since a
    /// new value would need another graph.
    pub structural: BTreeSet<usize>,
    /// The graph has errors (reported), so it is never built: its expansion names nothing of
    /// the runtime's `nccl` feature (a communicator input is a `&dyn Any`, collectives are
    /// not added), and its errors read the same whether the feature is on or not.
    pub broken: bool,
}

impl Graph {
    /// Input `i`'s buffer declaration (`i` is known to be a buffer).
    pub fn buffer(&self, i: usize) -> &Buffer {
        self.inputs[i]
            .kind
            .buffer()
            .expect("validation resolved this index to a buffer")
    }

    /// The repeat block node `i` is in (the node of the block), if any.
    pub fn block_of(&self, i: usize) -> Option<usize> {
        let o = self.topo.owner(self.topo.scope(i as u32))? as usize;
        matches!(self.nodes[o].op, NodeOp::Repeat(_)).then_some(o)
    }

    /// Whether nodes `i` and `j` are collectives on one communicator: whether they may run in
    /// either order is the collective order check's question (`validate::collectives`), which
    /// the race checks leave to it, so one mistake gives one error.
    pub fn same_comm(&self, i: usize, j: usize) -> bool {
        match (&self.nodes[i].op, &self.nodes[j].op) {
            (NodeOp::Collective(a), NodeOp::Collective(b)) => a.comm == b.comm,
            _ => false,
        }
    }

    /// The repeat block `i` is, if it is one.
    pub fn repeat(&self, i: usize) -> Option<&Repeat> {
        match &self.nodes[i].op {
            NodeOp::Repeat(r) => Some(r),
            _ => None,
        }
    }

    /// The edges, as node indices.
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.topo
            .edges()
            .iter()
            .map(|&(a, b)| (a as usize, b as usize))
    }
}
