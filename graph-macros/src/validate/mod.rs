//! Phase 2: every check, all errors collected, and the checked model the expansion reads.
//!
//! Each rule is its own `check_*` function. Errors point at the smallest offending token and
//! say what to write instead. An invalid node or edge is left out of the model, so the
//! expansion still produces the graph's types and one mistake does not cascade.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Expr, Ident, Path, Type, Visibility};

use crate::ast::{self, GraphDef, Item, ParamTy};

mod edges;
mod nodes;

pub use edges::topo_order;
use edges::{check_edges, check_races};
use nodes::check_node;
pub use nodes::free_idents;

/// Errors, collected.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, msg));
    }

    pub fn into_compile_errors(self) -> TokenStream {
        self.0.into_iter().map(|e| e.to_compile_error()).collect()
    }

    #[allow(dead_code)] // used by the front-end tests (tests/macro_frontend.rs)
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    #[allow(dead_code)] // used by the front-end tests
    pub fn messages(&self) -> Vec<String> {
        self.0.iter().map(|e| e.to_string()).collect()
    }
}

pub struct Kernel {
    pub name: Ident,
    pub params: Vec<(Ident, ParamTy)>,
    pub used: bool,
}

pub enum InputKind {
    Buffer {
        host: bool,
        mutable: bool,
        elem: Type,
        /// Written by unordered nodes on purpose (disjoint parts): no race check.
        disjoint: bool,
    },
    Param(Type),
    Callback,
    Event,
}

pub struct Input {
    pub name: Ident,
    pub kind: InputKind,
    pub used: bool,
}

pub enum Arg {
    /// A buffer; `read` when a writable buffer goes to a read-only parameter.
    Buffer {
        input: usize,
        read: bool,
        span: Span,
    },
    Value(Expr),
}

#[allow(clippy::large_enum_variant)] // built once per macro call
pub enum NodeOp {
    Launch {
        kernel: usize,
        args: Vec<Arg>,
        grid: Expr,
        block: Expr,
        smem: Option<Expr>,
    },
    Memset {
        dst: usize,
        value: Expr,
    },
    Memcpy {
        dst: usize,
        src: usize,
    },
    Host {
        callback: Option<usize>,
        closure: Option<Expr>,
    },
    Empty,
    Child {
        ty: Path,
        fields: Vec<(Ident, ChildArg)>,
    },
    Record(usize),
    Wait(usize),
}

pub enum ChildArg {
    /// An input of the parent, and where the user named it.
    Input(usize, Span),
    Expr(Expr),
}

pub struct Node {
    pub name: Ident,
    pub op: NodeOp,
    /// Params the node's launch dimensions, arguments or value use.
    pub params: BTreeSet<usize>,
    /// Buffers read and written (input indices).
    pub reads: BTreeSet<usize>,
    pub writes: BTreeSet<usize>,
}

/// A checked graph.
pub struct Graph {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub kernels: Vec<Kernel>,
    pub inputs: Vec<Input>,
    pub nodes: Vec<Node>,
    pub edges: Vec<(usize, usize)>,
    /// Node indices in an order where every node comes after its dependencies.
    pub order: Vec<usize>,
    /// Nodes left out because of an error: edges naming them are skipped silently.
    pub failed: Vec<Ident>,
    /// Generated methods that would collide (reported), left out of the expansion: a method
    /// name, or `node:NAME` for a node's view.
    pub hidden: BTreeSet<String>,
    /// Node index by name, successors and the edge set, kept while edges are checked.
    by_name: HashMap<String, usize>,
    succ: Vec<Vec<usize>>,
    edge_set: std::collections::HashSet<(usize, usize)>,
}

/// Method names the expansion puts on `NameExec` besides those made from the user's names.
const FIXED_METHODS: &[&str] = &[
    "launch",
    "synchronize",
    "update",
    "inner",
    "inner_mut",
    "handles",
    "into_inner",
];

/// `KernelMut` setters a per-node view reaches through `Deref`; kernel parameters may not
/// shadow them.
const KERNEL_SETTERS: &[&str] = &[
    "args",
    "arg",
    "launch",
    "grid",
    "block",
    "shared_mem",
    "enabled",
    "",
];

