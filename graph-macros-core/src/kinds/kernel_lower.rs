//! Kernel launches checked: `step = saxpy<<<grid, block, smem>>>(args)` against the kernel's
//! declaration (the code a launch becomes is in `kernel.rs`).

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use crate::ast::{self, ParamTy};
use crate::lower::{check_elem, hint, primitive, Lower};
use crate::model::{Arg, InputKind, Launch, Uses};

/// Checks a launch against the kernel's declaration: the kernel exists, the argument count
/// matches, buffers go to slice parameters (writable ones to `&mut`), values to scalars.
pub(super) fn lower(cx: &mut Lower<'_>, l: ast::Launch, uses: &mut Uses) -> Option<Launch> {
    let Some(k) = cx.kernels.iter().position(|k| k.name == l.kernel) else {
        let names = cx.kernels.iter().map(|k| k.name.to_string()).collect();
        let fallback = format!("; declare it with `kernel {}(...);`", l.kernel);
        cx.errors.once(
            format!("no-kernel:{}", l.kernel),
            l.kernel.span(),
            format!(
                "no kernel named `{}` is declared{}",
                l.kernel,
                hint(&l.kernel.to_string(), names, &fallback),
            ),
        );
        // The node stays (as an empty node): its dimensions are checked, and what its
        // arguments name is marked used, with an access not known.
        unchecked(cx, uses, l);
        return None;
    };
    cx.kernels[k].used = true;
    if cx.kernels[k].broken {
        // Its declaration's error is reported; more here would be noise.
        named(cx, uses, &l.args);
        return None;
    }
    let grid = cx.value(uses, l.grid, "launch dimensions");
    let block = cx.value(uses, l.block, "launch dimensions");
    let smem = l.smem.map(|e| cx.value(uses, e, "launch dimensions"));
    let decl = &cx.kernels[k];
    if decl.params.len() != l.args.len() {
        let sig: Vec<String> = decl
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {}", param_ty_text(t)))
            .collect();
        let (want, given) = (decl.params.len(), l.args.len());
        let msg = format!(
            "kernel `{}` takes {want} argument{} ({}) but {given} {} given",
            decl.name,
            if want == 1 { "" } else { "s" },
            sig.join(", "),
            if given == 1 { "was" } else { "were" }
        );
        cx.errors.at(l.args_span, msg);
        named(cx, uses, &l.args);
        return None;
    }
    let params: Vec<(String, ParamTy)> = decl
        .params
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let kernel = decl.name.to_string();
    let mut args = Vec::new();
    let mut ok = true;
    for ((pname, ty), arg) in params.into_iter().zip(l.args) {
        let written = arg.clone();
        match lower_arg(cx, uses, &kernel, &pname, ty, arg) {
            Some(a) => args.push(a),
            None => {
                // Only this argument is broken: the others keep their uses.
                named(cx, uses, std::slice::from_ref(&written));
                ok = false;
            }
        }
    }
    Some(Launch {
        kernel: k,
        args,
        grid: grid?,
        block: block?,
        smem: smem.map_or(Some(None), |s| s.map(Some))?,
    })
    .filter(|_| ok)
}

/// A launch of a kernel that is not declared: its dimensions checked as any launch's (their
/// own mistakes reported with the kernel's), its arguments' names marked as by [`named`].
fn unchecked(cx: &mut Lower<'_>, uses: &mut Uses, l: ast::Launch) {
    let _ = cx.value(uses, l.grid, "launch dimensions");
    let _ = cx.value(uses, l.block, "launch dimensions");
    if let Some(e) = l.smem {
        let _ = cx.value(uses, e, "launch dimensions");
    }
    named(cx, uses, &l.args);
}

/// What arguments that could not be checked name: declared inputs marked used (an "unused"
/// error would only repeat theirs), buffers as touched with an access not known (no race is
/// claimed on them), condition handles as set.
fn named(cx: &mut Lower<'_>, uses: &mut Uses, args: &[Expr]) {
    for arg in args {
        for id in crate::lower::free_idents(arg.to_token_stream()) {
            if let Some(c) = cx.find_cond(&id) {
                uses.conds.insert(c);
            } else if let Some(i) = cx.find(&id) {
                cx.inputs[i].used = true;
                if cx.inputs[i].kind.buffer().is_some() {
                    uses.unknown.insert(i);
                }
            }
        }
    }
}

