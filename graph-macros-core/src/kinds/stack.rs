//! Kernel arguments that take one buffer of a stack (`w[l]`, `w[l + 1]`, `w[0]`, `w[n - 1]`):
//! checked against the stack's declaration, and against its count where both are known at
//! compile time; what the runtime checks when the graph is built is in `expand::repeat`.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Expr, Ident};

use crate::gen::{rt, Cx};
use crate::lower::{check_elem, hint, Lower};
use crate::model::{Arg, InputKind, ParamTy, StackIndex, Uses, Value};

/// `w[index]` given for kernel `kernel`'s parameter `pname` of type `ty`.
pub(super) fn lower_arg(
    cx: &mut Lower<'_>,
    uses: &mut Uses,
    kernel: &str,
    pname: &str,
    ty: &ParamTy,
    id: &Ident,
    ix: &syn::ExprIndex,
) -> Option<Arg> {
    let ParamTy::Slice {
        mutable: writes,
        elem: want,
        ..
    } = ty
    else {
        cx.errors.at(
            id.span(),
            format!("kernel `{kernel}` takes a value for `{pname}`, but `{id}[..]` is a buffer of a stack"),
        );
        return None;
    };
    let Some(i) = cx.find(id) else {
        let names = cx
            .inputs
            .iter()
            .filter(|i| i.kind.buffer().is_some_and(|b| b.stack.is_some()))
            .map(|i| i.name.to_string())
            .collect();
        cx.errors.once(
            format!("no-buffer:{id}"),
            id.span(),
            format!(
                "no stack of buffers named `{id}` is declared{}",
                hint(
                    &id.to_string(),
                    names,
                    &format!("; declare it with `buffer {id}[n]: T;`")
                )
            ),
        );
        return None;
    };
    let (stack, mutable, elem) = match &cx.inputs[i].kind {
        InputKind::Buffer(b) => (
            b.stack.as_ref().map(|(c, _)| c.expr.clone()),
            b.mutable,
            b.elem.clone(),
        ),
        other => {
            let d = other.describe();
            cx.errors
                .at(id.span(), format!("`{id}` is {d}, not a stack of buffers"));
            return None;
        }
    };
    let Some(count) = stack else {
        cx.errors.at(
            ix.bracket_token.span.join(),
            format!("`{id}` is one buffer, not a stack, so it takes no index; pass `{id}` (a stack, one buffer per iteration, is declared `buffer {id}[n]: T;`)"),
        );
        return None;
    };
    if *writes && !mutable {
        cx.errors.once(
            format!("read-only:{id}"),
            id.span(),
            format!("stack `{id}` is read-only but kernel `{kernel}` writes its parameter `{pname}`; declare it `buffer mut {id}[..]: ...;`"),
        );
        return None;
    }
    check_elem(cx, id, kernel, pname, *writes, want, &elem)?;
    let index = index(cx, uses, &ix.index)?;
    check_range(cx, id, &count, &index, &ix.index)?;
    cx.inputs[i].used = true;
    if *writes {
        uses.writes.insert(i);
    } else {
        uses.reads.insert(i);
    }
    uses.slots.push((i, index.slot(), *writes));
    Some(Arg::Buffer {
        input: i,
        read: mutable && !*writes,
        span: id.span(),
        index: Some(index),
    })
}

/// The index: `l`, `l + c`, `l - c` (`c` a literal, `l` the loop variable of the block the
/// node is in), or an expression of params and constants (which may use `l` otherwise).
fn index(cx: &mut Lower<'_>, uses: &mut Uses, e: &Expr) -> Option<StackIndex> {
    let var = cx.iter.as_ref().map(|it| it.var.clone());
    let is_var =
        |e: &Expr| matches!(e, Expr::Path(p) if var.as_ref().is_some_and(|v| p.path.is_ident(v)));
    let offset =
        |e: &Expr| -> Option<i64> { crate::model::literal(e).and_then(|v| i64::try_from(v).ok()) };
    let e = match e {
        Expr::Paren(p) => &*p.expr,
        e => e,
    };
    match e {
        Expr::Infer(u) => {
            let block = cx
                .iter
                .as_ref()
                .map_or("a repeat block".to_owned(), |it| format!("`{}`", it.name));
            cx.errors.at(
                u.underscore_token.span,
                format!("`_` is no index: name the loop variable of {block} (`repeat l in ..`) and index with it, `[l]`"),
            );
            return None;
        }
        e if is_var(e) => return Some(StackIndex::Iter(0)),
        Expr::Binary(b) if is_var(&b.left) => match (&b.op, offset(&b.right)) {
            (syn::BinOp::Add(_), Some(c)) => return Some(StackIndex::Iter(c)),
            (syn::BinOp::Sub(_), Some(c)) => return Some(StackIndex::Iter(-c)),
            _ => {}
        },
        Expr::Binary(b) if is_var(&b.right) => {
            if let (syn::BinOp::Add(_), Some(c)) = (&b.op, offset(&b.left)) {
                return Some(StackIndex::Iter(c));
            }
        }
        _ => {}
    }
    cx.value(uses, e.clone(), "a stack index")
        .map(StackIndex::Value)
}

