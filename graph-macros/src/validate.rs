//! Phase 2: every check, all errors collected, and the checked model the expansion reads.
//!
//! Each rule is its own `check_*` function. Errors point at the smallest offending token and
//! say what to write instead. An invalid node or edge is left out of the model, so the
//! expansion still produces the graph's types and one mistake does not cascade.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, Path, Type, Visibility};

use crate::ast::{self, GraphDef, Item, Op, ParamTy};

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
    model.by_name = model
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.to_string(), i))
        .collect();
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

/// A node: its operation must name declared kernels and inputs of the right kind.
fn check_node(model: &mut Graph, n: ast::NodeDecl, errors: &mut Errors) {
    if let Some(first) = model.nodes.iter().find(|o| o.name == n.name) {
        let _ = first;
        errors.at(
            n.name.span(),
            format!(
                "a node named `{}` is already declared; node names must be unique",
                n.name
            ),
        );
        return;
    }
    let mut node = Node {
        name: n.name,
        op: NodeOp::Empty,
        params: BTreeSet::new(),
        reads: BTreeSet::new(),
        writes: BTreeSet::new(),
    };
    let ok = match n.op {
        Op::Launch(l) => check_launch(model, &mut node, l, errors),
        Op::Memset { dst, value } => check_memset(model, &mut node, dst, value, errors),
        Op::Memcpy { dst, src } => check_memcpy(model, &mut node, dst, src, errors),
        Op::Host(f) => check_host(model, &mut node, f, errors),
        Op::Empty => true,
        Op::Child { ty, fields } => check_child(model, &mut node, ty, fields, errors),
        Op::Record(ev) => check_event(model, &mut node, ev, true, errors),
        Op::Wait(ev) => check_event(model, &mut node, ev, false, errors),
    };
    if ok {
        model.nodes.push(node);
    } else {
        model.failed.push(node.name);
    }
}

fn check_launch(model: &mut Graph, node: &mut Node, l: ast::Launch, errors: &mut Errors) -> bool {
    let Some(k) = model.kernels.iter().position(|k| k.name == l.kernel) else {
        let names = model.kernels.iter().map(|k| k.name.to_string()).collect();
        errors.at(
            l.kernel.span(),
            format!(
                "no kernel named `{}` is declared{}",
                l.kernel,
                hint(
                    &l.kernel.to_string(),
                    names,
                    &format!("; declare it with `kernel {}(...);`", l.kernel)
                ),
            ),
        );
        return false;
    };
    model.kernels[k].used = true;
    let mut ok = true;
    for e in [&l.grid, &l.block].into_iter().chain(l.smem.as_ref()) {
        ok &= check_expr(model, node, e, "launch dimensions", errors);
    }
    let decl = &model.kernels[k];
    if decl.params.len() != l.args.len() {
        let sig: Vec<String> = decl
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {}", param_ty_text(t)))
            .collect();
        errors.at(
            l.args_span,
            format!(
                "kernel `{}` takes {} argument{} ({}) but {} {} given",
                decl.name,
                decl.params.len(),
                if decl.params.len() == 1 { "" } else { "s" },
                sig.join(", "),
                l.args.len(),
                if l.args.len() == 1 { "was" } else { "were" }
            ),
        );
        return false;
    }
    let params: Vec<(String, Option<bool>)> = decl
        .params
        .iter()
        .map(|(n, t)| {
            let slice = match t {
                ParamTy::Slice { mutable, .. } => Some(*mutable),
                ParamTy::Scalar(_) => None,
            };
            (n.to_string(), slice)
        })
        .collect();
    let kernel_name = decl.name.to_string();
    let mut args = Vec::new();
    for ((pname, slice), arg) in params.into_iter().zip(l.args) {
        let named = match &arg {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
            _ => None,
        };
        let input = named.as_ref().and_then(|id| find_input(model, id));
        let is_buffer = |i: usize| matches!(model.inputs[i].kind, InputKind::Buffer { .. });
        match (slice, input) {
            (Some(writes), Some(i)) if is_buffer(i) => {
                let id = named.expect("an input was found by name");
                let InputKind::Buffer { host, mutable, .. } = model.inputs[i].kind else {
                    unreachable!("checked above")
                };
                if host {
                    errors.at(
                        id.span(),
                        format!(
                            "`{id}` is a host buffer; kernel `{kernel_name}` takes a device buffer for `{pname}`; copy it to a `buffer` with a `memcpy` node first"
                        ),
                    );
                    ok = false;
                    continue;
                }
                if writes && !mutable {
                    errors.at(
                        id.span(),
                        format!(
                            "buffer `{id}` is read-only but kernel `{kernel_name}` writes its parameter `{pname}`; declare it `buffer mut {id}: ...;`"
                        ),
                    );
                    ok = false;
                    continue;
                }
                model.inputs[i].used = true;
                if writes {
                    node.writes.insert(i);
                } else {
                    node.reads.insert(i);
                }
                args.push(Arg::Buffer {
                    input: i,
                    read: mutable && !writes,
                    span: id.span(),
                });
            }
            (Some(writes), _) => {
                errors.at(
                    arg.span(),
                    format!(
                        "kernel `{kernel_name}` takes a device buffer for `{pname}` (`&{}[...]`); pass the name of a declared `buffer{}`",
                        if writes { "mut " } else { "" },
                        if writes { " mut" } else { "" }
                    ),
                );
                ok = false;
            }
            (None, Some(i)) if is_buffer(i) => {
                errors.at(
                    arg.span(),
                    format!(
                        "kernel `{kernel_name}` takes a value for `{pname}`, but `{}` is a buffer",
                        named.expect("found by name")
                    ),
                );
                ok = false;
            }
            (None, _) => {
                ok &= check_expr(model, node, &arg, "kernel arguments", errors);
                args.push(Arg::Value(arg));
            }
        }
    }
    if ok {
        node.op = NodeOp::Launch {
            kernel: k,
            args,
            grid: l.grid,
            block: l.block,
            smem: l.smem,
        };
    }
    ok
}

