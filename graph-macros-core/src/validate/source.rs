//! Kernel declarations checked against the CUDA C source they name (`source "file.cu";` for the
//! graph, `kernel k(...) in "file.cu";` for one kernel), read at compile time: the kernel
//! exists, with C linkage, and its parameters match in number, type and constness; a kernel
//! declared without parameters takes them from the source. Errors point at the Rust
//! declaration and quote the C one with its file and line.

use std::path::{Path, PathBuf};

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Type};

use crate::ast::{KernelParam, ParamTy};
use crate::csrc::{self, CKernel, CType, Linkage};
use crate::lower::{closest, primitive, rust_param_names};
use crate::model::Errors;

/// Where relative paths are looked up: the crate's manifest directory first, then the
/// directory of the file the macro is called in.
#[derive(Debug, Clone, Default)]
pub struct Dirs {
    pub manifest: Option<PathBuf>,
    pub call: Option<PathBuf>,
}

impl Dirs {
    /// The compiler's: `CARGO_MANIFEST_DIR`, and the calling file's directory if known.
    pub fn from_env(call: Option<PathBuf>) -> Self {
        Dirs {
            manifest: std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from),
            call,
        }
    }
}

/// A source file read and scanned.
pub struct Loaded {
    /// The path as written.
    pub shown: String,
    /// Where it was found.
    pub path: PathBuf,
    pub src: csrc::Source,
}

/// Reads the file `lit` names; an error at `lit` if it cannot be read or declares no kernel.
pub(super) fn load(lit: &LitStr, dirs: &Dirs, errors: &mut Errors) -> Option<Loaded> {
    let shown = lit.value();
    let rel = Path::new(&shown);
    let mut tried: Vec<PathBuf> = if rel.is_absolute() {
        vec![rel.to_owned()]
    } else {
        [&dirs.manifest, &dirs.call]
            .into_iter()
            .flatten()
            .map(|d| d.join(rel))
            .collect()
    };
    tried.dedup();
    let mut last_err = None;
    for path in &tried {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let src = csrc::parse(&text);
                if src.kernels.is_empty() {
                    let macros = macro_note(&src);
                    errors.at(
                        lit.span(),
                        format!(
                            "`{shown}` declares no `__global__` kernel; a kernel the graph can launch is declared `extern \"C\" __global__ void name(...)`{macros}"
                        ),
                    );
                    return None;
                }
                return Some(Loaded {
                    shown,
                    path: path.clone(),
                    src,
                });
            }
            Err(e) => last_err = Some(e),
        }
    }
    let why = last_err.map_or("no directory to look in".to_owned(), |e| e.to_string());
    let looked = if rel.is_absolute() {
        String::new()
    } else {
        "; looked in the crate's manifest directory and beside the file the macro is called in"
            .to_owned()
    };
    errors.at(
        lit.span(),
        format!("cannot read the CUDA source `{shown}`: {why}{looked}"),
    );
    None
}

fn macro_note(src: &csrc::Source) -> String {
    if src.function_macros.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = src
            .function_macros
            .iter()
            .map(|m| format!("`{m}`"))
            .collect();
        format!(
            " (the file defines function-like macros the checker does not expand: {})",
            names.join(", ")
        )
    }
}

/// `file:line: declaration`, as messages quote a C declaration.
fn quote_c(file: &Loaded, k: &CKernel) -> String {
    let cond = match &k.conditional {
        Some(c) => format!(" (inside `{c}`, which the checker cannot evaluate)"),
        None => String::new(),
    };
    format!("{}:{}: {}{cond}", file.shown, k.line, k.decl)
}

