//! Phase 2: every check, all errors collected, producing the checked model.
//!
//! Each rule is its own `check_*` function (node rules are in `nodes` and each node kind's
//! lowering, edge and race rules in `edges`). Errors point at the smallest offending token and
//! say what to write instead.
//!
//! Every mistake at once, each once: the phases go on after an error wherever their input is
//! still sound, and what an error left unknown is never reported again as another mistake.
//! - A node with an error of its own (an unknown name, a bad argument, a kernel whose
//!   declaration has an error) stays in the model as an empty node (`Graph::ghosts`) with the
//!   uses that were sound; a buffer it names whose access is not known (`Uses::unknown`) is
//!   used (no "unused" error), no race is claimed on it, and it counts as written for
//!   initialisation. Its edges stay, so the order it gives is kept.
//! - An edge left out (an unknown node, a cycle, a crossing of a body's boundary) may have
//!   ordered what it joins: no race is claimed between nodes it could have ordered
//!   (`edges::Unsure`); the others are checked.
//! - Where the input is not sound, these phases stop, for the graph: a conditional node or
//!   repeat block with an error of its own is left out with its bodies, and a second node of
//!   one name is left out unread; then what they used, set and ordered is not known, so the
//!   condition rules, collectives in bodies, the collectives' order, the races between a
//!   repeat block's iterations and the initialisation of temporaries are not checked (nor
//!   "unused" for an unread node). An edge left out stops the order of collectives, the races
//!   between iterations and initialisation; a carry edge left out stops the races between
//!   iterations. Every other check runs.
//!
//! A graph with errors is still expanded (the faulty nodes as empty nodes, the edges left out),
//! so its types, and the items named from its source file, exist and one mistake does not
//! cascade.

mod block_inputs;
mod blocks;
mod collectives;
mod conds;
mod derive;
mod edges;
mod file;
mod instance;
mod nodes;
mod pick;
pub mod repeat;
mod source;
mod temps;

pub use file::Dirs;

use std::collections::{BTreeSet, HashMap};

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{self, GraphDef, Item};
use crate::csrc;
use crate::lower::{snake_case, KnownGraph, Lower, VIEW_SETTERS};
use crate::model::{Buffer, Cond, Errors, Graph, Input, InputKind, Kernel, NodeOp};

/// The most arguments the runtime passes to a kernel (its argument tuples' largest size).
const MAX_KERNEL_ARGS: usize = 40;

/// Method names `NameExec` has besides those made from the user's names: its own, and those of
/// `GraphExec` it reaches through `Deref` that a node or input must not hide.
const FIXED_METHODS: &[&str] = &[
    "launch",
    "synchronize",
    "update",
    "handles",
    "into_inner",
    "temporary_bytes",
];

/// Checks every graph of a macro call. Graphs with errors are still returned (with the faulty
/// nodes and edges left out), so their types can be generated.
pub fn check(input: ast::Input, dirs: &Dirs, errors: &mut Errors) -> Vec<Graph> {
    let mut names: HashMap<String, Span> = HashMap::new();
    let mut out = Vec::new();
    let mut blocks: HashMap<String, Span> = HashMap::new();
    for b in &input.blocks {
        if blocks.insert(b.name.to_string(), b.name.span()).is_some() {
            errors.at(
                b.name.span(),
                format!(
                    "a block named `{}` is declared twice in this macro call",
                    b.name
                ),
            );
        }
    }
    // Blocks first: a graph's inputs include those `inputs block;` declares.
    let graphs: Vec<GraphDef> = input
        .graphs
        .into_iter()
        .map(|g| blocks::place(g, &input.blocks, errors))
        .collect();
    // Every graph's condition handles, so one used in another graph is named as such.
    let mut conds: Vec<(String, String)> = Vec::new();
    for g in &graphs {
        for item in &g.items {
            if let Item::Cond(c) = item {
                conds.push((c.name.to_string(), g.name.to_string()));
            }
        }
    }
    let known: Vec<KnownGraph> = graphs.iter().map(KnownGraph::of).collect();
    for g in graphs {
        let foreign: Vec<(String, String)> = conds
            .iter()
            .filter(|(_, owner)| g.name != owner.as_str())
            .cloned()
            .collect();
        if names.insert(g.name.to_string(), g.name.span()).is_some() {
            errors.at(
                g.name.span(),
                format!("a graph named `{}` is defined twice in this block", g.name),
            );
            continue;
        }
        out.push(check_graph(g, &foreign, &known, dirs, errors));
    }
    out
}

