//! Per-node checks: each operation names declared kernels and inputs of the right kind, and
//! its expressions use params and constants only.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Path};

use super::{describe, find_input, hint, Arg, ChildArg, Errors, Graph, InputKind, Node, NodeOp};
use crate::ast::{self, Op, ParamTy};

/// A node: its operation must name declared kernels and inputs of the right kind.
pub(super) fn check_node(model: &mut Graph, n: ast::NodeDecl, errors: &mut Errors) {
    if model.by_name.contains_key(&n.name.to_string()) {
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
        model
            .by_name
            .insert(node.name.to_string(), model.nodes.len());
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
                param_into_child(errors, value.span(), &model.inputs[i].name);
                ok = false;
            }
            None => {
                // A constant expression: check its names on a scratch node.
                let mut probe = Node {
                    name: node.name.clone(),
                    op: NodeOp::Empty,
                    params: BTreeSet::new(),
                    reads: BTreeSet::new(),
                    writes: BTreeSet::new(),
                };
                ok &= check_expr(model, &mut probe, &value, "a child graph input", errors);
                if let Some(&p) = probe.params.iter().next() {
                    param_into_child(errors, value.span(), &model.inputs[p].name);
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

fn param_into_child(errors: &mut Errors, span: Span, param: &Ident) {
    errors.at(
        span,
        format!("param `{param}` cannot flow into a child graph (the child is built once); pass a constant"),
    );
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
