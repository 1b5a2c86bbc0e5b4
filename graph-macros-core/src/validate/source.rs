//! Kernel declarations checked against the CUDA C source they name (`source "file.cu";` for the
//! graph, `kernel k(...) in "file.cu";` for one kernel), read at compile time: the kernel
//! exists, with C linkage, and its parameters match in number, type and constness; a kernel
//! declared without parameters takes them from the source. Errors point at the Rust
//! declaration and quote the C one with its file and line.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::{KernelDecl, KernelParam, ParamTy, TemplateArg};
use crate::csrc::{self, CKernel, CType, Linkage};
use crate::lower::{primitive, rust_param_names};
use crate::model::Errors;

use super::file::{quote_c, Loaded};

/// A kernel declaration checked against its source.
pub(super) struct Checked {
    pub params: Vec<(Ident, ParamTy)>,
    /// The name the module finds it by, for a kernel with C++ linkage (or another C name).
    pub load: Option<String>,
    /// Rust types whose size must be a C type's: the type, the size, and the message.
    pub sizes: Vec<(Type, usize, String)>,
    /// What its source says about programmatic dependent launch.
    pub pdl: Option<crate::model::Pdl>,
}

/// `file:line: text` of a C line, as messages quote it.
fn c_line(file: &Loaded, k: &CKernel, line: usize) -> String {
    let shown = k.file.as_deref().unwrap_or(&file.shown);
    match file.src.line(k.file.as_deref(), line) {
        Some(text) => format!("{shown}:{line}: {text}"),
        None => format!("{shown}:{line}"),
    }
}

/// Whether kernel `c` may take a programmatic edge (it waits for its predecessors before it
/// uses a pointer), and whether it triggers its dependents, from its source.
fn pdl_facts(file: &Loaded, c: &CKernel) -> crate::model::Pdl {
    use csrc::pdl::Wait;
    let name = &c.name;
    let mut early = Vec::new();
    let waits = match csrc::pdl::wait(&file.src, c) {
        Wait::Proven { early: uses, .. } => {
            for (param, line) in uses {
                let index = c.params.iter().position(|p| p.name.as_deref() == Some(&param));
                early.push(crate::model::EarlyUse {
                    index: index.unwrap_or(usize::MAX),
                    line: c_line(file, c, line),
                    param,
                });
            }
            Ok(())
        }
        Wait::NoBody => Err(format!(
            "`{}` declares kernel `{name}` without its body, so the wait cannot be seen; name the file that defines it",
            c.file.as_deref().unwrap_or(&file.shown)
        )),
        Wait::Never { conditional: None } => Err(format!(
            "kernel `{name}` never waits for its predecessors: call `cudaGridDependencySynchronize()` (or `asm volatile(\"griddepcontrol.wait;\" ::: \"memory\")`) at the top of its body, before it touches memory\n  {}",
            quote_c(file, c)
        )),
        Wait::Never {
            conditional: Some((line, how)),
        } => Err(format!(
            "kernel `{name}` waits for its predecessors only inside `{how}`: on the path that skips it, it would read memory its predecessor is still writing; move the wait out of the `{how}`, to the top of the body\n  {}",
            c_line(file, c, line)
        )),
        Wait::UsedBefore {
            param,
            line,
            conditional,
        } => Err(format!(
            "kernel `{name}` uses `{param}` before it waits for its predecessors{}: it could read memory its predecessor is still writing; move the wait to the top of the body, before the first use\n  {}",
            match conditional {
                Some((l, how)) => format!(" (its only wait, at line {l}, is inside `{how}`, which some paths skip)"),
                None => " (it never waits)".to_owned(),
            },
            c_line(file, c, line)
        )),
    };
    crate::model::Pdl {
        waits,
        early,
        triggers: csrc::pdl::triggers(&file.src, c),
    }
}