fn param_ty_text(t: &ParamTy) -> String {
    match t {
        ParamTy::Scalar(ty) => ty.to_token_stream().to_string(),
        ParamTy::Slice { mutable, elem, .. } => format!(
            "&{}[{}]",
            if *mutable { "mut " } else { "" },
            elem.to_token_stream()
        ),
    }
}

/// The buffer called `id`, which the node needs `writable` (or not), on the device or host.
fn buffer(
    model: &mut Graph,
    id: &Ident,
    writable: bool,
    host_ok: bool,
    what: &str,
    errors: &mut Errors,
) -> Option<usize> {
    let Some(i) = find_input(model, id) else {
        let names = model
            .inputs
            .iter()
            .filter(|i| matches!(i.kind, InputKind::Buffer { .. }))
            .map(|i| i.name.to_string())
            .collect();
        errors.at(
            id.span(),
            format!(
                "no buffer named `{id}` is declared{}",
                hint(&id.to_string(), names, "; declare it with `buffer ...`")
            ),
        );
        return None;
    };
    let InputKind::Buffer { host, mutable, .. } = model.inputs[i].kind else {
        errors.at(
            id.span(),
            format!(
                "{what} needs a buffer, but `{id}` is {}",
                describe(&model.inputs[i].kind)
            ),
        );
        return None;
    };
    if host && !host_ok {
        errors.at(
            id.span(),
            format!("{what} needs a device buffer, but `{id}` is a host buffer"),
        );
        return None;
    }
    if writable && !mutable {
        errors.at(
            id.span(),
            format!(
                "{what} writes `{id}`, which is read-only; declare it `{} mut {id}: ...;`",
                if host { "host_buffer" } else { "buffer" }
            ),
        );
        return None;
    }
    model.inputs[i].used = true;
    Some(i)
}

fn check_memset(
    model: &mut Graph,
    node: &mut Node,
    dst: Ident,
    value: Expr,
    errors: &mut Errors,
) -> bool {
    let Some(d) = buffer(model, &dst, true, false, "memset", errors) else {
        return false;
    };
    if !check_expr(model, node, &value, "a memset value", errors) {
        return false;
    }
    node.writes.insert(d);
    node.op = NodeOp::Memset { dst: d, value };
    true
}

