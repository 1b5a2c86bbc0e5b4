//! Kernel declarations checked against the CUDA C source they name (`source "file.cu";` for the
//! graph, `kernel k(...) in "file.cu";` for one kernel), read at compile time: the kernel
//! exists, with C linkage, and its parameters match in number, type and constness; a kernel
//! declared without parameters takes them from the source. Errors point at the Rust
//! declaration and quote the C one with its file and line.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::{KernelDecl, KernelParam, ParamTy};
use crate::csrc::{self, CKernel, CType, Linkage};
use crate::lower::{addr_of, is_void, primitive};
use crate::model::{Errors, LayoutCheck};

use super::file::{quote_c, Loaded};

/// A kernel declaration checked against its source.
pub(super) struct Checked {
    pub params: Vec<(Ident, ParamTy)>,
    /// The name the module finds it by, for a kernel with C++ linkage (or another C name).
    pub load: Option<String>,
    /// Rust types whose layout must be a C type's.
    pub sizes: Vec<LayoutCheck>,
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
                // An array of addresses, a tensor map, or a buffer of tensor maps: each holds
                // addresses of memory the graph does not track.
                let addresses = index.is_some_and(|i| {
                    matches!(
                        c.params[i].ty,
                        CType::Addresses { .. }
                            | CType::Scalar {
                                rust: "TensorMap",
                                ..
                            }
                            | CType::Pointer {
                                rust: Some("TensorMap"),
                                ..
                            }
                    )
                });
                early.push(crate::model::EarlyUse {
                    index: index.unwrap_or(usize::MAX),
                    through: addresses,
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
            let (inst, expr) = super::instance::instance(name, c, *open, args, file, errors)?;
            (inst, Some(expr))
        }
    };
    let mut sizes = Vec::new();
    let pdl = Some(pdl_facts(file, &c));
    let params = match &k.params {
        Some(params) => check(name, params, file, &c, &mut sizes, errors),
        None => super::derive::derive(k, file, &c, errors),
    };
    params.map(|params| Checked {
        params,
        load,
        sizes,
        pdl,
    })
}

/// The layout check of Rust type `t`, standing for C type `cty` (`how`: by value, as a
/// buffer's element, ...) in parameter `param` of kernel `name`: its size and alignment must
/// be the C type's, where the reader knows them (a scalar, a vector or fp8 type, a struct the
/// file defines with every field known). `None` where it does not.
fn layout_check(
    name: &Ident,
    param: &Ident,
    t: &Type,
    cty: &str,
    how: &str,
    file: &Loaded,
) -> Option<LayoutCheck> {
    let ((size, align), st) = csrc::c_layout(cty, &file.src.structs)?;
    let at = match st {
        Some(st) => format!(
            "defined at {}:{}",
            st.file.as_deref().unwrap_or(&file.shown),
            st.line
        ),
        None if csrc::vector_type(cty).is_some() => "a CUDA vector type".to_owned(),
        None => "a C type".to_owned(),
    };
    // A tensor map is 64-byte aligned before CUDA 13 and 128-byte aligned since: only its
    // size is the same everywhere.
    let align = (!cty.starts_with("CUtensorMap")).then_some(align);
    let rust = quote::ToTokens::to_token_stream(t)
        .to_string()
        .replace(' ', "");
    let aligned = match align {
        Some(a) => format!(" and {a}-byte aligned"),
        None => String::new(),
    };
    Some(LayoutCheck {
        ty: t.clone(),
        size,
        align,
        msg: format!(
            "parameter `{param}` of kernel `{name}` passes `{rust}` {how} for C `{cty}` ({at}), which is {size} bytes{aligned}; `{rust}` must be #[repr(C)] with the same fields"
        ),
    })
}