/// Declarations, then nodes, then names, then edges, then the rules across them (unused
/// inputs, conditions, races, order, iterations, initialisation), each where what an earlier
/// error left unknown cannot make it report what is no mistake (see the module's doc).
fn check_graph(
    g: GraphDef,
    foreign: &[(String, String)],
    known: &[KnownGraph],
    dirs: &Dirs,
    errors: &mut Errors,
) -> Graph {
    let start = errors.len();
    let mut kernels = Vec::new();
    let mut inputs = Vec::new();
    let mut conds: Vec<Cond> = Vec::new();
    let mut node_items = Vec::new();
    let mut kernel_decls = Vec::new();
    let mut graph_source: Option<syn::LitStr> = None;
    let mut defines: Vec<(String, String)> = Vec::new();
    for item in g.items {
        match item {
            Item::Define(d) => {
                let name = d.name.to_string();
                if defines.iter().any(|(n, _)| *n == name) {
                    errors.at(
                        d.name.span(),
                        format!("`{name}` is defined twice; keep one `define {name} = ...;`"),
                    );
                } else if let Some(why) =
                    csrc::target_define(&name, d.value.as_ref().map(|v| v.0.as_str()))
                {
                    errors.at(d.name.span(), why);
                } else {
                    defines.push((name, d.value.map(|v| v.0).unwrap_or_default()));
                }
            }
            Item::Source(lit) => {
                if graph_source.is_some() {
                    errors.at(
                        lit.span(),
                        "a graph names one source file; give a kernel of another file its own with `kernel name(...) in \"other.cu\";`",
                    );
                } else {
                    graph_source = Some(lit);
                }
            }
            Item::Kernel(k) => kernel_decls.push(k),
            Item::Buffer(b) => {
                if let Some(at) = b.peer {
                    let why = if b.host {
                        Some("a host buffer is on the host, not on a device")
                    } else if b.count.is_some() {
                        Some("a stack holds the buffers kernels of a repeat block take, on the graph's device")
                    } else {
                        None
                    };
                    if let Some(why) = why {
                        errors.at(
                            at,
                            format!("`{}` cannot be `on peer`: {why}; declare the peer's buffer on its own (`buffer name: T on peer;`) and copy it with a memcpy node", b.name),
                        );
                    }
                }
                let kind = InputKind::Buffer(Buffer {
                    peer: b.peer.is_some(),
                    host: b.host,
                    mutable: b.mutable,
                    elem: b.elem,
                    disjoint: b.disjoint,
                    temp: None,
                    len: b.len.map(|expr| crate::model::Value {
                        expr,
                        params: Default::default(),
                        iter: false,
                    }),
                    stack: b.count.map(|(expr, span)| {
                        let v = crate::model::Value {
                            expr,
                            params: Default::default(),
                            iter: false,
                        };
                        (v, span)
                    }),
                });
                check_input(&mut inputs, b.name, kind, errors)
            }
            Item::Temp(t) => {
                let kind = InputKind::Buffer(Buffer {
                    host: false,
                    mutable: true,
                    elem: t.elem,
                    disjoint: false,
                    temp: Some(crate::model::Value {
                        expr: t.len,
                        params: Default::default(),
                        iter: false,
                    }),
                    len: None,
                    stack: None,
                    peer: false,
                });
                check_input(&mut inputs, t.name, kind, errors)
            }
            Item::Param(p) => check_input(&mut inputs, p.name, InputKind::Param(p.ty), errors),
            Item::Callback(name) => check_input(&mut inputs, name, InputKind::Callback, errors),
            Item::Event(name) => check_input(&mut inputs, name, InputKind::Event, errors),
            Item::Work(name) => check_input(&mut inputs, name, InputKind::Work, errors),
            Item::Comm(name) => check_input(&mut inputs, name, InputKind::Comm, errors),
            Item::Cond(c) => conds::check_cond_decl(&mut conds, c, errors),
            // Written out by `blocks::place` (one left is of an unknown block, reported).
            Item::Inputs(_) => {}
            item @ (Item::Node(_) | Item::Edges(_)) => node_items.push(item),
        }
    }
    collectives::implicit_params(&mut inputs, errors);
    for c in &conds {
        if let Some(i) = inputs.iter().find(|i| i.name == c.name) {
            errors.at(
                c.name.span(),
                format!(
                    "`{}` is already declared as {}; conditions, buffers, params, callbacks and events need distinct names",
                    c.name,
                    i.kind.describe()
                ),
            );
        }
    }
    let (sources, headers, one_source) = check_kernel_decls(
        &mut kernels,
        kernel_decls,
        graph_source,
        &defines,
        dirs,
        errors,
    );
    let mut lower = Lower {
        kernels: &mut kernels,
        inputs: &mut inputs,
        conds: &mut conds,
        foreign,
        known,
        graph: g.name.to_string(),
        errors,
        iter: None,
        loop_vars: nodes::loop_vars(&node_items),
    };
    temps::check_lengths(&mut lower);
    crate::kinds::check_counts(&mut lower);
    let nodes::Checked {
        mut nodes,
        parents,
        failed,
        ghosts,
        unread,
        chains,
        carries,
        misplaced,
    } = nodes::check_nodes(&mut lower, node_items);
    let topo = conds::topology(&mut nodes, &parents);
    for (ni, n) in nodes.iter().enumerate() {
        for &c in &n.uses.conds {
            conds[c].setters.push(ni);
        }
    }
    let mut model = Graph {
        attrs: g.attrs,
        vis: g.vis,
        name: g.name,
        kernels,
        inputs,
        conds,
        nodes,
        topo,
        order: Vec::new(),
        preds: Vec::new(),
        ghosts,
        hidden: BTreeSet::new(),
        sources,
        one_source,
        headers,
        defines,
        programmatic: Vec::new(),
        auto_programmatic: g.programmatic.is_some(),
        warnings: Vec::new(),
        structural: Default::default(),
        broken: false,
    };
    model.structural = repeat::structural(&model);
    model.structural.extend(collectives::structural(&model));
    model.hidden = check_names(&model, errors);
    let mut unsure = edges::Unsure::default();
    for chain in chains {
        edges::check_edges(&mut model, &failed, chain, &mut unsure, errors);
    }
    let before = errors.len();
    for (chain, block) in carries {
        let names: Vec<Ident> = chain.groups.iter().flatten().cloned().collect();
        let start = errors.len();
        repeat::check_carries(&mut model, &failed, chain, block, errors);
        // A carry edge with an error may have been meant as a plain edge.
        if errors.len() > start {
            unsure.loose(&model, &names);
        }
    }
    for names in &misplaced {
        unsure.loose(&model, names);
    }
    let carry_errors = errors.len() > before;
    // Nodes left out (with their bodies, or unread): what they used, set and ordered is not
    // known.
    let lost = !failed.is_empty() || unread;
    if !lost {
        check_unused(&model, errors);
    }
    if !lost {
        conds::check_conds(&model, errors);
        collectives::check_bodies(&model, errors);
    }
    edges::check_programmatic(&mut model, errors);
    edges::check_races(&model, &unsure, errors);
    if !lost && unsure.is_empty() {
        collectives::check_order(&model, errors);
        if !carry_errors {
            repeat::check_iterations(&model, errors);
        }
        initialised(&mut model, errors);
    }
    // Allocation and free nodes, placed around each temporary's users.
    temps::place(&mut model, errors);
    model.order = conds::build_order(&model.topo);
    let mut preds = vec![Vec::new(); model.nodes.len()];
    for (a, b) in model.edges() {
        preds[b].push(a);
    }
    model.preds = preds;
    model.broken = errors.len() > start;
    model
}