fn lower_arg(
    cx: &mut Lower<'_>,
    uses: &mut Uses,
    kernel: &str,
    pname: &str,
    ty: ParamTy,
    arg: Expr,
) -> Option<Arg> {
    // `Some((writes, element))` for a slice parameter.
    let slice = match &ty {
        ParamTy::Slice { mutable, elem, .. } => Some((*mutable, elem.clone())),
        ParamTy::Scalar(_) => None,
    };
    if let Expr::Index(ix) = &arg {
        if let Expr::Path(p) = &*ix.expr {
            if let (None, Some(id)) = (&p.qself, p.path.get_ident()) {
                return super::stack::lower_arg(cx, uses, kernel, pname, &ty, id, ix);
            }
        }
    }
    let named: Option<Ident> = match &arg {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    };
    if let Some(c) = named.as_ref().and_then(|id| cx.find_cond(id)) {
        let id = named.expect("a condition was found by name");
        if slice.is_some() {
            cx.errors.at(
                id.span(),
                format!("kernel `{kernel}` takes a device buffer for `{pname}`, but `{id}` is a condition handle"),
            );
            return None;
        }
        uses.conds.insert(c);
        return Some(Arg::Cond {
            cond: c,
            span: id.span(),
        });
    }
    let input = named.as_ref().and_then(|id| cx.find(id));
    let buffer = input.and_then(|i| {
        let b = cx.inputs[i].kind.buffer()?;
        Some((i, b.host, b.mutable, b.elem.clone()))
    });
    if let Some((i, ..)) = buffer {
        if cx.inputs[i]
            .kind
            .buffer()
            .is_some_and(|b| b.stack.is_some())
        {
            let id = named.expect("an input was found by name");
            let (var, rename) = match &cx.iter {
                Some(it) if it.var == "_" => (
                    "l".to_owned(),
                    format!(
                        ", naming the loop variable of `{}` (`repeat l in ..`)",
                        it.name
                    ),
                ),
                Some(it) => (it.var.to_string(), String::new()),
                None => ("l".to_owned(), String::new()),
            };
            cx.errors.at(
                id.span(),
                format!("`{id}` is a stack of buffers (`buffer {id}[..]`), and kernel `{kernel}` takes one buffer for `{pname}`; pass one of them, `{id}[{var}]`{rename}"),
            );
            return None;
        }
    }
    match (slice, buffer) {
        (Some((writes, want)), Some((i, host, mutable, elem))) => {
            let id = named.expect("an input was found by name");
            if cx.inputs[i].kind.buffer().is_some_and(|b| b.peer) {
                let what = format!("kernel `{kernel}`");
                cx.errors.once(
                    format!("peer:{id}"),
                    id.span(),
                    crate::lower::peer_misuse(&id, &what),
                );
                return None;
            }
            if host {
                cx.errors.once(
                    format!("host:{id}"),
                    id.span(),
                    format!(
                        "`{id}` is a host buffer; kernel `{kernel}` takes a device buffer for `{pname}`; copy it to a `buffer` with a `memcpy` node first"
                    ),
                );
                return None;
            }
            if writes && !mutable {
                cx.errors.once(
                    format!("read-only:{id}"),
                    id.span(),
                    format!(
                        "buffer `{id}` is read-only but kernel `{kernel}` writes its parameter `{pname}`; declare it `buffer mut {id}: ...;`"
                    ),
                );
                return None;
            }
            check_elem(cx, &id, kernel, pname, writes, &want, &elem)?;
            cx.inputs[i].used = true;
            if writes {
                uses.writes.insert(i);
            } else {
                uses.reads.insert(i);
            }
            Some(Arg::Buffer {
                input: i,
                read: mutable && !writes,
                span: id.span(),
                index: None,
            })
        }
        // A name that is nothing declared: said as any unknown buffer (with "did you mean").
        (Some((writes, _)), None)
            if named
                .as_ref()
                .is_some_and(|id| input.is_none() && cx.cond_misuse(id, "").is_none()) =>
        {
            let id = named.expect("a name");
            cx.buffer(&id, writes, false, &format!("kernel `{kernel}`"));
            None
        }
        (Some((writes, _)), None) => {
            let (m, kw) = if writes { ("mut ", " mut") } else { ("", "") };
            cx.errors.at(
                arg.span(),
                format!(
                    "kernel `{kernel}` takes a device buffer for `{pname}` (`&{m}[...]`); pass the name of a declared `buffer{kw}`"
                ),
            );
            None
        }
        (None, Some(_)) => {
            let id = named.expect("found by name");
            cx.errors.at(
                arg.span(),
                format!("kernel `{kernel}` takes a value for `{pname}`, but `{id}` is a buffer"),
            );
            None
        }
        (None, None) => {
            // A param passed as it is, whose declared type differs from the parameter's: said
            // once per param, in the declarations' words.
            if let (ParamTy::Scalar(want), Some(i)) = (&ty, input) {
                if let InputKind::Param(have) = &cx.inputs[i].kind {
                    if let (Some(w), Some(h)) = (primitive(want), primitive(have)) {
                        if w != h {
                            let id = named.expect("an input was found by name");
                            cx.errors.once(
                                format!("type:{id}:{w}"),
                                id.span(),
                                format!(
                                    "kernel `{kernel}` takes `{w}` for `{pname}`, but param `{id}` is `{h}`; declare `param {id}: {w};`, or pass `{id} as {w}`"
                                ),
                            );
                            return None;
                        }
                    }
                }
            }
            cx.value(uses, arg, "kernel arguments").map(Arg::Value)
        }
    }
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