/// The parameters of kernel `k` as the graph uses them: checked against `file` when the
/// Rust declaration has them, taken from `file` when it has none; and, for a kernel with C++
/// linkage, the name the module finds it by. `None`, with errors reported, when they do not
/// match or cannot be taken.
pub(super) fn kernel_params(k: &KernelDecl, file: &Loaded, errors: &mut Errors) -> Option<Checked> {
    let name = k.c_name.as_ref().unwrap_or(&k.name);
    let (c, overload) = super::pick::pick(k, file, errors)?;
    let (c, load) = match (c.linkage, &k.targs) {
        (Linkage::C, None) => (c.clone(), k.c_name.as_ref().map(|n| n.to_string())),
        (Linkage::Cpp, None) if c.in_anonymous_namespace() => {
            errors.at(
                name.span(),
                format!(
                    "kernel `{name}` is in an anonymous namespace in `{}`: its name cannot be written outside the file, so the module cannot be asked for it; move it out of the anonymous namespace\n  {}",
                    file.shown,
                    quote_c(file, c)
                ),
            );
            return None;
        }
        (Linkage::Cpp, None) => (c.clone(), Some(overload.unwrap_or_else(|| c.qualified()))),
        (Linkage::C | Linkage::Cpp, Some(((open, close), _))) => {
            errors.range(
                *open,
                *close,
                format!(
                    "kernel `{name}` is not a template in `{}`; remove the template arguments\n  {}",
                    file.shown,
                    quote_c(file, c)
                ),
            );
            return None;
        }
        (Linkage::Template, None) => {
            let header = c.template_header().unwrap_or_default();
            let example: Vec<String> = c
                .template
                .iter()
                .flatten()
                .map(|p| match &p.value {
                    None => "f32".to_owned(),
                    Some(_) => p.default.clone().unwrap_or_else(|| "256".to_owned()),
                })
                .collect();
            errors.at(
                name.span(),
                format!(
                    "kernel `{name}` is a template in `{}`: `{header}`; give its arguments, as Rust types and literals: `kernel {}<{}>;`\n  {}",
                    file.shown,
                    k.name,
                    example.join(", "),
                    quote_c(file, c)
                ),
            );
            return None;
        }
        (Linkage::Template, Some(((open, _), args))) => {
            let (inst, expr) = instance(name, c, *open, args, file, errors)?;
            (inst, Some(expr))
        }
    };
    let mut sizes = Vec::new();
    let pdl = Some(pdl_facts(file, &c));
    let params = match &k.params {
        Some(params) => check(name, params, file, &c, &mut sizes, errors),
        None => derive(name, file, &c, errors),
    };
    params.map(|params| Checked {
        params,
        load,
        sizes,
        pdl,
    })
}

/// The size of C type `c` (a struct the file defines, or a vector type), and where it is
/// defined, when known.
fn c_size(file: &Loaded, c: &str) -> Option<(usize, String)> {
    if let Some(v) = csrc::vector_type(c) {
        return Some((v.size, "a CUDA vector type".to_owned()));
    }
    let st = file.src.structs.iter().rev().find(|st| st.name == c)?;
    let (size, _) = st.layout?;
    let at = st.file.as_deref().unwrap_or(&file.shown);
    Some((size, format!("defined at {at}:{}", st.line)))
}