fn check(
    name: &Ident,
    params: &[KernelParam],
    file: &Loaded,
    c: &CKernel,
    sizes: &mut Vec<LayoutCheck>,
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
        // A Rust type standing for a C type: its size and alignment must be the C one's.
        let sized = match (&p.ty, &cp.ty) {
            (ParamTy::Scalar(t), CType::Other(cty)) => Some((t, cty.as_str(), "by value")),
            (ParamTy::Scalar(t), CType::Scalar { c: cty, .. }) if primitive(t).is_none() => {
                Some((t, cty.as_str(), "by value"))
            }
            (ParamTy::Slice { elem, .. }, CType::Pointer { pointee, .. })
                if pointee != "void" && primitive(elem).is_none() && !is_void(elem) =>
            {
                Some((elem, pointee.as_str(), "as a buffer's element"))
            }
            (ParamTy::Slice { elem, .. }, CType::Addresses { pointee, .. }) => addr_of(elem)
                .filter(|x| pointee != "void" && primitive(x).is_none() && !is_void(x))
                .map(|x| (x, pointee.as_str(), "as what a buffer's addresses point at")),
            _ => None,
        };
        if let Some((t, cty, how)) = sized {
            sizes.extend(layout_check(name, &p.name, t, cty, how, file));
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
            (ParamTy::Scalar(t), CType::Addresses { .. }) => Some((
                one(t.span()),
                format!(
                    "a value here but an array of device addresses in C (`{}`); write `{}: {}`",
                    cp.text,
                    p.name,
                    addresses_slice(&cp.ty)
                ),
            )),
            (
                ParamTy::Slice {
                    mutable,
                    elem,
                    access,
                },
                CType::Addresses {
                    rust,
                    pointee,
                    constant,
                    ..
                },
            ) => {
                let want = addresses_slice(&cp.ty);
                let inner = addr_of(elem);
                if *mutable == *constant {
                    let why = if *constant {
                        "a read-only buffer: the kernel cannot write a `const` array of addresses"
                    } else {
                        "a writable buffer: the array of addresses is not `const`, so the kernel may write it"
                    };
                    Some((
                        *access,
                        format!(
                            "`{}` here but `{}` in C, {why}; write `{}: {want}`",
                            if *mutable { "&mut [..]" } else { "&[..]" },
                            cp.text,
                            p.name
                        ),
                    ))
                } else {
                    match inner {
                        None => Some((one(elem.span()), format!("a buffer of `{}` here but `{}` in C, an array of device addresses; write `{}: {want}` (`use cuda_graph::buffer::Addr;`)", quote::ToTokens::to_token_stream(elem).to_string().replace(' ', ""), cp.text, p.name))),
                        Some(x) => {
                            let wrong = match (primitive(x), rust) {
                                (Some(r), Some(cr)) => r != *cr,
                                (Some(_), None) => true,
                                (None, _) => is_void(x) && pointee != "void",
                            };
                            wrong.then(|| (one(x.span()), format!("an array of addresses of `{}` here but `{}` in C; write `{}: {want}`", quote::ToTokens::to_token_stream(x).to_string().replace(' ', ""), cp.text, p.name)))
                        }
                    }
                }
            }
            (ParamTy::Scalar(_), CType::Other(_)) | (ParamTy::Slice { .. }, CType::Other(_)) => {
                // A type the checker does not know (a struct, a template parameter): the
                // runtime checks its size against the kernel's parameters when the graph is
                // built.
                None
            }
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

/// What a parameter of C type `ty` (an array of addresses) is written as in the graph:
/// `&mut [Addr<f32>]`.
fn addresses_slice(ty: &CType) -> String {
    match ty {
        CType::Addresses {
            rust,
            pointee,
            constant,
            ..
        } => {
            let amp = if *constant { "&" } else { "&mut " };
            let inner = match (rust, pointee.as_str()) {
                (Some(r), _) => (*r).to_owned(),
                (None, "void") => "Void".to_owned(),
                (None, p) => super::derive::rust_name(p),
            };
            format!("{amp}[Addr<{inner}>]")
        }
        _ => String::new(),
    }
}

/// A range of one token.
fn one(span: Span) -> (Span, Span) {
    (span, span)
}

/// Where a type of `cuda_graph::fp8` (or the tensor map and tag types of `cuda_graph::kernel`)
/// comes from, for a message that tells to write it: for `F8E4M3`, the
/// `use cuda_graph::fp8::F8E4M3;` to add; nothing for other types.
fn fp8_hint(rust: &str) -> String {
    let path = csrc::rust_path(rust);
    match path.strip_prefix("::") {
        Some(p)
            if p.starts_with("cuda_graph::fp8::")
                || matches!(
                    p,
                    "cuda_graph::kernel::Tag" | "cuda_graph::kernel::TensorMap"
                ) =>
        {
            format!(" (`use {p};`)")
        }
        _ => String::new(),
    }
}
