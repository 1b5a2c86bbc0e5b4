//! Phase 1: the grammar of `cuda_graph!` and its parser.
//!
//! The grammar is written once, in `graph-macros/grammar.md` (the macro's rustdoc shows it):
//! one small parser per rule there. Keywords are `syn::custom_keyword!`s, branches use
//! `lookahead1` so a wrong token gets "expected one of ...".

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{braced, bracketed, Attribute, Expr, Ident, LitStr, Path, Token, Type, Visibility};

mod block;
mod cond;
mod decl;
mod node;

/// The grammar's keywords (`graph`, `kernel`, `buffer`, `memset`, `all_reduce`, `repeat`, ...),
/// one `syn::custom_keyword!` each.
pub(crate) mod kw {
    syn::custom_keyword!(graph);
    syn::custom_keyword!(kernel);
    syn::custom_keyword!(define);
    syn::custom_keyword!(buffer);
    syn::custom_keyword!(host_buffer);
    syn::custom_keyword!(param);
    syn::custom_keyword!(callback);
    syn::custom_keyword!(event);
    syn::custom_keyword!(memset);
    syn::custom_keyword!(memcpy);
    syn::custom_keyword!(host);
    syn::custom_keyword!(empty);
    syn::custom_keyword!(child);
    syn::custom_keyword!(record);
    syn::custom_keyword!(wait);
    syn::custom_keyword!(source);
    syn::custom_keyword!(cond);
    syn::custom_keyword!(temp);
    syn::custom_keyword!(work);
    syn::custom_keyword!(capture);
    syn::custom_keyword!(reads);
    syn::custom_keyword!(writes);
    syn::custom_keyword!(switch);
    syn::custom_keyword!(repeat);
    syn::custom_keyword!(carry);
    syn::custom_keyword!(comm);
    syn::custom_keyword!(all_reduce);
    syn::custom_keyword!(all_gather);
    syn::custom_keyword!(reduce_scatter);
    syn::custom_keyword!(broadcast);
    syn::custom_keyword!(send);
    syn::custom_keyword!(recv);
    syn::custom_keyword!(on);
    syn::custom_keyword!(peer);
    syn::custom_keyword!(root);
    syn::custom_keyword!(to);
    syn::custom_keyword!(from);
    syn::custom_keyword!(max);
    syn::custom_keyword!(block);
    syn::custom_keyword!(inputs);
}

/// Everything inside `cuda_graph! { ... }`.
pub struct Input {
    /// The graphs declared, in order (`graph A { ... } graph B { ... }`).
    pub graphs: Vec<GraphDef>,
    /// The blocks declared (`block layer(l) { ... }`), which graphs place.
    pub blocks: Vec<BlockDef>,
}

/// `block name(l) { items }`: nodes and edges, with the declarations they use, written once
/// and placed in graphs (`p = use name(l);`).
pub struct BlockDef {
    /// `pub block`: exported, so other macro calls (in other modules and crates) place it
    /// after `use path::name;`.
    pub export: bool,
    /// The block's name, after `block`.
    pub name: Ident,
    /// `(l, ...)`: the loop variables the block's nodes index stacks with, given at each place.
    pub vars: Vec<Ident>,
    /// The items between the braces, each with the tokens it was parsed from.
    pub items: Vec<(Item, proc_macro2::TokenStream)>,
    /// The span of the braces.
    pub brace: Span,
}

/// `use name(l = i, x = y, n)`: a block placed as a node (its nodes and edges written out
/// here, each node named `place_node`).
pub struct UseDef {
    /// The block placed.
    pub block: Ident,
    /// The bindings: `x` (the block's `x` is this graph's `x`) or `x = y` (the block's `x` is
    /// this graph's `y`); a loop variable is always given.
    pub binds: Vec<(Ident, Ident)>,
}

/// `pub graph Name { items }`: one graph declaration.
pub struct GraphDef {
    /// The attributes written before `graph` (doc comments included), less `#[programmatic]`.
    pub attrs: Vec<Attribute>,
    /// `#[programmatic]` on the graph: every edge that can be programmatic becomes one.
    pub programmatic: Option<Span>,
    /// The visibility written before `graph` (`pub`, `pub(crate)`, or none).
    pub vis: Visibility,
    /// The graph's name, after `graph`.
    pub name: Ident,
    /// The items between the graph's braces, in order.
    pub items: Vec<Item>,
}