/// Reads of temporaries that may be unwritten, with the buffers a node kept after its error
/// names (access not known) counted as written by it: that error, not one more, is reported.
fn initialised(model: &mut Graph, errors: &mut Errors) {
    let mut added = Vec::new();
    for (ni, n) in model.nodes.iter_mut().enumerate() {
        for &x in &n.uses.unknown {
            if n.uses.writes.insert(x) {
                added.push((ni, x));
            }
        }
    }
    temps::check_initialised(model, errors);
    for (ni, x) in added {
        model.nodes[ni].uses.writes.remove(&x);
    }
}

/// Kernel declarations, each checked against the CUDA source it names (its own, or the
/// graph's), or taking its parameters from it. Returns the source files read, the headers they
/// include, and whether every kernel is declared from one named file (read or not).
fn check_kernel_decls(
    kernels: &mut Vec<Kernel>,
    decls: Vec<ast::KernelDecl>,
    graph_source: Option<syn::LitStr>,
    defines: &[(String, String)],
    dirs: &Dirs,
    errors: &mut Errors,
) -> (
    Vec<std::path::PathBuf>,
    Vec<(String, std::path::PathBuf)>,
    bool,
) {
    let key = |k: &ast::KernelDecl| {
        k.source
            .as_ref()
            .or(graph_source.as_ref())
            .map(syn::LitStr::value)
    };
    let first = decls.first().and_then(key);
    let one_source = first.is_some() && decls.iter().all(|k| key(k) == first);
    let mut files: Vec<(String, Option<file::Loaded>)> = Vec::new();
    let mut open = |lit: &syn::LitStr, errors: &mut Errors| -> Option<usize> {
        let key = lit.value();
        if let Some(i) = files.iter().position(|(k, _)| *k == key) {
            return files[i].1.as_ref().map(|_| i);
        }
        let loaded = file::load(lit, dirs, defines, errors);
        let ok = loaded.is_some();
        files.push((key, loaded));
        ok.then(|| files.len() - 1)
    };
    let graph_file = graph_source.as_ref().and_then(|lit| open(lit, errors));
    let mut resolved = Vec::new();
    for k in decls {
        let file = match &k.source {
            Some(lit) => open(lit, errors),
            None => graph_file,
        };
        let named = k.source.is_some() || graph_source.is_some();
        resolved.push((k, file, named));
    }
    // The files that were read, in order; kernels refer to them by index.
    let mut used: Vec<usize> = Vec::new();
    for (k, file, named) in resolved {
        let (params, source) = match (file, &k.params) {
            (Some(f), _) => {
                let loaded = files[f]
                    .1
                    .as_ref()
                    .expect("an index of a file that was read");
                let p = source::kernel_params(&k, loaded, errors);
                let slot = match used.iter().position(|&u| u == f) {
                    Some(s) => s,
                    None => {
                        used.push(f);
                        used.len() - 1
                    }
                };
                (p, Some(slot))
            }
            // The file could not be read (reported): check what the Rust declaration says.
            (None, Some(params)) => (
                Some(source::Checked {
                    params: rust_params(params),
                    load: None,
                    sizes: Vec::new(),
                    pdl: None,
                }),
                None,
            ),
            (None, None) if named => (None, None),
            (None, None) => {
                errors.at(
                    k.name.span(),
                    format!(
                        "kernel `{}` has no parameter list and no CUDA source to take one from; write its parameters, or name the file with `source \"kernels.cu\";`",
                        k.name
                    ),
                );
                (None, None)
            }
        };
        match params {
            Some(c) => check_kernel_decl(kernels, k.name, c, source, errors),
            // Left out, but declared: a node launching it is not told it is unknown.
            None => kernels.push(Kernel {
                name: k.name,
                params: Vec::new(),
                used: true,
                source: None,
                broken: true,
                load: None,
                sizes: Vec::new(),
                pdl: None,
            }),
        }
    }
    let mut headers: Vec<(String, std::path::PathBuf)> = Vec::new();
    for &f in &used {
        for h in &files[f].1.as_ref().expect("read").src.includes {
            if !headers.contains(h) {
                headers.push(h.clone());
            }
        }
    }
    let paths = used
        .into_iter()
        .map(|f| files[f].1.as_ref().expect("read").path.clone())
        .collect();
    (paths, headers, one_source)
}