fn check_memcpy(
    model: &mut Graph,
    node: &mut Node,
    dst: Ident,
    src: Ident,
    errors: &mut Errors,
) -> bool {
    let d = buffer(model, &dst, true, true, "memcpy", errors);
    let s = buffer(model, &src, false, true, "memcpy", errors);
    let (Some(d), Some(s)) = (d, s) else {
        return false;
    };
    let elem = |i: usize| match &model.inputs[i].kind {
        InputKind::Buffer { elem, .. } => elem.to_token_stream().to_string(),
        _ => unreachable!("checked by `buffer`"),
    };
    let (de, se) = (elem(d), elem(s));
    if de != se {
        errors.at(
            src.span(),
            format!(
                "memcpy copies `{se}` elements from `{src}` into `{dst}`, which holds `{de}`; both buffers must hold the same element type"
            ),
        );
        return false;
    }
    node.reads.insert(s);
    node.writes.insert(d);
    node.op = NodeOp::Memcpy { dst: d, src: s };
    true
}

fn check_host(model: &mut Graph, node: &mut Node, f: Expr, errors: &mut Errors) -> bool {
    if let Expr::Path(p) = &f {
        if let Some(id) = p.path.get_ident() {
            return match find_input(model, id) {
                Some(i) if matches!(model.inputs[i].kind, InputKind::Callback) => {
                    model.inputs[i].used = true;
                    node.op = NodeOp::Host {
                        callback: Some(i),
                        closure: None,
                    };
                    true
                }
                _ => {
                    errors.at(
                        id.span(),
                        format!(
                            "no callback named `{id}` is declared; declare it with `callback {id};` or write a closure `host(|| ...)`"
                        ),
                    );
                    false
                }
            };
        }
    }
    if !matches!(f, Expr::Closure(_)) {
        errors.at(
            f.span(),
            "`host(...)` takes a declared callback or a closure `|| ...`",
        );
        return false;
    }
    node.op = NodeOp::Host {
        callback: None,
        closure: Some(f),
    };
    true
}

fn check_child(
    model: &mut Graph,
    node: &mut Node,
    ty: Path,
    fields: Vec<(Ident, Expr)>,
    errors: &mut Errors,
) -> bool {
    let mut ok = true;
    let mut out = Vec::new();
    for (name, value) in fields {
        let named = match &value {
            Expr::Path(p) => p.path.get_ident().cloned(),
            _ => None,
        };
        match named.as_ref().and_then(|id| find_input(model, id)) {
            Some(i) if !matches!(model.inputs[i].kind, InputKind::Param(_)) => {
                model.inputs[i].used = true;
                if matches!(model.inputs[i].kind, InputKind::Buffer { .. }) {
                    // What the child does with it is unknown here: count it as a write.
                    node.writes.insert(i);
                }
                out.push((name, ChildArg::Input(i, value.span())));
            }
            Some(i) => {
                errors.at(
                    value.span(),
                    format!(
                        "param `{}` cannot flow into a child graph (the child is built once); pass a constant",
                        model.inputs[i].name
                    ),
                );
                ok = false;
            }
            None => {
                let mut scratch = BTreeSet::new();
                let mut probe = Node {
                    name: node.name.clone(),
                    op: NodeOp::Empty,
                    params: BTreeSet::new(),
                    reads: BTreeSet::new(),
                    writes: BTreeSet::new(),
                };
                ok &= check_expr(model, &mut probe, &value, "a child graph input", errors);
                scratch.extend(probe.params);
                if let Some(&p) = scratch.iter().next() {
                    errors.at(
                        value.span(),
                        format!(
                            "param `{}` cannot flow into a child graph (the child is built once); pass a constant",
                            model.inputs[p].name
                        ),
                    );
                    ok = false;
                }
                out.push((name, ChildArg::Expr(value)));
            }
        }
    }
    if ok {
        node.op = NodeOp::Child { ty, fields: out };
    }
    ok
}

fn check_event(
    model: &mut Graph,
    node: &mut Node,
    ev: Ident,
    record: bool,
    errors: &mut Errors,
) -> bool {
    match find_input(model, &ev) {
        Some(i) if matches!(model.inputs[i].kind, InputKind::Event) => {
            model.inputs[i].used = true;
            node.op = if record {
                NodeOp::Record(i)
            } else {
                NodeOp::Wait(i)
            };
            true
        }
        _ => {
            errors.at(
                ev.span(),
                format!("no event named `{ev}` is declared; declare it with `event {ev};`"),
            );
            false
        }
    }
}