pub fn check(input: ast::Input, errors: &mut Errors) -> Vec<Graph> {
    let mut names: HashMap<String, Span> = HashMap::new();
    let mut out = Vec::new();
    for g in input.graphs {
        if let Some(first) = names.insert(g.name.to_string(), g.name.span()) {
            let _ = first;
            errors.at(
                g.name.span(),
                format!("a graph named `{}` is defined twice in this block", g.name),
            );
            continue;
        }
        out.push(check_graph(g, errors));
    }
    out
}

fn check_graph(g: GraphDef, errors: &mut Errors) -> Graph {
    let mut model = Graph {
        attrs: g.attrs,
        vis: g.vis,
        name: g.name,
        kernels: Vec::new(),
        inputs: Vec::new(),
        nodes: Vec::new(),
        edges: Vec::new(),
        order: Vec::new(),
        failed: Vec::new(),
        hidden: BTreeSet::new(),
        by_name: HashMap::new(),
        succ: Vec::new(),
        edge_set: Default::default(),
    };
    let mut node_decls = Vec::new();
    let mut chains = Vec::new();
    for item in g.items {
        match item {
            Item::Kernel(k) => check_kernel_decl(&mut model, k, errors),
            Item::Buffer(b) => add_input(
                &mut model,
                b.name,
                InputKind::Buffer {
                    host: b.host,
                    mutable: b.mutable,
                    elem: b.elem,
                    disjoint: b.disjoint,
                },
                errors,
            ),
            Item::Param(p) => add_input(&mut model, p.name, InputKind::Param(p.ty), errors),
            Item::Callback(name) => add_input(&mut model, name, InputKind::Callback, errors),
            Item::Event(name) => add_input(&mut model, name, InputKind::Event, errors),
            Item::Node(n) => node_decls.push(n),
            Item::Edges(e) => chains.push(e),
        }
    }
    let before_nodes = errors.0.len();
    for n in node_decls {
        check_node(&mut model, n, errors);
    }
    let node_errors = errors.0.len() > before_nodes;
    model.hidden = check_names(&model, errors);
    let before_edges = errors.0.len();
    model.succ = vec![Vec::new(); model.nodes.len()];
    for chain in chains {
        check_edges(&mut model, chain, errors);
    }
    let edge_errors = errors.0.len() > before_edges;
    // A node or edge left out by an error above would make these report what is no mistake.
    if !node_errors {
        check_unused(&model, errors);
    }
    if !node_errors && !edge_errors {
        check_races(&model, errors);
    }
    model.order = topo_order(model.nodes.len(), &model.edges);
    model
}

/// Kernel declarations: unique names, parameters that do not shadow the view's setters.
fn check_kernel_decl(model: &mut Graph, k: ast::KernelDecl, errors: &mut Errors) {
    if model.kernels.iter().any(|o| o.name == k.name) {
        errors.at(
            k.name.span(),
            format!(
                "the kernel `{}` is declared twice; remove one declaration",
                k.name
            ),
        );
        return;
    }
    let mut seen: Vec<&Ident> = Vec::new();
    for p in &k.params {
        if seen.contains(&&p.name) {
            errors.at(
                p.name.span(),
                format!("the parameter `{}` is declared twice", p.name),
            );
        }
        seen.push(&p.name);
        let n = p.name.to_string();
        if KERNEL_SETTERS.contains(&n.as_str()) {
            errors.at(
                p.name.span(),
                format!(
                    "a kernel parameter named `{n}` would give a setter `set_{n}` that hides the node view's own `set_{n}`; rename the parameter"
                ),
            );
        }
    }
    model.kernels.push(Kernel {
        name: k.name,
        params: k.params.into_iter().map(|p| (p.name, p.ty)).collect(),
        used: false,
    });
}

/// Inputs (buffers, params, callbacks, events) share one namespace: they are the fields of
/// `NameInputs`.
fn add_input(model: &mut Graph, name: Ident, kind: InputKind, errors: &mut Errors) {
    if let Some(first) = model.inputs.iter().find(|i| i.name == name) {
        errors.at(
            name.span(),
            format!(
                "`{name}` is already declared as {}; buffers, host buffers, params, callbacks and events need distinct names",
                describe(&first.kind)
            ),
        );
        return;
    }
    model.inputs.push(Input {
        name,
        kind,
        used: false,
    });
}

