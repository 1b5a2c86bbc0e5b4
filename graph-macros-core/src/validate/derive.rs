//! A kernel declared without a parameter list (`kernel saxpy;`) takes its parameters from the
//! C declaration: each C type made the Rust type the graph uses (a scalar, a buffer, a buffer
//! of device addresses), named as in C. A parameter whose Rust type the user must name (a
//! struct) is an error that suggests the whole declaration to write.

use proc_macro2::Span;
use syn::{Ident, Type};

use crate::ast::{KernelDecl, ParamTy, TemplateArg};
use crate::csrc::{self, CKernel, CType};
use crate::lower::rust_param_names;
use crate::model::Errors;

use super::file::{quote_c, Loaded};

/// The parameters taken from the C declaration, named as there (or `p0`, `p1`, ... where it
/// names none).
pub(super) fn derive(
    k: &KernelDecl,
    file: &Loaded,
    c: &CKernel,
    errors: &mut Errors,
) -> Option<Vec<(Ident, ParamTy)>> {
    let name = k.c_name.as_ref().unwrap_or(&k.name);
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
    let ty = |t: &str| -> Type {
        let mut ty: Type = syn::parse_str(t).expect("a Rust type");
        set_span(&mut ty, span);
        ty
    };
    for (cp, pname) in c.params.iter().zip(names) {
        let amp = |constant: bool| if constant { "&" } else { "&mut " };
        let pty = match &cp.ty {
            CType::Scalar { rust, .. } => {
                suggested.push(format!("{pname}: {rust}"));
                Some(ParamTy::Scalar(ty(&csrc::rust_path(rust))))
            }
            CType::Pointer {
                rust: Some(r),
                constant,
                ..
            } => {
                suggested.push(format!("{pname}: {}[{r}]", amp(*constant)));
                Some(slice(*constant, ty(&csrc::rust_path(r)), span))
            }
            CType::Pointer {
                pointee, constant, ..
            } if pointee == "void" => {
                // Untyped memory: a buffer of any element type.
                suggested.push(format!("{pname}: {}[Void]", amp(*constant)));
                Some(slice(*constant, ty("::cuda_graph::buffer::Void"), span))
            }
            CType::Pointer {
                pointee, constant, ..
            } => {
                suggested.push(format!(
                    "{pname}: {}[{}]",
                    amp(*constant),
                    rust_name(pointee)
                ));
                unknown.push((
                    &cp.text,
                    format!("points at `{pointee}`: name a #[repr(C)] Rust type for it"),
                ));
                None
            }
            CType::Addresses {
                pointee,
                rust,
                constant,
                ..
            } => {
                // A buffer of device addresses (`Addr<T>`).
                let inner = match (rust, pointee.as_str()) {
                    (Some(r), _) => Some(((*r).to_owned(), csrc::rust_path(r))),
                    (None, "void") => {
                        Some(("Void".to_owned(), "::cuda_graph::buffer::Void".to_owned()))
                    }
                    (None, _) => None,
                };
                match inner {
                    Some((short, path)) => {
                        suggested.push(format!("{pname}: {}[Addr<{short}>]", amp(*constant)));
                        let elem = ty(&format!("::cuda_graph::buffer::Addr<{path}>"));
                        Some(slice(*constant, elem, span))
                    }
                    None => {
                        suggested.push(format!(
                            "{pname}: {}[Addr<{}>]",
                            amp(*constant),
                            rust_name(pointee)
                        ));
                        unknown.push((
                            &cp.text,
                            format!("an array of addresses of `{pointee}`: name a #[repr(C)] Rust type for it"),
                        ));
                        None
                    }
                }
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
            "kernel `{name}` cannot take its parameters from `{}`: {list}; declare them, e.g. `kernel {}({});`\n  {}",
            file.shown,
            head(k),
            suggested.join(", "),
            quote_c(file, c)
        ),
    );
    None
}

/// A buffer parameter: read-only when `constant`.
fn slice(constant: bool, elem: Type, span: Span) -> ParamTy {
    ParamTy::Slice {
        mutable: !constant,
        elem,
        access: (span, span),
    }
}

/// The kernel's declaration as the graph writes it, up to its parameter list:
/// `norm = nn::rmsnorm<f16, 256>`.
fn head(k: &KernelDecl) -> String {
    let mut out = k.name.to_string();
    let mut path: Vec<String> = k.namespace.iter().map(ToString::to_string).collect();
    match &k.c_name {
        Some(c) => {
            path.push(c.to_string());
            out = format!("{out} = {}", path.join("::"));
        }
        None if !path.is_empty() => {
            path.push(out);
            out = path.join("::");
        }
        None => {}
    }
    if let Some((_, args)) = &k.targs {
        let args: Vec<String> = args
            .iter()
            .map(|a| match a {
                TemplateArg::Type(t) => quote::ToTokens::to_token_stream(t)
                    .to_string()
                    .replace(" :: ", "::")
                    .replace(" < ", "<")
                    .replace(" >", ">"),
                TemplateArg::Value { text, .. } => text.clone(),
            })
            .collect();
        out = format!("{out}<{}>", args.join(", "));
    }
    out
}

/// A Rust type name for C type `c` (`ScaleParams` stays, `my_params_t` is `MyParamsT`,
/// `paged_kv_t<half, int>` is `PagedKvTHalfInt`).
pub(super) fn rust_name(c: &str) -> String {
    let name: String = c
        .split(|ch: char| !ch.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| f.to_uppercase().chain(cs).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    match name.chars().next() {
        Some(ch) if ch.is_ascii_alphabetic() => name,
        _ => format!("T{name}"),
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