fn rust_params(params: &[ast::KernelParam]) -> Vec<(Ident, ast::ParamTy)> {
    params
        .iter()
        .map(|p| (p.name.clone(), p.ty.clone()))
        .collect()
}

/// Kernel declarations: unique names, parameters that do not shadow the view's setters.
fn check_kernel_decl(
    kernels: &mut Vec<Kernel>,
    name: Ident,
    checked: source::Checked,
    source: Option<usize>,
    errors: &mut Errors,
) {
    let source::Checked {
        params,
        load,
        sizes,
        pdl,
    } = checked;
    if kernels.iter().any(|o| o.name == name) {
        errors.at(
            name.span(),
            format!("the kernel `{name}` is declared twice; remove one declaration"),
        );
        return;
    }
    let before = errors.len();
    if params.len() > MAX_KERNEL_ARGS {
        errors.at(
            name.span(),
            format!(
                "kernel `{name}` has {} parameters, and a kernel node takes at most {MAX_KERNEL_ARGS} arguments; pass the rest in a struct (a parameter of a `#[repr(C)]` type) or a buffer",
                params.len()
            ),
        );
    }
    let mut seen: Vec<(&Ident, String)> = Vec::new();
    for (pname, _) in &params {
        let n = snake_case(&pname.to_string());
        if let Some((first, _)) = seen.iter().find(|(_, s)| *s == n) {
            let msg = if *first == pname {
                format!("the parameter `{pname}` is declared twice")
            } else {
                format!("parameters `{first}` and `{pname}` would both give the setter `set_{n}`; rename one")
            };
            errors.at(pname.span(), msg);
        }
        seen.push((pname, n.clone()));
        if VIEW_SETTERS.contains(&n.as_str()) {
            errors.at(
                pname.span(),
                format!(
                    "a kernel parameter named `{pname}` would give a setter `set_{n}` that hides the node view's own `set_{n}`; rename the parameter"
                ),
            );
        }
    }
    // A declaration with an error (reported) is kept, so nodes launching it are not told it
    // is unknown, but they are left out: their setters would repeat the error.
    let broken = errors.len() > before;
    kernels.push(Kernel {
        name,
        params,
        used: broken,
        source,
        broken,
        load,
        sizes,
        pdl,
    });
}