/// Errors for an index that is outside the stack in some iteration, where the counts are
/// known at compile time (literals, or the same expression as the block's count); the rest is
/// checked when the graph is built.
fn check_range(
    cx: &mut Lower<'_>,
    id: &Ident,
    count: &Expr,
    index: &StackIndex,
    at: &Expr,
) -> Option<()> {
    let text = |e: &Expr| e.to_token_stream().to_string();
    let stack_n = crate::model::literal(count);
    let written = text(at);
    match index {
        StackIndex::Iter(c) => {
            let it = cx
                .iter
                .clone()
                .expect("a loop variable is in a repeat block");
            let (var, block) = (&it.var, &it.name);
            if *c < 0 {
                let (a, b) = ends(at);
                cx.errors.range(
                    a,
                    b,
                    format!(
                        "in iteration 0 of `{block}`, `{id}[{written}]` is `{id}[{c}]`, before the stack's first buffer; index with `{var}` plus a literal of 0 or more, and take the buffer before the block's first iteration outside the block"
                    ),
                );
                return None;
            }
            let block_n = crate::model::literal(&it.count);
            let same = text(&it.count) == text(count);
            let past = match (block_n, stack_n) {
                (Some(b), Some(s)) if b >= 1 => (b - 1 + *c as i128 >= s).then(|| {
                    format!(
                        "in iteration {} (the last) of `{block}`, `{id}[{written}]` is `{id}[{}]`, past the end of `{id}`, which holds {s} buffer{}",
                        b - 1,
                        b - 1 + *c as i128,
                        if s == 1 { "" } else { "s" }
                    )
                }),
                _ if same && *c > 0 => Some(format!(
                    "in the last iteration of `{block}` (`{var}` = {n} - 1), `{id}[{written}]` is `{id}[{}]`, past the end of `{id}`, which holds {n} buffers",
                    if *c == 1 { text(count) } else { format!("{} + {}", text(count), c - 1) },
                    n = text(count)
                )),
                _ => None,
            };
            if let Some(msg) = past {
                let (a, b) = ends(at);
                cx.errors.range(
                    a,
                    b,
                    format!("{msg}; declare a longer stack or index within it"),
                );
                return None;
            }
        }
        StackIndex::Value(v) if !v.iter => {
            if let (Some(i), Some(s)) = (v.literal(), stack_n) {
                if i < 0 || i >= s {
                    let (a, b) = ends(at);
                    cx.errors.range(
                        a,
                        b,
                        format!(
                            "`{id}[{i}]` is outside the stack `{id}`, which holds {s} buffer{} (`{id}[0]` to `{id}[{}]`)",
                            if s == 1 { "" } else { "s" },
                            s - 1
                        ),
                    );
                    return None;
                }
            }
        }
        StackIndex::Value(_) => {}
    }
    Some(())
}

/// The spans of the first and last tokens of `e`, for an error over all of it.
fn ends(e: &Expr) -> (proc_macro2::Span, proc_macro2::Span) {
    let tokens: Vec<proc_macro2::TokenTree> = e.to_token_stream().into_iter().collect();
    let first = tokens
        .first()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span());
    (first, tokens.last().map_or(first, |t| t.span()))
}

/// How a stack's buffer is written: `w[l + 1]`.
pub(crate) fn written(stack: &Ident, var: &str, slot: crate::model::Slot) -> String {
    use crate::model::Slot;
    match slot {
        Slot::Iter(0) => format!("{stack}[{var}]"),
        Slot::Iter(c) if c > 0 => format!("{stack}[{var} + {c}]"),
        Slot::Iter(c) => format!("{stack}[{var} - {}]", -c),
        Slot::Const(c) => format!("{stack}[{c}]"),
        Slot::Any => format!("{stack}[..]"),
    }
}

/// A stack's count (`buffer w[count]: T;`): an expression of params and constants, checked
/// like any other; a literal must be above 0.
pub(crate) fn check_counts(cx: &mut Lower<'_>) {
    for i in 0..cx.inputs.len() {
        let (expr, span) = match cx.inputs[i].kind.buffer().and_then(|b| b.stack.as_ref()) {
            Some((v, span)) => (v.expr.clone(), *span),
            None => continue,
        };
        let name = cx.inputs[i].name.clone();
        if matches!(cx.inputs[i].kind.buffer(), Some(b) if b.host) {
            cx.errors.at(span, format!("host buffer `{name}` cannot be a stack: a stack holds device buffers, one per iteration of a repeat block; declare `buffer {name}[..]: T;`"));
            continue;
        }
        if crate::model::literal(&expr).is_some_and(|n| n < 1) {
            cx.errors
                .at(span, format!("stack `{name}` needs at least one buffer"));
            continue;
        }
        let value: Option<Value> = cx.value(&mut Uses::default(), expr, "the count of a stack");
        if let (Some(v), InputKind::Buffer(b)) = (value, &mut cx.inputs[i].kind) {
            b.stack = Some((v, span));
        }
    }
}

/// `[i]` after a stack's field in node `ni`'s node function: the position of the buffer its
/// argument takes (the loop variable is bound there; `build` checked every position); nothing
/// for a plain buffer.
pub(super) fn position(cx: &Cx<'_>, ni: usize, index: Option<&StackIndex>) -> TokenStream {
    let rt = rt();
    match index {
        None => TokenStream::new(),
        Some(StackIndex::Iter(0)) => {
            let var = cx.loop_var(ni);
            quote!([#var])
        }
        Some(StackIndex::Iter(c)) => {
            let var = cx.loop_var(ni);
            quote!([#rt::__private::at(#var as i64 + #c)])
        }
        Some(StackIndex::Value(v)) => {
            let e = &v.expr;
            quote!([#rt::__private::at(#e)])
        }
    }
}