pub fn describe(kind: &InputKind) -> &'static str {
    match kind {
        InputKind::Buffer { host: false, .. } => "a buffer",
        InputKind::Buffer { host: true, .. } => "a host buffer",
        InputKind::Param(_) => "a param",
        InputKind::Callback => "a callback",
        InputKind::Event => "an event",
    }
}

fn find_input(model: &Graph, name: &Ident) -> Option<usize> {
    model.inputs.iter().position(|i| &i.name == name)
}

/// The closest of `candidates` to `name`, if it is close enough to be a likely typo.
pub fn closest<'c>(name: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(d, c)| d <= (c.len().max(name.len()) / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// `"; did you mean `x`?"` for a likely typo, else the declared names, else `fallback`.
fn hint(name: &str, candidates: Vec<String>, fallback: &str) -> String {
    match closest(name, candidates.iter().map(String::as_str)) {
        Some(c) => format!("; did you mean `{c}`?"),
        None if candidates.is_empty() => fallback.to_owned(),
        None => format!(" (declared: {}){fallback}", candidates.join(", ")),
    }
}

/// Every generated method name is unique: nodes and inputs share one namespace with the
/// methods of `NameExec`.
fn check_names(model: &Graph, errors: &mut Errors) -> BTreeSet<String> {
    let mut hidden = BTreeSet::new();
    let mut taken: HashMap<String, String> = FIXED_METHODS
        .iter()
        .map(|m| {
            (
                m.to_string(),
                "a method of every executable graph".to_owned(),
            )
        })
        .collect();
    let mut claim = |name: String, by: String, span: Span, errors: &mut Errors| {
        if let Some(owner) = taken.get(&name) {
            errors.at(
                span,
                format!("`{name}` would be a method of `{}Exec` twice (it is already {owner}); rename it", model.name),
            );
            // Nodes are claimed after inputs: mark which of the two loses its method.
            let node = by.starts_with("the view of node");
            hidden.insert(if node { format!("node:{name}") } else { name });
        } else {
            taken.insert(name, by);
        }
    };
    for i in &model.inputs {
        let n = i.name.to_string();
        let what = describe(&i.kind);
        let by = format!("the accessor or setter of {what} `{n}`");
        match i.kind {
            InputKind::Buffer { mutable, .. } => {
                claim(n.clone(), by.clone(), i.name.span(), errors);
                if mutable {
                    claim(format!("{n}_mut"), by.clone(), i.name.span(), errors);
                }
            }
            InputKind::Param(_) => claim(n.clone(), by.clone(), i.name.span(), errors),
            InputKind::Callback | InputKind::Event => {}
        }
        claim(format!("set_{n}"), by, i.name.span(), errors);
    }
    for n in &model.nodes {
        claim(
            n.name.to_string(),
            format!("the view of node `{}`", n.name),
            n.name.span(),
            errors,
        );
    }
    hidden
}

/// A declared input or kernel that no node uses is an error (it would be an unused field of
/// `NameInputs`, or a kernel never launched).
fn check_unused(model: &Graph, errors: &mut Errors) {
    for i in model.inputs.iter().filter(|i| !i.used) {
        errors.at(
            i.name.span(),
            format!(
                "{} `{}` is declared but no node uses it; use it in a node or remove it",
                noun(&i.kind),
                i.name
            ),
        );
    }
    for k in model.kernels.iter().filter(|k| !k.used) {
        errors.at(
            k.name.span(),
            format!(
                "kernel `{}` is declared but no node launches it; launch it or remove it",
                k.name
            ),
        );
    }
}

fn noun(kind: &InputKind) -> &'static str {
    match kind {
        InputKind::Buffer { host: false, .. } => "buffer",
        InputKind::Buffer { host: true, .. } => "host buffer",
        InputKind::Param(_) => "param",
        InputKind::Callback => "callback",
        InputKind::Event => "event",
    }
}