/// The template instance `args` make of `c`: its parameters, and its name expression.
fn instance(
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
    let mut ok = true;
    for (k, a) in args.iter().enumerate() {
        let tp = tps.get(k);
        match (a, tp) {
            (_, None) => {
                let at = match a {
                    TemplateArg::Type(t) => t.span(),
                    TemplateArg::Value { span, .. } => *span,
                };
                errors.at(
                    at,
                    format!(
                        "kernel `{name}` takes {} template argument{} (`{header}`); remove this one",
                        tps.len(),
                        if tps.len() == 1 { "" } else { "s" }
                    ),
                );
                ok = false;
            }
            (TemplateArg::Type(t), Some(tp)) if tp.value.is_none() => {
                match primitive(t).and_then(|r| csrc::c_of(&r)) {
                    Some(cty) => texts.push(cty.to_owned()),
                    None => {
                        errors.at(
                            t.span(),
                            format!(
                                "template parameter `{}` of kernel `{name}` takes a type the checker can spell in C: a Rust scalar (`f32`, `u32`, `i64`, ...), `f16`, `bf16`, or a vector type (`Float4`, ...)",
                                tp.text
                            ),
                        );
                        ok = false;
                    }
                }
            }
            (TemplateArg::Value { text, .. }, Some(tp)) if tp.value.is_some() => {
                texts.push(text.clone())
            }
            (a, Some(tp)) => {
                let (at, want) = match a {
                    TemplateArg::Type(t) => (t.span(), "a value (a literal such as `256`)"),
                    TemplateArg::Value { span, .. } => (*span, "a type (such as `f32`)"),
                };
                errors.at(
                    at,
                    format!(
                        "template parameter `{}` of kernel `{name}` takes {want} (`{header}`)",
                        tp.text
                    ),
                );
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
            inst.decl = format!("{} (with {})", c.decl, texts.join(", "));
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

fn check(
    name: &Ident,
    params: &[KernelParam],
    file: &Loaded,
    c: &CKernel,
    sizes: &mut Vec<(Type, usize, String)>,
    errors: &mut Errors,
) -> Option<Vec<(Ident, ParamTy)>> {
    if params.len() != c.params.len() {
        let n = c.params.len();
        errors.at(
            name.span(),
            format!(
                "kernel `{name}` takes {n} parameter{} in `{}` but {} {} declared here\n  {}",
                if n == 1 { "" } else { "s" },
                file.shown,
                params.len(),
                if params.len() == 1 { "is" } else { "are" },
                quote_c(file, c)
            ),
        );
        return None;
    }
    let mut ok = true;
    for (p, cp) in params.iter().zip(&c.params) {
        // A Rust type standing for a C struct or vector type: its size must be the C one's.
        let sized = match (&p.ty, &cp.ty) {
            (ParamTy::Scalar(t), CType::Other(cty)) => Some((t, cty.as_str(), "by value")),
            (ParamTy::Scalar(t), CType::Scalar { c: cty, .. }) if primitive(t).is_none() => {
                Some((t, cty.as_str(), "by value"))
            }
            (
                ParamTy::Slice { elem, .. },
                CType::Pointer {
                    pointee,
                    rust: None,
                    ..
                },
            ) if pointee != "void" => Some((elem, pointee.as_str(), "as a buffer's element")),
            _ => None,
        };
        if let Some((t, cty, how)) = sized {
            if let Some((n, at)) = c_size(file, cty) {
                let rust = quote::ToTokens::to_token_stream(t)
                    .to_string()
                    .replace(' ', "");
                sizes.push((
                    t.clone(),
                    n,
                    format!(
                        "parameter `{}` of kernel `{name}` passes `{rust}` {how} for C `{cty}` ({at}), which is {n} bytes; `{rust}` must be #[repr(C)] with the same fields",
                        p.name
                    ),
                ));
            }
        }
        let fault = match (&p.ty, &cp.ty) {
            (ParamTy::Scalar(t), CType::Scalar { rust, .. }) => match primitive(t) {
                Some(r) if r != *rust => Some((
                    one(t.span()),
                    format!(
                        "`{r}` here but `{}` in C, which is `{rust}`; write `{}: {rust}`{}",
                        cp.text,
                        p.name,
                        fp8_hint(rust)
                    ),
                )),
                _ => None,
            },
            (ParamTy::Scalar(t), CType::Pointer { rust, constant, .. }) => {
                let elem = rust.unwrap_or("T");
                let slice = if *constant {
                    format!("&[{elem}]")
                } else {
                    format!("&mut [{elem}]")
                };
                Some((
                    one(t.span()),
                    format!(
                        "a value here but a pointer in C (`{}`); write `{}: {slice}`",
                        cp.text, p.name
                    ),
                ))
            }
            (
                ParamTy::Slice {
                    mutable,
                    elem,
                    access,
                },
                CType::Pointer { rust, constant, .. },
            ) => {
                let written = if *mutable { "&mut [..]" } else { "&[..]" };
                if *mutable == *constant {
                    let (want, why) = if *constant {
                        (
                            "&",
                            "a read-only buffer: the kernel cannot write through a `const` pointer",
                        )
                    } else {
                        ("&mut ", "a writable buffer: the pointer is not `const`, so the kernel may write through it")
                    };
                    let elem_text = quote::ToTokens::to_token_stream(elem);
                    Some((*access, format!("`{written}` here but `{}` in C, {why}; write `{}: {want}[{elem_text}]`", cp.text, p.name)))
                } else {
                    let amp = if *mutable { "&mut " } else { "&" };
                    match (primitive(elem), rust) {
                        (Some(r), Some(cr)) if r != *cr => Some((one(elem.span()), format!("a buffer of `{r}` here but `{}` in C, which points at `{cr}`; write `{}: {amp}[{cr}]`{}", cp.text, p.name, fp8_hint(cr)))),
                        _ => None,
                    }
                }
            }
            (ParamTy::Slice { elem, .. }, CType::Scalar { rust, .. }) => Some((
                one(elem.span()),
                format!(
                    "a buffer here but a value in C (`{}`); write `{}: {rust}`",
                    cp.text, p.name
                ),
            )),
            // A type the checker does not know (a struct, a template parameter): the runtime
            // checks its size against the kernel's parameters when the graph is built.
            (_, CType::Other(_)) => None,
        };
        if let Some(((start, end), what)) = fault {
            ok = false;
            errors.range(
                start,
                end,
                format!(
                    "parameter `{}` of kernel `{name}` is {what}\n  {}",
                    p.name,
                    quote_c(file, c)
                ),
            );
        }
    }
    ok.then(|| {
        params
            .iter()
            .map(|p| (p.name.clone(), p.ty.clone()))
            .collect()
    })
}

/// A range of one token.
fn one(span: Span) -> (Span, Span) {
    (span, span)
}

/// The parameters taken from the C declaration, named as there (or `p0`, `p1`, ... where it
/// names none).
fn derive(
    name: &Ident,
    file: &Loaded,
    c: &CKernel,
    errors: &mut Errors,
) -> Option<Vec<(Ident, ParamTy)>> {
    let span = name.span();
    let mut out = Vec::new();
    let names = rust_param_names(
        &c.params
            .iter()
            .map(|p| p.name.as_deref())
            .collect::<Vec<_>>(),
    );
    // Parameters whose Rust type the user must name: (C parameter, what to write).
    let mut unknown: Vec<(&str, String)> = Vec::new();
    // The declaration to suggest, one `name: type` per parameter.
    let mut suggested: Vec<String> = Vec::new();
    for (cp, pname) in c.params.iter().zip(names) {
        let ty = |t: &str| -> Type {
            let mut ty: Type = syn::parse_str(&csrc::rust_path(t)).expect("a Rust type");
            set_span(&mut ty, span);
            ty
        };
        let pty = match &cp.ty {
            CType::Scalar { rust, .. } => {
                suggested.push(format!("{pname}: {rust}"));
                Some(ParamTy::Scalar(ty(rust)))
            }
            CType::Pointer {
                rust: Some(r),
                constant,
                ..
            } => {
                let amp = if *constant { "&" } else { "&mut " };
                suggested.push(format!("{pname}: {amp}[{r}]"));
                Some(ParamTy::Slice {
                    mutable: !constant,
                    elem: ty(r),
                    access: (span, span),
                })
            }
            CType::Pointer {
                pointee, constant, ..
            } if pointee == "void" => {
                // Untyped memory: a buffer of any element type.
                let amp = if *constant { "&" } else { "&mut " };
                suggested.push(format!("{pname}: {amp}[Void]"));
                Some(ParamTy::Slice {
                    mutable: !constant,
                    elem: ty("::cuda_graph::buffer::Void"),
                    access: (span, span),
                })
            }
            CType::Pointer {
                pointee, constant, ..
            } => {
                let amp = if *constant { "&" } else { "&mut " };
                let (elem, what) = {
                    (
                        rust_name(pointee),
                        format!("points at `{pointee}`: name a #[repr(C)] Rust type for it"),
                    )
                };
                suggested.push(format!("{pname}: {amp}[{elem}]"));
                unknown.push((&cp.text, what));
                None
            }
            CType::Other(t) => {
                suggested.push(format!("{pname}: {}", rust_name(t)));
                unknown.push((
                    &cp.text,
                    format!("`{t}` by value: name a #[repr(C)] Rust type for it"),
                ));
                None
            }
        };
        if let Some(p) = pty {
            out.push((Ident::new(&pname, span), p));
        }
    }
    if unknown.is_empty() {
        return Some(out);
    }
    let list: Vec<String> = unknown
        .iter()
        .map(|(text, what)| format!("`{text}` is {what}"))
        .collect();
    let list = list.join("; ").replace("is points at", "points at");
    errors.at(
        span,
        format!(
            "kernel `{name}` cannot take its parameters from `{}`: {list}; declare them, e.g. `kernel {name}({});`\n  {}",
            file.shown,
            suggested.join(", "),
            quote_c(file, c)
        ),
    );
    None
}

/// A Rust type name for C type `c` (`ScaleParams` stays, `my_params_t` is `MyParamsT`).
fn rust_name(c: &str) -> String {
    c.split(|ch: char| ch == '_' || ch.is_whitespace() || ch == ':')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| f.to_uppercase().chain(cs).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// Where a type of `cuda_graph::fp8` comes from, for a message that tells to write it: for
/// `F8E4M3`, the `use cuda_graph::fp8::F8E4M3;` to add; nothing for other types.
fn fp8_hint(rust: &str) -> String {
    let path = csrc::rust_path(rust);
    match path.strip_prefix("::") {
        Some(p) if p.starts_with("cuda_graph::fp8::") => format!(" (`use {p};`)"),
        _ => String::new(),
    }
}

/// Gives every token of `ty` the span `span` (types made from the C source point at the
/// kernel's Rust declaration).
fn set_span(ty: &mut Type, span: Span) {
    let tokens: proc_macro2::TokenStream = quote::ToTokens::to_token_stream(&*ty)
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect();
    if let Ok(t) = syn::parse2(tokens) {
        *ty = t;
    }
}
