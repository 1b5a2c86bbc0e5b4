//! A template kernel's instance (`kernel ln = layernorm<f32, 256>;`): each argument checked
//! against its template parameter and spelled in C: a Rust type as its C type, a literal as
//! written, an enumerator of an enum the source defines (`ScaleMode::kNone`) by its qualified
//! name, its value read from the source. An enumerator the enum does not have is an error with
//! the likely ones.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::TemplateArg;
use crate::csrc::{self, CEnum, CKernel};
use crate::lower::{either, primitive, suggestions};
use crate::model::Errors;

use super::file::{quote_c, Loaded};

/// The template instance `args` make of `c`: its parameters, and its name expression.
pub(super) fn instance(
    name: &Ident,
    c: &CKernel,
    span: Span,
    args: &[TemplateArg],
    file: &Loaded,
    errors: &mut Errors,
) -> Option<(CKernel, String)> {
    let tps = c.template.clone().unwrap_or_default();
    let header = c.template_header().unwrap_or_default();
    let mut texts = Vec::new();
    // How each argument reads in messages (an enumerator with its value).
    let mut shown = Vec::new();
    let mut ok = true;
    for (k, a) in args.iter().enumerate() {
        let tp = tps.get(k);
        let arg_span = match a {
            TemplateArg::Type(t) => t.span(),
            TemplateArg::Value { span, .. } => *span,
        };
        let Some(tp) = tp else {
            errors.at(
                arg_span,
                format!(
                    "kernel `{name}` takes {} template argument{} (`{header}`); remove this one",
                    tps.len(),
                    if tps.len() == 1 { "" } else { "s" }
                ),
            );
            ok = false;
            continue;
        };
        let the = format!("template parameter `{}` of kernel `{name}`", tp.text);
        // The enum a value parameter's type names, if the source defines it.
        let enum_ty = tp.value.as_deref().and_then(|v| enum_of(v, c, file));
        match (a, &tp.value, enum_ty) {
            (TemplateArg::Type(t), None, _) => match primitive(t).and_then(|r| csrc::c_of(&r)) {
                Some(cty) => {
                    texts.push(cty.to_owned());
                    shown.push(cty.to_owned());
                }
                None => {
                    errors.at(
                        t.span(),
                        format!(
                            "{the} takes a type the checker can spell in C: a Rust scalar (`f32`, `u32`, `i64`, ...), `f16`, `bf16`, or a vector type (`Float4`, ...)"
                        ),
                    );
                    ok = false;
                }
            },
            (TemplateArg::Type(t), Some(_), Some(Ok(e))) => match enumerator(t, e, &file.shown) {
                Ok((text, value)) => {
                    shown.push(match value {
                        Some(v) => format!("{text} = {v}"),
                        None => text.clone(),
                    });
                    texts.push(text);
                }
                Err((at, why)) => {
                    errors.at(
                        at,
                        format!("{the} takes an enumerator of `{}`: {why}", e.qualified()),
                    );
                    ok = false;
                }
            },
            (TemplateArg::Type(t), Some(ty), Some(Err(found))) => {
                let ty = type_words(ty).join("::");
                errors.at(t.span(), format!("{the} takes a `{ty}`, {found}"));
                ok = false;
            }
            (TemplateArg::Value { span, .. }, Some(_), Some(Ok(e))) => {
                errors.at(
                    *span,
                    format!(
                        "{the} takes an enumerator of `{}` (C++ converts no integer to an enum); write one of {}",
                        e.qualified(),
                        listed(e)
                    ),
                );
                ok = false;
            }
            (TemplateArg::Value { text, .. }, Some(_), _) => {
                texts.push(text.clone());
                shown.push(text.clone());
            }
            (a, _, _) => {
                let (at, want) = match a {
                    TemplateArg::Type(t) => (t.span(), "a value (a literal such as `256`)"),
                    TemplateArg::Value { span, .. } => (*span, "a type (such as `f32`)"),
                };
                errors.at(at, format!("{the} takes {want} (`{header}`)"));
                ok = false;
            }
        }
    }
    if !ok {
        return None;
    }
    match c.instantiate(&texts) {
        Ok(params) => {
            let mut inst = c.clone();
            inst.params = params;
            inst.decl = format!("{} (with {})", c.decl, shown.join(", "));
            let expr = format!("{}<{}>", c.qualified(), texts.join(", "));
            Some((inst, expr))
        }
        Err(why) => {
            errors.at(
                span,
                format!(
                    "kernel `{name}` cannot be instantiated so: {why} (`{header}`)\n  {}",
                    quote_c(file, c)
                ),
            );
            None
        }
    }
}

/// The words of a C type as [`TParam::value`] holds them (`const ops ScaleMode`), without
/// qualifiers.
fn type_words(ty: &str) -> Vec<&str> {
    ty.split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "typename" | "enum" | "class" | "struct"
            )
        })
        .collect()
}