/// One item of a graph's body (or of a conditional body or repeat block): a declaration, a
/// node or edges.
#[allow(clippy::large_enum_variant)] // built once per macro call
pub enum Item {
    /// `source "file.cu";`: the CUDA source the graph's kernels are declared in.
    Source(LitStr),
    /// `define NAME = value;`: a macro the CUDA source is read and built with.
    Define(DefineDecl),
    /// `kernel name(params);`: a kernel declaration.
    Kernel(KernelDecl),
    /// `buffer x: T;` or `host_buffer x: T;`: a buffer input.
    Buffer(BufferDecl),
    /// `temp t: [T; len];`: graph-owned scratch memory.
    Temp(TempDecl),
    /// `param n: T;`: a scalar input.
    Param(ParamDecl),
    /// `callback name;`: a `&dyn Fn() + Send + Sync` input, the callback's name.
    Callback(Ident),
    /// `event name;`: a `&CudaEvent` input, the event's name.
    Event(Ident),
    /// `work name;`: a `Work` input (stream work to capture), its name.
    Work(Ident),
    /// `comm name;`: a `&Communicator` input (one rank of an NCCL communicator), its name.
    Comm(Ident),
    /// `cond name = default;`: a condition handle.
    Cond(CondDecl),
    /// `name = op;`: a node.
    Node(NodeDecl),
    /// `a -> b -> c;`, `a -> [b, c];` or `carry a -> b;`: edges.
    Edges(EdgeChain),
    /// `inputs block;`: the graph declares every input the block declares (those it does not
    /// declare itself), the block's name.
    Inputs(Ident),
}

/// `temp name: [T; len];`
pub struct TempDecl {
    /// The temporary's name, after `temp`.
    pub name: Ident,
    /// `T`: the element type.
    pub elem: Type,
    /// `len`: the length in elements, an expression of params and constants.
    pub len: Expr,
}

/// `cond name = default;`, or `cond name on comm = default;` (every rank of `comm` sets it
/// alike, so collectives on `comm` may run in the bodies it decides).
pub struct CondDecl {
    /// The condition handle's name, after `cond`.
    pub name: Ident,
    /// `on comm`: the communicator whose ranks all set it alike.
    pub on: Option<Ident>,
    /// `= default`: the handle's default value (none written: 0).
    pub default: Option<Expr>,
}

/// Which conditional node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CondOp {
    /// `if c { ... }`.
    If,
    /// `if c { ... } else { ... }`.
    IfElse,
    /// `while c { ... }` (or `while c, max n { ... }`).
    While,
    /// `switch c { 0 => { ... } 1 => { ... } }`.
    Switch,
}

/// A conditional node: its kind, its condition, and its bodies (items, and where each body
/// opens; for a switch, the case number written).
pub struct Conditional {
    /// Which conditional: `if`, `if`/`else`, `while` or `switch`.
    pub op: CondOp,
    /// The span of the `if`, `while` or `switch` keyword.
    pub keyword: Span,
    /// The condition handle (a `cond`), after the keyword.
    pub cond: Ident,
    /// `while c, max n { ... }`: the iteration limit, and the span of `max`.
    pub limit: Option<(Span, Expr)>,
    /// The bodies: one for `if` and `while`, then and else for `if`/`else`, one per case for
    /// `switch`.
    pub bodies: Vec<BodyDef>,
}

/// A repeat block: `name = repeat l in 0..count { nodes and edges, carry edges }`.
pub struct RepeatDef {
    /// The `repeat` keyword, where errors about the block's iterations point.
    pub keyword: Span,
    /// The loop variable.
    pub var: Ident,
    /// The count: the end of `0..count`.
    pub count: Expr,
    /// The block's body, between its braces.
    pub body: BodyDef,
}

/// `{ items }`: a conditional body or a repeat block's body.
pub struct BodyDef {
    /// The items between the braces, in order.
    pub items: Vec<Item>,
    /// The span of the braces.
    pub brace: Span,
    /// A switch case's number, as written.
    pub case: Option<syn::LitInt>,
}

