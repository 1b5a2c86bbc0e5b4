//! Phase 2: every check, all errors collected, producing the checked model.
//!
//! Each rule is its own `check_*` function (node rules are in `nodes` and each node kind's
//! lowering, edge and race rules in `edges`). Errors point at the smallest offending token and
//! say what to write instead. An invalid node or edge is left out of the model, so the
//! expansion still produces the graph's types and one mistake does not cascade.

mod edges;
mod nodes;

use std::collections::{BTreeSet, HashMap};

use cuda_graph_topology::Topology;
use proc_macro2::Span;
use syn::Ident;

use crate::ast::{self, GraphDef, Item};
use crate::lower::Lower;
use crate::model::{Buffer, Errors, Graph, Input, InputKind, Kernel};

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

/// Checks every graph of a macro call. Graphs with errors are still returned (with the faulty
/// nodes and edges left out), so their types can be generated.
pub fn check(input: ast::Input, errors: &mut Errors) -> Vec<Graph> {
    let mut names: HashMap<String, Span> = HashMap::new();
    let mut out = Vec::new();
    for g in input.graphs {
        if names.insert(g.name.to_string(), g.name.span()).is_some() {
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

/// Declarations, then nodes, then names, then edges; the cross-item rules (unused inputs,
/// races) only when nothing was left out, since a missing node or edge would make them report
/// what is no mistake.
fn check_graph(g: GraphDef, errors: &mut Errors) -> Graph {
    let mut kernels = Vec::new();
    let mut inputs = Vec::new();
    let mut node_decls = Vec::new();
    let mut chains = Vec::new();
    for item in g.items {
        match item {
            Item::Kernel(k) => check_kernel_decl(&mut kernels, k, errors),
            Item::Buffer(b) => {
                let kind = InputKind::Buffer(Buffer {
                    host: b.host,
                    mutable: b.mutable,
                    elem: b.elem,
                    disjoint: b.disjoint,
                });
                check_input(&mut inputs, b.name, kind, errors)
            }
            Item::Param(p) => check_input(&mut inputs, p.name, InputKind::Param(p.ty), errors),
            Item::Callback(name) => check_input(&mut inputs, name, InputKind::Callback, errors),
            Item::Event(name) => check_input(&mut inputs, name, InputKind::Event, errors),
            Item::Node(n) => node_decls.push(n),
            Item::Edges(e) => chains.push(e),
        }
    }
    let before = errors.len();
    let mut lower = Lower {
        kernels: &mut kernels,
        inputs: &mut inputs,
        errors,
    };
    let (nodes, failed) = nodes::check_nodes(&mut lower, node_decls);
    let node_errors = errors.len() > before;
    let mut topo = Topology::new();
    for n in &nodes {
        topo.add_node(&n.name.to_string(), n.op.kind())
            .expect("node names were checked to be unique");
    }
    let mut model = Graph {
        attrs: g.attrs,
        vis: g.vis,
        name: g.name,
        kernels,
        inputs,
        nodes,
        topo,
        order: Vec::new(),
        preds: Vec::new(),
        hidden: BTreeSet::new(),
    };
    model.hidden = check_names(&model, errors);
    let before = errors.len();
    for chain in chains {
        edges::check_edges(&mut model, &failed, chain, errors);
    }
    let edge_errors = errors.len() > before;
    if !node_errors {
        check_unused(&model, errors);
    }
    if !node_errors && !edge_errors {
        edges::check_races(&model, errors);
    }
    model.order = model.topo.order().into_iter().map(|i| i as usize).collect();
    let mut preds = vec![Vec::new(); model.nodes.len()];
    for (a, b) in model.edges() {
        preds[b].push(a);
    }
    model.preds = preds;
    model
}

/// Kernel declarations: unique names, parameters that do not shadow the view's setters.
fn check_kernel_decl(kernels: &mut Vec<Kernel>, k: ast::KernelDecl, errors: &mut Errors) {
    if kernels.iter().any(|o| o.name == k.name) {
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
    kernels.push(Kernel {
        name: k.name,
        params: k.params.into_iter().map(|p| (p.name, p.ty)).collect(),
        used: false,
    });
}

/// Inputs (buffers, params, callbacks, events) share one namespace: they are the fields of
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
    for i in &model.inputs {
        let n = i.name.to_string();
        let by = format!("the accessor or setter of {} `{n}`", i.kind.describe());
        match &i.kind {
            InputKind::Buffer(b) => {
                claim(n.clone(), by.clone(), i.name.span(), errors);
                if b.mutable {
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
                i.kind.noun(),
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