/// The enum the C type `ty` (a value parameter's, of kernel `c`) names, if it names one the
/// source defines: `Ok` with it, `Err` with why none can be taken when the name is an enum's
/// the reader cannot tell apart or cannot see. `None`: the type is no enum's (an integer).
fn enum_of<'f>(ty: &str, c: &CKernel, file: &'f Loaded) -> Option<Result<&'f CEnum, String>> {
    let words = type_words(ty);
    let (last, quals) = words.split_last()?;
    let own = c.template.iter().flatten().any(|p| p.name == *last);
    if own || csrc::c_of(last).is_some() || is_integer(&words) {
        return None;
    }
    // The enums of that name whose scope ends with the qualifiers written.
    let named: Vec<&CEnum> = file
        .src
        .enums
        .iter()
        .filter(|e| {
            e.name == *last
                && e.scope
                    .ends_with(&quals.iter().map(|q| (*q).to_owned()).collect::<Vec<_>>())
        })
        .collect();
    // Among several, the one C++ finds from the kernel's namespace: the innermost scope that
    // is a prefix of the kernel's namespaces.
    let best = named
        .iter()
        .filter(|e| {
            c.namespace
                .starts_with(&e.scope[..e.scope.len() - quals.len()])
        })
        .max_by_key(|e| e.scope.len());
    match (best, named.as_slice()) {
        (Some(e), _) => {
            let depth = e.scope.len();
            let rivals = named
                .iter()
                .filter(|o| o.scope.len() == depth && o.scope != e.scope)
                .count();
            if rivals > 0 {
                return Some(Err(format!(
                    "which `{}` declares more than once; qualify its type",
                    file.shown
                )));
            }
            Some(Ok(e))
        }
        (None, [one, ..]) => Some(Ok(one)),
        (None, []) => {
            // An enum the reader cannot see (a system header's) or a typedef of an integer.
            let enumish = words
                .iter()
                .any(|w| w.chars().next().is_some_and(char::is_uppercase));
            enumish.then(|| {
                Err(format!(
                    "which neither `{}` nor a file it includes with `#include \"...\"` defines, so its enumerators cannot be checked; define it in a file the source includes, or give the kernel a template parameter of an integer type",
                    file.shown
                ))
            })
        }
    }
}

/// Whether `words` are a C integer or boolean type (`int`, `unsigned`, `uint32_t`, `bool`).
fn is_integer(words: &[&str]) -> bool {
    !words.is_empty()
        && words.iter().all(|w| {
            matches!(
                *w,
                "int"
                    | "unsigned"
                    | "signed"
                    | "long"
                    | "short"
                    | "char"
                    | "bool"
                    | "size_t"
                    | "int8_t"
                    | "int16_t"
                    | "int32_t"
                    | "int64_t"
                    | "uint8_t"
                    | "uint16_t"
                    | "uint32_t"
                    | "uint64_t"
                    | "uint"
                    | "index_t"
                    | "auto"
            )
        })
}

/// The enumerator of `e` that the Rust path `t` names (`ScaleMode::kNone`, `ops::ScaleMode::
/// kNone`, or `kNone` alone for an unscoped enum): its qualified C name and its value. `Err`:
/// where and why not.
fn enumerator(t: &Type, e: &CEnum, shown: &str) -> Result<(String, Option<i64>), (Span, String)> {
    let path = match t {
        Type::Path(p)
            if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none()) =>
        {
            &p.path
        }
        _ => return Err((t.span(), format!("write one of {}", listed(e)))),
    };
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (last, quals) = segs.split_last().expect("a path has a segment");
    let last_span = path.segments.last().map_or(t.span(), |s| s.ident.span());
    let mut full = e.scope.clone();
    full.push(e.name.clone());
    // Qualifiers: a tail of the enum's full name (its name at least), or, for an unscoped
    // enum, a tail of its scope (nothing at all among them).
    let named = !quals.is_empty() && full.ends_with(quals);
    if !(named || (!e.scoped && e.scope.ends_with(quals))) {
        let msg = if quals.is_empty() {
            // A bare enumerator of a scoped enum: C++ names it through its enum.
            format!(
                "`{}` is an `enum class`, whose enumerators are named through it; write `{}::{last}`",
                e.qualified(),
                e.name
            )
        } else {
            format!(
                "`{}` is not `{}`; write `{}::{last}`",
                quals.join("::"),
                e.qualified(),
                e.name
            )
        };
        return Err((t.span(), msg));
    }
    match e.values.iter().find(|(n, _)| n == last) {
        Some((n, v)) => Ok((format!("{}::{n}", e.qualified()), *v)),
        None => {
            let names: Vec<&str> = e.values.iter().map(|(n, _)| n.as_str()).collect();
            let likely: Vec<String> = suggestions(last, names.iter().copied())
                .into_iter()
                .map(|n| format!("{}::{n}", e.name))
                .collect();
            let hint = if likely.is_empty() {
                format!("write one of {}", listed(e))
            } else {
                let l: Vec<&str> = likely.iter().map(String::as_str).collect();
                format!("did you mean {}?", either(&l))
            };
            Err((
                last_span,
                format!(
                    "`{}` has no enumerator `{last}` ({}); {hint}",
                    e.name,
                    defined_at(e, shown)
                ),
            ))
        }
    }
}

/// Where `e` is defined (`shown`: the graph's file, as written), for messages.
fn defined_at(e: &CEnum, shown: &str) -> String {
    format!(
        "defined at {}:{}",
        e.file.as_deref().unwrap_or(shown),
        e.line
    )
}

/// `` `E::A`, `E::B` or `E::C` `` (the first few).
fn listed(e: &CEnum) -> String {
    let names: Vec<String> = e
        .values
        .iter()
        .take(4)
        .map(|(n, _)| format!("{}::{n}", e.name))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let more = if e.values.len() > 4 { " (...)" } else { "" };
    format!("{}{more}", either(&names))
}