/// `kernel name = c_name<targs>(params) in "file.cu";`: a kernel declaration.
pub struct KernelDecl {
    /// The graph's name for the kernel, after `kernel` (the last part of a qualified C name).
    pub name: Ident,
    /// `kernel ln_f32 = layernorm<f32, 256>;`: the kernel's name in C, when the graph names it
    /// otherwise (two instances of one template need two names).
    pub c_name: Option<Ident>,
    /// `kernel norm = nn::rmsnorm<f16, 256>;`, `kernel nn::rmsnorm<...>;`: the namespaces of
    /// the kernel's name in C, outermost first (empty: any, when one kernel has the name).
    pub namespace: Vec<Ident>,
    /// `<f32, 256>`: the arguments of a template kernel, and the spans of `<` and `>`.
    pub targs: Option<((Span, Span), Vec<TemplateArg>)>,
    /// `None`: no parameter list, the signature comes from the CUDA source.
    pub params: Option<Vec<KernelParam>>,
    /// `in "file.cu"`: the CUDA source it is declared in.
    pub source: Option<LitStr>,
}

/// A template argument of a kernel: a Rust type (given to C as its C spelling) or an
/// enumerator of the source (both parse as a path), or a literal. A constant of the
/// surrounding Rust scope is not allowed: C needs the value when it compiles.
#[allow(clippy::large_enum_variant)] // a few per kernel, built once per macro call
pub enum TemplateArg {
    /// A type (`f32`), or a path such as an enumerator of the source (`Mode::kA`).
    Type(Type),
    /// A literal, possibly negative (`256`, `-1`, `true`).
    Value {
        /// The value as C reads it (sign included, an integer's suffix in C: `256u32` is
        /// `256u`).
        text: String,
        /// The literal's span.
        span: Span,
    },
}

/// `define NAME;` or `define NAME = value;`: a macro the CUDA source is read and built with.
pub struct DefineDecl {
    /// The macro's name, after `define`.
    pub name: Ident,
    /// The value as C sees it (`1` when none is given), and its span.
    pub value: Option<(String, Span)>,
}

/// `name: ty`: one parameter of a kernel's parameter list.
pub struct KernelParam {
    /// The parameter's name, before `:`.
    pub name: Ident,
    /// The parameter's type, after `:`.
    pub ty: ParamTy,
}

/// A kernel parameter's type: a buffer (`&[T]`, `&mut [T]`) or a by-value scalar.
#[derive(Clone)]
pub enum ParamTy {
    /// `T`: a by-value scalar (a cudarc `DeviceRepr` type).
    Scalar(Type),
    /// `&[T]` or `&mut [T]`; `access` spans `&` (and `mut`), where a wrong access is reported.
    Slice {
        /// `&mut [T]`: a device buffer the kernel writes (`&[T]`: one it reads).
        mutable: bool,
        /// `T`: the element type.
        elem: Type,
        /// The spans of `&` and of `mut` (`&` again when there is no `mut`).
        access: (Span, Span),
    },
}

/// `buffer mut name[count]: [T; len] on peer;` (or `host_buffer`): a buffer input.
pub struct BufferDecl {
    /// `#[disjoint]`: nodes touch disjoint parts, so unordered writers are no race.
    pub disjoint: bool,
    /// `host_buffer`: host memory (pinned or pageable), which memcpy nodes read or write.
    pub host: bool,
    /// `buffer mut`: nodes may write it.
    pub mutable: bool,
    /// The buffer's name.
    pub name: Ident,
    /// `buffer w[count]: T;`: a stack of `count` buffers (one per iteration of a repeat
    /// block), and the brackets' span.
    pub count: Option<(Expr, Span)>,
    /// `T`: the element type, after `:` (or inside `[T; len]`).
    pub elem: Type,
    /// `buffer x: [T; len];`: the length the bound buffer must hold (each buffer of a stack).
    pub len: Option<Expr>,
    /// `on peer`: a buffer of another device than the graph's, and the span of `peer`.
    pub peer: Option<Span>,
}

/// `param name: T;`: a scalar input.
pub struct ParamDecl {
    /// The param's name, after `param`.
    pub name: Ident,
    /// `T`: its type, after `:`.
    pub ty: Type,
}

/// `name = op;`: a node.
pub struct NodeDecl {
    /// `#[concurrent]`: never ordered by width capping.
    pub concurrent: bool,
    /// The node's name, as written before `=`.
    pub name: Ident,
    /// What the node runs, after `=`.
    pub op: Op,
}