/// An expression (launch dimensions, a kernel argument, a memset value) may use params, and
/// constants or paths from the surrounding scope (names starting with an uppercase letter, or
/// paths such as `u32::MAX`). A lowercase name that is no param is an error.
fn check_expr(
    model: &mut Graph,
    node: &mut Node,
    e: &Expr,
    what: &str,
    errors: &mut Errors,
) -> bool {
    let mut ok = true;
    for id in free_idents(e.to_token_stream()) {
        let name = id.to_string();
        match find_input(model, &id) {
            Some(i) if matches!(model.inputs[i].kind, InputKind::Param(_)) => {
                model.inputs[i].used = true;
                node.params.insert(i);
            }
            Some(i) => {
                errors.at(
                    id.span(),
                    format!(
                        "`{name}` is {}; {what} can use params and constants only",
                        describe(&model.inputs[i].kind)
                    ),
                );
                ok = false;
            }
            None => {
                let params = model
                    .inputs
                    .iter()
                    .filter(|i| matches!(i.kind, InputKind::Param(_)))
                    .map(|i| i.name.to_string())
                    .collect();
                errors.at(
                    id.span(),
                    format!(
                        "unknown param `{name}` in {what}{}",
                        hint(
                            &name,
                            params,
                            &format!("; declare it with `param {name}: ...;`")
                        )
                    ),
                );
                ok = false;
            }
        }
    }
    ok
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while",
];

/// Lowercase identifiers of an expression that name a value: not a method, field, path
/// segment, function, macro, keyword or type after `as`.
pub fn free_idents(tokens: TokenStream) -> Vec<Ident> {
    let mut out = Vec::new();
    collect_free(tokens, &mut out);
    out
}

fn collect_free(tokens: TokenStream, out: &mut Vec<Ident>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => collect_free(g.stream(), out),
            TokenTree::Ident(id) => {
                let name = id.to_string();
                let prev = i.checked_sub(1).map(|j| &tts[j]);
                let next = tts.get(i + 1);
                let after_dot = matches!(prev, Some(TokenTree::Punct(p)) if p.as_char() == '.' || p.as_char() == ':');
                let after_as = matches!(prev, Some(TokenTree::Ident(p)) if p == "as");
                let before_path_or_call = match next {
                    Some(TokenTree::Punct(p)) => p.as_char() == ':' || p.as_char() == '!',
                    Some(TokenTree::Group(g)) => {
                        g.delimiter() == proc_macro2::Delimiter::Parenthesis
                    }
                    _ => false,
                };
                let lower = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                if lower
                    && name != "_"
                    && !after_dot
                    && !after_as
                    && !before_path_or_call
                    && !KEYWORDS.contains(&name.as_str())
                    && !out.iter().any(|o: &Ident| o == id)
                {
                    out.push(id.clone());
                }
            }
            _ => {}
        }
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

/// Edges: known nodes, no self-edge, no repeat, no cycle. Each error points at the edge's
/// arrow; a cycle prints its path.
fn check_edges(model: &mut Graph, chain: ast::EdgeChain, errors: &mut Errors) {
    let find = |model: &Graph, id: &Ident, errors: &mut Errors| -> Option<usize> {
        let found = model.by_name.get(&id.to_string()).copied();
        if found.is_none() && !model.failed.contains(id) {
            let names = model.nodes.iter().map(|n| n.name.to_string()).collect();
            errors.at(
                id.span(),
                format!("no node named `{id}`{}", hint(&id.to_string(), names, "")),
            );
        }
        found
    };
    let groups: Vec<Vec<Option<usize>>> = chain
        .groups
        .iter()
        .map(|g| g.iter().map(|id| find(model, id, errors)).collect())
        .collect();
    for (k, arrow) in chain.arrows.iter().enumerate() {
        for &a in groups[k].iter().flatten() {
            for &b in groups[k + 1].iter().flatten() {
                let (na, nb) = (&model.nodes[a].name, &model.nodes[b].name);
                if a == b {
                    errors.at(*arrow, format!("node `{na}` cannot depend on itself"));
                } else if model.edge_set.contains(&(a, b)) {
                    errors.at(
                        *arrow,
                        format!("the edge `{na} -> {nb}` is written twice; remove this one"),
                    );
                } else if let Some(path) = path(&model.succ, b, a) {
                    let mut text = na.to_string();
                    for i in path {
                        text.push_str(" -> ");
                        text.push_str(&model.nodes[i].name.to_string());
                    }
                    errors.at(
                        *arrow,
                        format!("the edge `{na} -> {nb}` closes a cycle: {text}; a graph must be acyclic"),
                    );
                } else {
                    model.edges.push((a, b));
                    model.edge_set.insert((a, b));
                    model.succ[a].push(b);
                }
            }
        }
    }
}