/// Inputs (buffers, params, callbacks, events, works, communicators) share one namespace: they are the fields of
/// `NameInputs`.
fn check_input(inputs: &mut Vec<Input>, name: Ident, kind: InputKind, errors: &mut Errors) {
    if let Some(first) = inputs.iter().find(|i| i.name == name) {
        errors.at(
            name.span(),
            format!(
                "`{name}` is already declared as {}; buffers, host buffers, params, callbacks and events need distinct names",
                first.kind.describe()
            ),
        );
        return;
    }
    inputs.push(Input {
        name,
        kind,
        used: false,
        implicit: None,
    });
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
    for i in model.inputs.iter().filter(|i| i.implicit.is_none()) {
        let n = i.name.to_string();
        let by = format!("the accessor or setter of {} `{n}`", i.kind.describe());
        match &i.kind {
            // Temporaries, stacks and buffers of another device have no accessor or setter.
            InputKind::Buffer(b) if b.temp.is_some() || b.stack.is_some() || b.peer => continue,
            InputKind::Buffer(b) => {
                claim(n.clone(), by.clone(), i.name.span(), errors);
                if b.mutable {
                    claim(format!("{n}_mut"), by.clone(), i.name.span(), errors);
                }
            }
            InputKind::Param(_) => claim(n.clone(), by.clone(), i.name.span(), errors),
            InputKind::Callback | InputKind::Event => {}
            // A work has no setter: its node's view re-captures it. A communicator has none:
            // its collectives are captured once, when the graph is built.
            InputKind::Work | InputKind::Comm => continue,
        }
        claim(format!("set_{n}"), by, i.name.span(), errors);
    }
    for n in model
        .nodes
        .iter()
        .filter(|n| !matches!(n.op, NodeOp::Repeat(_)))
    {
        claim(
            n.name.to_string(),
            format!("the view of node `{}`", n.name),
            n.name.span(),
            errors,
        );
        if matches!(n.op, NodeOp::Child(_)) {
            claim(
                format!("edit_{}", n.name),
                format!("the child edit of node `{}`", n.name),
                n.name.span(),
                errors,
            );
        }
    }
    hidden
}

/// A declared input or kernel that no node uses is an error (it would be an unused field of
/// `NameInputs`, or a kernel never launched).
///
/// One that an unknown name's error proposes as meant is not reported: that use was dropped.
fn check_unused(model: &Graph, errors: &mut Errors) {
    let meant: BTreeSet<String> = errors
        .messages()
        .iter()
        .flat_map(|m| crate::lower::proposed(m))
        .collect();
    let graph = model.name.to_string();
    let dropped = |name: &Ident| errors.use_dropped(&graph, &name.to_string());
    let unused: Vec<&Input> = model
        .inputs
        .iter()
        .filter(|i| !i.used && !meant.contains(&i.name.to_string()) && !dropped(&i.name))
        .collect();
    for i in unused {
        errors.at(
            i.name.span(),
            format!(
                "{} `{}` is declared but no node uses it; use it in a node or remove it",
                i.kind.noun(),
                i.name
            ),
        );
    }
    for k in model
        .kernels
        .iter()
        .filter(|k| !k.used && !meant.contains(&k.name.to_string()))
    {
        errors.at(
            k.name.span(),
            format!(
                "kernel `{}` is declared but no node launches it; launch it or remove it",
                k.name
            ),
        );
    }
}
