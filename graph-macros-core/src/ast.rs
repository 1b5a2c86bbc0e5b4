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

mod cond;
mod decl;
mod node;

pub mod kw {
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
}

/// Everything inside `cuda_graph! { ... }`.
pub struct Input {
    pub graphs: Vec<GraphDef>,
}

pub struct GraphDef {
    pub attrs: Vec<Attribute>,
    /// `#[programmatic]` on the graph: every edge that can be programmatic becomes one.
    pub programmatic: Option<Span>,
    pub vis: Visibility,
    pub name: Ident,
    pub items: Vec<Item>,
}

#[allow(clippy::large_enum_variant)] // built once per macro call
pub enum Item {
    Source(LitStr),
    Define(DefineDecl),
    Kernel(KernelDecl),
    Buffer(BufferDecl),
    Temp(TempDecl),
    Param(ParamDecl),
    Callback(Ident),
    Event(Ident),
    Work(Ident),
    Comm(Ident),
    Cond(CondDecl),
    Node(NodeDecl),
    Edges(EdgeChain),
}

/// `temp name: [T; len];`
pub struct TempDecl {
    pub name: Ident,
    pub elem: Type,
    pub len: Expr,
}

/// `cond name = default;`, or `cond name on comm = default;` (every rank of `comm` sets it
/// alike, so collectives on `comm` may run in the bodies it decides).
pub struct CondDecl {
    pub name: Ident,
    pub on: Option<Ident>,
    pub default: Option<Expr>,
}

/// Which conditional node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CondOp {
    If,
    IfElse,
    While,
    Switch,
}

/// A conditional node: its kind, its condition, and its bodies (items, and where each body
/// opens; for a switch, the case number written).
pub struct Conditional {
    pub op: CondOp,
    pub keyword: Span,
    pub cond: Ident,
    /// `while c, max n { ... }`: the iteration limit, and the span of `max`.
    pub limit: Option<(Span, Expr)>,
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
    pub body: BodyDef,
}

pub struct BodyDef {
    pub items: Vec<Item>,
    pub brace: Span,
    /// A switch case's number, as written.
    pub case: Option<syn::LitInt>,
}

pub struct KernelDecl {
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

/// A template argument of a kernel: a Rust type (given to C as its C spelling), or a value
/// (a literal, possibly negative, or a path to a constant of the surrounding scope is not
/// allowed: C needs the value at compile time).
#[allow(clippy::large_enum_variant)] // a few per kernel, built once per macro call
pub enum TemplateArg {
    Type(Type),
    Value { text: String, span: Span },
}

/// `define NAME;` or `define NAME = value;`: a macro the CUDA source is read and built with.
pub struct DefineDecl {
    pub name: Ident,
    /// The value as C sees it (`1` when none is given), and its span.
    pub value: Option<(String, Span)>,
}

pub struct KernelParam {
    pub name: Ident,
    pub ty: ParamTy,
}

#[derive(Clone)]
pub enum ParamTy {
    Scalar(Type),
    /// `&[T]` or `&mut [T]`; `access` spans `&` (and `mut`), where a wrong access is reported.
    Slice {
        mutable: bool,
        elem: Type,
        access: (Span, Span),
    },
}

pub struct BufferDecl {
    /// `#[disjoint]`: nodes touch disjoint parts, so unordered writers are no race.
    pub disjoint: bool,
    pub host: bool,
    pub mutable: bool,
    pub name: Ident,
    /// `buffer w[count]: T;`: a stack of `count` buffers (one per iteration of a repeat
    /// block), and the brackets' span.
    pub count: Option<(Expr, Span)>,
    pub elem: Type,
    /// `buffer x: [T; len];`: the length the bound buffer must hold (each buffer of a stack).
    pub len: Option<Expr>,
    /// `on peer`: a buffer of another device than the graph's, and the span of `peer`.
    pub peer: Option<Span>,
}

pub struct ParamDecl {
    pub name: Ident,
    pub ty: Type,
}

pub struct NodeDecl {
    /// `#[concurrent]`: never ordered by width capping.
    pub concurrent: bool,
    pub name: Ident,
    pub op: Op,
}

#[allow(clippy::large_enum_variant)] // built once per macro call
pub enum Op {
    Launch(Launch),
    Memset {
        dst: Ident,
        value: Expr,
    },
    Memcpy {
        dst: Ident,
        src: Ident,
    },
    Host(Expr),
    Empty,
    Child {
        ty: Path,
        fields: Vec<(Ident, Expr)>,
    },
    Record(Ident),
    Wait(Ident),
    Conditional(Conditional),
    Repeat(RepeatDef),
    Capture {
        work: Ident,
        reads: Vec<Ident>,
        writes: Vec<Ident>,
    },
    Collective(Collective),
}

/// Which NCCL collective (or point-to-point operation) a node runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectiveOp {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Send,
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
    Sum,
    Prod,
    Max,
    Min,
    Avg,
}

/// A collective node: `all_reduce(src -> dst, count, sum) on comm`, `send(src, count, to = peer)
/// on comm`, ...
pub struct Collective {
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

pub struct Launch {
    pub kernel: Ident,
    pub grid: Expr,
    pub block: Expr,
    pub smem: Option<Expr>,
    pub args: Vec<Expr>,
    /// The parentheses around the arguments.
    pub args_span: Span,
}

pub struct EdgeChain {
    /// `#[programmatic]`: its edges are programmatic (the attribute's span).
    pub programmatic: Option<Span>,
    /// `carry a -> b;` (the keyword's span): iteration `l`'s `a` before iteration `l + 1`'s `b`.
    pub carry: Option<Span>,
    pub groups: Vec<Vec<Ident>>,
    /// `arrows[i]` joins `groups[i]` and `groups[i + 1]`.
    pub arrows: Vec<Span>,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut graphs = Vec::new();
        while !input.is_empty() {
            graphs.push(input.parse()?);
        }
        Ok(Input { graphs })
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