/// A path `start, ..., goal` along the successor lists. Costs only what it visits.
pub fn path(succ: &[Vec<usize>], start: usize, goal: usize) -> Option<Vec<usize>> {
    let mut parent: HashMap<usize, usize> = HashMap::from([(start, start)]);
    let mut stack = vec![start];
    while let Some(v) = stack.pop() {
        if v == goal {
            let mut out = vec![v];
            let mut c = v;
            while c != start {
                c = parent[&c];
                out.push(c);
            }
            out.reverse();
            return Some(out);
        }
        for &s in &succ[v] {
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(s) {
                e.insert(v);
                stack.push(s);
            }
        }
    }
    None
}

fn successors(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut succ = vec![Vec::new(); n];
    for &(a, b) in edges {
        succ[a].push(b);
    }
    succ
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

/// Two nodes that touch one buffer, at least one writing, must be ordered by a path.
fn check_races(model: &Graph, errors: &mut Errors) {
    let reach = Reach::new(model.nodes.len(), &model.edges);
    for (x, input) in model.inputs.iter().enumerate() {
        if !matches!(
            input.kind,
            InputKind::Buffer {
                disjoint: false,
                ..
            }
        ) {
            continue;
        }
        let users: Vec<usize> = (0..model.nodes.len())
            .filter(|&i| model.nodes[i].reads.contains(&x) || model.nodes[i].writes.contains(&x))
            .collect();
        for (k, &j) in users.iter().enumerate() {
            let b = &model.nodes[j];
            let clash = users[..k].iter().copied().find(|&i| {
                let a = &model.nodes[i];
                (a.writes.contains(&x) || b.writes.contains(&x))
                    && !reach.get(i, j)
                    && !reach.get(j, i)
            });
            if let Some(i) = clash {
                let a = &model.nodes[i];
                let writer = if b.writes.contains(&x) {
                    &b.name
                } else {
                    &a.name
                };
                errors.at(
                    b.name.span(),
                    format!(
                        "data race: nodes `{}` and `{}` both use buffer `{}` and `{writer}` writes it, but neither depends on the other; add an edge `{} -> {}` (or the reverse), or mark the buffer `#[disjoint]` if they touch disjoint parts",
                        a.name, b.name, input.name, a.name, b.name
                    ),
                );
            }
        }
    }
}

/// Which nodes reach which: one bitset per node, filled in reverse topological order.
struct Reach {
    words: usize,
    bits: Vec<u64>,
}

impl Reach {
    fn new(n: usize, edges: &[(usize, usize)]) -> Self {
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        let succ = successors(n, edges);
        for &v in topo_order(n, edges).iter().rev() {
            for &s in &succ[v] {
                bits[v * words + s / 64] |= 1 << (s % 64);
                for w in 0..words {
                    bits[v * words + w] |= bits[s * words + w];
                }
            }
        }
        Reach { words, bits }
    }

    fn get(&self, from: usize, to: usize) -> bool {
        self.bits[from * self.words + to / 64] & (1 << (to % 64)) != 0
    }
}

/// Nodes ordered so each comes after its dependencies; ties keep declaration order.
pub fn topo_order(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut indeg = vec![0usize; n];
    for &(_, b) in edges {
        indeg[b] += 1;
    }
    let succ = successors(n, edges);
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(v) = ready.pop_first() {
        out.push(v);
        for &s in &succ[v] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.insert(s);
            }
        }
    }
    out
}