/// A node's operation, after `name =`.
#[allow(clippy::large_enum_variant)] // built once per macro call
pub enum Op {
    /// `kernel<<<grid, block>>>(args)`: a kernel launch.
    Launch(Launch),
    /// `memset(dst, value)`.
    Memset {
        /// The buffer set.
        dst: Ident,
        /// The value each element is set to.
        value: Expr,
    },
    /// `memcpy(dst, src)`.
    Memcpy {
        /// The buffer copied into.
        dst: Ident,
        /// The buffer copied from.
        src: Ident,
    },
    /// `host(f)`: a declared callback, or a closure `|| ...`, run on the host.
    Host(Expr),
    /// `empty`: a node that runs nothing (it only orders).
    Empty,
    /// `child(Graph { input: value, ... })`: another graph, run as a child graph.
    Child {
        /// The child graph's path (`Graph`, `module::Graph`).
        ty: Path,
        /// `{ input: value, ... }`: the child's inputs given by name, in order written.
        fields: Vec<(Ident, Expr)>,
    },
    /// `record(event)`: records a declared event.
    Record(Ident),
    /// `wait(event)`: waits for a declared event.
    Wait(Ident),
    /// `if`, `if`/`else`, `while` or `switch`: a conditional node.
    Conditional(Conditional),
    /// `repeat l in 0..n { ... }`: a repeat block.
    Repeat(RepeatDef),
    /// `capture(w, reads: [..], writes: [..])`: a declared `work`'s stream work, captured.
    Capture {
        /// The `work` input captured.
        work: Ident,
        /// `reads: [a, b]`: the buffers the work reads.
        reads: Vec<Ident>,
        /// `writes: [c]`: the buffers the work writes.
        writes: Vec<Ident>,
    },
    /// `all_reduce(..) on comm`, `send(..) on comm`, ...: an NCCL collective.
    Collective(Collective),
    /// `use block(binds)`: a block placed here (replaced by its nodes before any check).
    Use(UseDef),
}

/// Which NCCL collective (or point-to-point operation) a node runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectiveOp {
    /// `all_reduce(src -> dst, count, op)`.
    AllReduce,
    /// `all_gather(src -> dst, count)`.
    AllGather,
    /// `reduce_scatter(src -> dst, count, op)`.
    ReduceScatter,
    /// `broadcast(src -> dst, count, root = r)`.
    Broadcast,
    /// `send(src, count, to = peer)`.
    Send,
    /// `recv(dst, count, from = peer)`.
    Recv,
}

impl CollectiveOp {
    /// The keyword, as written.
    pub fn as_str(self) -> &'static str {
        match self {
            CollectiveOp::AllReduce => "all_reduce",
            CollectiveOp::AllGather => "all_gather",
            CollectiveOp::ReduceScatter => "reduce_scatter",
            CollectiveOp::Broadcast => "broadcast",
            CollectiveOp::Send => "send",
            CollectiveOp::Recv => "recv",
        }
    }
}

/// A reduction of `all_reduce` and `reduce_scatter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedOp {
    /// `sum`.
    Sum,
    /// `prod`: the product.
    Prod,
    /// `max`.
    Max,
    /// `min`.
    Min,
    /// `avg`: the mean over the ranks.
    Avg,
}

/// A collective node: `all_reduce(src -> dst, count, sum) on comm`, `send(src, count, to = peer)
/// on comm`, ...
pub struct Collective {
    /// Which collective or point-to-point operation.
    pub op: CollectiveOp,
    /// The operation's keyword.
    pub keyword: Span,
    /// The buffer read (none for `recv`).
    pub src: Option<Ident>,
    /// The buffer written (none for `send`).
    pub dst: Option<Ident>,
    /// The element count (per rank for `all_gather` and `reduce_scatter`).
    pub count: Expr,
    /// The reduction of `all_reduce` and `reduce_scatter`.
    pub reduce: Option<RedOp>,
    /// `broadcast`'s `root`, `send`'s `to`, `recv`'s `from`.
    pub peer: Option<Expr>,
    /// The communicator, after `on`.
    pub comm: Ident,
}

/// `kernel<<<grid, block, smem>>>(args)`: a kernel launch.
pub struct Launch {
    /// The kernel launched, before `<<<`.
    pub kernel: Ident,
    /// `grid`: the grid dimensions (a `u32` or a tuple of up to three).
    pub grid: Expr,
    /// `block`: the block dimensions (a `u32` or a tuple of up to three).
    pub block: Expr,
    /// The third launch dimension, when written: the dynamic shared memory, in bytes.
    pub smem: Option<Expr>,
    /// The kernel's arguments, between the parentheses.
    pub args: Vec<Expr>,
    /// The parentheses around the arguments.
    pub args_span: Span,
}