/// The parameters of kernel `name` as the graph uses them: checked against `file` when the
/// Rust declaration has them (`params`), taken from `file` when it has none. `None`, with
/// errors reported, when they do not match or cannot be taken.
pub(super) fn kernel_params(
    name: &Ident,
    params: Option<&[KernelParam]>,
    file: &Loaded,
    errors: &mut Errors,
) -> Option<Vec<(Ident, ParamTy)>> {
    let Some(c) = file.src.kernels.iter().find(|k| *name == k.name) else {
        if let Some((k, why)) = file.src.removed.iter().find(|(k, _)| *name == k.name) {
            errors.at(
                name.span(),
                format!(
                    "kernel `{name}` is declared in `{}` at line {}, but the preprocessor removes it: {why}; the module built from that file has no kernel `{name}`, so change the directive (or the macro it tests), or move the kernel out of it",
                    file.shown, k.line
                ),
            );
            return None;
        }
        let names: Vec<&str> = file.src.kernels.iter().map(|k| k.name.as_str()).collect();
        let hint = match closest(&name.to_string(), names.iter().copied()) {
            Some(m) => {
                let k = file
                    .src
                    .kernels
                    .iter()
                    .find(|k| k.name == m)
                    .expect("a kernel's name");
                format!("; did you mean `{m}` ({}:{})?", file.shown, k.line)
            }
            None => format!(" (it declares {})", names.join(", ")),
        };
        errors.at(
            name.span(),
            format!(
                "no kernel named `{name}` in `{}`{hint}{}",
                file.shown,
                macro_note(&file.src)
            ),
        );
        return None;
    };
    match c.linkage {
        Linkage::C => {}
        Linkage::Template => {
            errors.at(
                name.span(),
                format!(
                    "kernel `{name}` is a template in `{}`: its parameter types depend on template arguments, which the checker cannot know; declare an `extern \"C\"` kernel that calls it\n  {}",
                    file.shown,
                    quote_c(file, c)
                ),
            );
            return None;
        }
        Linkage::Cpp => {
            errors.at(
                name.span(),
                format!(
                    "kernel `{name}` has C++ linkage in `{}`: its name is mangled, so the module has no kernel called `{name}`; declare it `extern \"C\" __global__`\n  {}",
                    file.shown,
                    quote_c(file, c)
                ),
            );
            return None;
        }
    }
    match params {
        Some(params) => check(name, params, file, c, errors),
        None => derive(name, file, c, errors),
    }
}

fn check(
    name: &Ident,
    params: &[KernelParam],
    file: &Loaded,
    c: &CKernel,
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
        let fault = match (&p.ty, &cp.ty) {
            (ParamTy::Scalar(t), CType::Scalar { rust, .. }) => match primitive(t) {
                Some(r) if r != *rust => Some((
                    one(t.span()),
                    format!(
                        "`{r}` here but `{}` in C, which is `{rust}`; write `{}: {rust}`",
                        cp.text, p.name
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
                        (Some(r), Some(cr)) if r != *cr => Some((one(elem.span()), format!("a buffer of `{r}` here but `{}` in C, which points at `{cr}`; write `{}: {amp}[{cr}]`", cp.text, p.name))),
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
    let mut ok = true;
    let names = rust_param_names(
        &c.params
            .iter()
            .map(|p| p.name.as_deref())
            .collect::<Vec<_>>(),
    );
    for ((i, cp), pname) in c.params.iter().enumerate().zip(names) {
        let ty = |t: &str| -> Type {
            let mut ty: Type = syn::parse_str(t).expect("a Rust primitive type");
            set_span(&mut ty, span);
            ty
        };
        let pty = match &cp.ty {
            CType::Scalar { rust, .. } => Some(ParamTy::Scalar(ty(rust))),
            CType::Pointer {
                rust: Some(r),
                constant,
                ..
            } => Some(ParamTy::Slice {
                mutable: !constant,
                elem: ty(r),
                access: (span, span),
            }),
            CType::Pointer { pointee, .. } => {
                errors.at(
                    span,
                    format!(
                        "kernel `{name}` cannot take its parameters from `{}`: parameter {i} (`{}`) points at `{pointee}`, whose element type the checker does not know; declare the kernel with a Rust parameter list\n  {}",
                        file.shown, cp.text, quote_c(file, c)
                    ),
                );
                None
            }
            CType::Other(t) => {
                errors.at(
                    span,
                    format!(
                        "kernel `{name}` cannot take its parameters from `{}`: parameter {i} (`{}`) is of type `{t}`, which the checker does not know; declare the kernel with a Rust parameter list\n  {}",
                        file.shown, cp.text, quote_c(file, c)
                    ),
                );
                None
            }
        };
        match pty {
            Some(p) => out.push((Ident::new(&pname, span), p)),
            None => ok = false,
        }
    }
    ok.then_some(out)
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