/// `a -> b -> c;`, `a -> [b, c] -> d;` or `carry a -> b;`: a chain of edges.
pub struct EdgeChain {
    /// `#[programmatic]`: its edges are programmatic (the attribute's span).
    pub programmatic: Option<Span>,
    /// `carry a -> b;` (the keyword's span): iteration `l`'s `a` before iteration `l + 1`'s `b`.
    pub carry: Option<Span>,
    /// The groups joined by arrows, in order: `a` is one node, `[b, c]` several.
    pub groups: Vec<Vec<Ident>>,
    /// `arrows[i]` joins `groups[i]` and `groups[i + 1]`.
    pub arrows: Vec<Span>,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (mut graphs, mut blocks) = (Vec::new(), Vec::new());
        while !input.is_empty() {
            if block::ahead(input) {
                blocks.push(input.parse()?);
            } else {
                graphs.push(input.parse()?);
            }
        }
        Ok(Input { graphs, blocks })
    }
}

impl Parse for GraphDef {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut attrs = input.call(Attribute::parse_outer)?;
        let mut programmatic = None;
        attrs.retain(|a| {
            let p = matches!(a.meta, syn::Meta::Path(_)) && a.path().is_ident("programmatic");
            if p {
                programmatic = Some(a.path().get_ident().expect("checked").span());
            }
            !p
        });
        let vis = input.parse()?;
        input.parse::<kw::graph>()?;
        let name = input.parse()?;
        let body;
        braced!(body in input);
        let mut items = Vec::new();
        while !body.is_empty() {
            items.push(body.parse()?);
        }
        Ok(GraphDef {
            attrs,
            programmatic,
            vis,
            name,
            items,
        })
    }
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // Doc comments are allowed (and ignored) on every item; `#[disjoint]` on buffers,
        // `#[concurrent]` on nodes.
        let (mut disjoint, mut concurrent, mut programmatic) = (None, None, None);
        for attr in input.call(Attribute::parse_outer)? {
            if attr.path().is_ident("doc") {
                continue;
            }
            let plain = matches!(attr.meta, syn::Meta::Path(_));
            if plain && attr.path().is_ident("disjoint") {
                disjoint = Some(attr.path().get_ident().expect("checked").span());
                continue;
            }
            if plain && attr.path().is_ident("concurrent") {
                concurrent = Some(attr.path().get_ident().expect("checked").span());
                continue;
            }
            if plain && attr.path().is_ident("programmatic") {
                programmatic = Some(attr.path().get_ident().expect("checked").span());
                continue;
            }
            return Err(syn::Error::new_spanned(
                attr,
                "the attributes inside a graph are `#[disjoint]`, on a buffer whose nodes touch disjoint parts, `#[concurrent]`, on a node that width capping must not order, and `#[programmatic]`, on edges between kernels that may overlap",
            ));
        }
        let la = input.lookahead1();
        if let Some(span) = disjoint {
            if !(la.peek(kw::buffer) || la.peek(kw::host_buffer)) {
                return Err(syn::Error::new(
                    span,
                    "`#[disjoint]` goes on a buffer declaration",
                ));
            }
        }
        if let Some(span) = programmatic {
            let edges =
                (input.peek(Ident) && !input.peek2(Token![=])) || input.peek(syn::token::Bracket);
            if !edges {
                return Err(syn::Error::new(
                    span,
                    "`#[programmatic]` goes on edges between kernel nodes (`#[programmatic] a -> b;`), or on the graph",
                ));
            }
        }
        if let Some(span) = concurrent {
            if !(input.peek(Ident) && input.peek2(Token![=])) {
                return Err(syn::Error::new(
                    span,
                    "`#[concurrent]` goes on a node (`name = ...;`)",
                ));
            }
        }
        // A conditional node ends with its body's brace: its `;` is optional.
        let item = if la.peek(kw::source) {
            input.parse::<kw::source>()?;
            Item::Source(input.parse()?)
        } else if la.peek(kw::kernel) {
            Item::Kernel(input.parse()?)
        } else if la.peek(kw::define) && !input.peek2(Token![=]) {
            input.parse::<kw::define>()?;
            let name = input.parse()?;
            let value = if input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
                let neg = input.parse::<Option<Token![-]>>()?;
                let lit: syn::Lit = input.parse()?;
                let text = match &lit {
                    syn::Lit::Str(s) => s.value(),
                    syn::Lit::Bool(b) => if b.value { "1" } else { "0" }.to_owned(),
                    other => quote::ToTokens::to_token_stream(other).to_string(),
                };
                let sign = if neg.is_some() { "-" } else { "" };
                Some((format!("{sign}{text}"), lit.span()))
            } else {
                None
            };
            Item::Define(DefineDecl { name, value })
        } else if la.peek(kw::buffer) || la.peek(kw::host_buffer) {
            let mut b: BufferDecl = input.parse()?;
            b.disjoint = disjoint.is_some();
            Item::Buffer(b)
        } else if la.peek(kw::param) {
            input.parse::<kw::param>()?;
            let name = input.parse()?;
            input.parse::<Token![:]>()?;
            let ty = input.parse()?;
            Item::Param(ParamDecl { name, ty })
        } else if la.peek(kw::callback) {
            input.parse::<kw::callback>()?;
            Item::Callback(input.parse()?)
        } else if la.peek(kw::event) {
            input.parse::<kw::event>()?;
            Item::Event(input.parse()?)
        } else if la.peek(kw::work) && !input.peek2(Token![=]) {
            input.parse::<kw::work>()?;
            Item::Work(input.parse()?)
        } else if la.peek(kw::comm) && input.peek2(Ident) {
            input.parse::<kw::comm>()?;
            Item::Comm(input.parse()?)
        } else if la.peek(kw::temp) && !input.peek2(Token![=]) {
            input.parse::<kw::temp>()?;
            let name = input.parse()?;
            input.parse::<Token![:]>()?;
            let content;
            bracketed!(content in input);
            let elem = content.parse()?;
            content.parse::<Token![;]>()?;
            let len = content.parse()?;
            Item::Temp(TempDecl { name, elem, len })
        } else if input.peek(kw::inputs) && input.peek2(Ident) {
            input.parse::<kw::inputs>()?;
            Item::Inputs(input.parse()?)
        } else if la.peek(kw::cond) && !input.peek2(Token![=]) {
            input.parse::<kw::cond>()?;
            let name = input.parse()?;
            let on = if input.peek(kw::on) {
                input.parse::<kw::on>()?;
                Some(input.parse()?)
            } else {
                None
            };
            let default = if input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
                Some(input.parse()?)
            } else {
                None
            };
            Item::Cond(CondDecl { name, on, default })
        } else if la.peek(kw::carry) && input.peek2(Ident)
            || input.peek(kw::carry) && input.peek2(syn::token::Bracket)
        {
            let kw = input.parse::<kw::carry>()?;
            let mut chain: EdgeChain = input.parse()?;
            if chain.arrows.len() > 1 {
                return Err(syn::Error::new(
                    chain.arrows[1],
                    "a carry edge joins one iteration to the next: write one arrow, `carry a -> b;`",
                ));
            }
            chain.carry = Some(kw.span);
            chain.programmatic = programmatic;
            Item::Edges(chain)
        } else if input.peek(Token![for]) {
            return Err(cond::for_loop(input, None));
        } else if la.peek(Token![/]) {
            return Err(input.error("comments inside `cuda_graph!` are `//` line comments"));
        } else if la.peek(Ident) || la.peek(syn::token::Bracket) {
            if input.peek(Ident) && input.peek2(Token![=]) {
                let mut n: NodeDecl = input.parse()?;
                n.concurrent = concurrent.is_some();
                Item::Node(n)
            } else {
                let mut chain: EdgeChain = input.parse()?;
                chain.programmatic = programmatic;
                Item::Edges(chain)
            }
        } else {
            return Err(la.error());
        };
        if matches!(
            &item,
            Item::Node(NodeDecl {
                op: Op::Conditional(_) | Op::Repeat(_),
                ..
            })
        ) {
            input.parse::<Option<Token![;]>>()?;
        } else {
            input.parse::<Token![;]>()?;
        }
        Ok(item)
    }
}

impl Parse for EdgeChain {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut groups = vec![parse_group(input)?];
        let mut arrows = Vec::new();
        while input.peek(Token![->]) {
            arrows.push(input.parse::<Token![->]>()?.span());
            groups.push(parse_group(input)?);
        }
        if arrows.is_empty() {
            return Err(input.error("expected `->` (an edge `a -> b`) or `=` (a node `a = ...`)"));
        }
        Ok(EdgeChain {
            programmatic: None,
            carry: None,
            groups,
            arrows,
        })
    }
}

fn parse_group(input: ParseStream) -> syn::Result<Vec<Ident>> {
    if input.peek(syn::token::Bracket) {
        let content;
        bracketed!(content in input);
        let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        if names.is_empty() {
            return Err(content.error("a group of nodes `[a, b]` needs at least one node"));
        }
        Ok(names.into_iter().collect())
    } else {
        Ok(vec![input.parse()?])
    }
}
