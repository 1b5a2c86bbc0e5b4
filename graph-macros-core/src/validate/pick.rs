//! Which `__global__` declaration of a source a kernel of the graph names: by its C name and,
//! where written, its namespaces (`kernel norm = nn::rmsnorm<f16, 256>;`); among overloads, the
//! one whose parameters the graph's declaration lists; never one of two declarations that the
//! preprocessor chooses between by a macro whose value only the build knows
//! (`#if __CUDA_ARCH__ >= 800`) when they disagree. A name that is not there gets the likely
//! ones ("did you mean").

use crate::ast::{KernelDecl, KernelParam, ParamTy};
use crate::csrc::{self, CKernel, CType, Linkage};
use crate::lower::{addr_of, either, is_void, primitive, suggestions};
use crate::model::Errors;

use super::file::{macro_note, quote_c, Loaded};

/// The declaration `k` names in `file`, and for an overloaded kernel with C++ linkage the name
/// expression that finds it in the module; `None` after reporting why there is none.
pub(super) fn pick<'f>(
    k: &KernelDecl,
    file: &'f Loaded,
    errors: &mut Errors,
) -> Option<(&'f CKernel, Option<String>)> {
    let name = k.c_name.as_ref().unwrap_or(&k.name);
    let ns: Vec<String> = k.namespace.iter().map(ToString::to_string).collect();
    let written = written(&ns, &name.to_string());
    let fits_name = |c: &CKernel| *name == c.name && (ns.is_empty() || c.namespace == ns);
    let named: Vec<&CKernel> = file.src.kernels.iter().filter(|c| fits_name(c)).collect();
    if named.is_empty() {
        missing(k, &written, file, errors);
        return None;
    }
    if let [one] = named.as_slice() {
        return Some((one, None));
    }
    let span = name.span();
    let all = |cs: &[&CKernel]| -> String {
        let q: Vec<String> = cs.iter().map(|o| quote_c(file, o)).collect();
        q.join("\n  ")
    };
    // One name in several namespaces: the graph must say which.
    let first_ns = &named[0].namespace;
    if named.iter().any(|c| c.namespace != *first_ns) {
        let ways: Vec<String> = named
            .iter()
            .filter(|c| !c.in_anonymous_namespace())
            .map(|c| {
                let args = if c.template.is_some() { "<...>" } else { "" };
                format!("kernel {}{args};", c.qualified())
            })
            .collect();
        let ways: Vec<&str> = ways.iter().map(String::as_str).collect();
        errors.at(
            span,
            format!(
                "`{}` declares `{written}` in {} namespaces; name the one you want with its namespace: {}\n  {}",
                file.shown,
                named.len(),
                either(&ways),
                all(&named)
            ),
        );
        return None;
    }
    // Declarations the preprocessor chooses between by what only the build knows.
    if named.iter().any(|c| c.conditional.is_some()) {
        let mut deciding: Vec<(&str, &str)> = Vec::new();
        for c in &named {
            for d in c
                .conditional
                .as_deref()
                .map(csrc::deciding)
                .unwrap_or_default()
            {
                if !deciding.contains(&d) {
                    deciding.push(d);
                }
            }
        }
        let lines: Vec<String> = named.iter().map(|c| c.line.to_string()).collect();
        let fix = match deciding.as_slice() {
            [] => "make the declarations agree, or take the condition out of the file".to_owned(),
            ds => {
                let names: Vec<&str> = ds.iter().map(|(n, _)| *n).collect();
                let defines: Vec<&str> = ds.iter().map(|(_, w)| *w).collect();
                let mut defines = defines;
                defines.dedup();
                format!(
                    "{} decides which one NVRTC compiles and is not known when the graph is checked: give it in the graph (`{}`), or make the declarations agree",
                    either(&names),
                    defines.join("` and `")
                )
            }
        };
        errors.at(
            span,
            format!(
                "`{}` declares `{written}` {} times (lines {}) under preprocessor conditions the checker cannot evaluate, and the declarations disagree; {fix}\n  {}",
                file.shown,
                named.len(),
                lines.join(", "),
                all(&named)
            ),
        );
        return None;
    }
    // Overloads: the parameter list chooses.
    let Some(params) = &k.params else {
        let lists: Vec<String> = named
            .iter()
            .filter_map(|c| rust_list(c).map(|l| format!("`kernel {}({l});`", k.name)))
            .collect();
        let example = match lists.first() {
            Some(l) => format!(", e.g. {l}"),
            None => String::new(),
        };
        errors.at(
            span,
            format!(
                "kernel `{written}` is overloaded in `{}` ({} declarations); give the parameter list of the one you want{example}\n  {}",
                file.shown,
                named.len(),
                all(&named)
            ),
        );
        return None;
    };
    let matching: Vec<&CKernel> = named.iter().copied().filter(|c| fits(params, c)).collect();
    match matching.as_slice() {
        [one] if one.linkage == Linkage::Cpp => {
            let types: Vec<String> = one.params.iter().map(c_type_of).collect();
            let expr = format!(
                "static_cast<void (*)({})>(&{})",
                types.join(", "),
                one.qualified()
            );
            Some((one, Some(expr)))
        }
        [one] => {
            errors.at(
                span,
                format!(
                    "kernel `{written}` is an overloaded template in `{}`; overloaded templates cannot be chosen by the graph: give the one you want a name of its own in C\n  {}",
                    file.shown,
                    quote_c(file, one)
                ),
            );
            None
        }
        found => {
            errors.at(
                span,
                format!(
                    "{} of the {} overloads of kernel `{written}` in `{}` take the parameters listed; list the element and scalar types of one of them\n  {}",
                    if found.is_empty() { "none".to_owned() } else { found.len().to_string() },
                    named.len(),
                    file.shown,
                    all(&named)
                ),
            );
            None
        }
    }
}

/// `ns::name`.
fn written(ns: &[String], name: &str) -> String {
    let mut parts: Vec<&str> = ns.iter().map(String::as_str).collect();
    parts.push(name);
    parts.join("::")
}

/// Reports that `file` has no kernel `written` (`k`'s C name): left out by the preprocessor,
/// or not there, with the likely ones.
fn missing(k: &KernelDecl, written: &str, file: &Loaded, errors: &mut Errors) {
    let name = k.c_name.as_ref().unwrap_or(&k.name);
    if let Some((c, why)) = file.src.removed.iter().find(|(c, _)| *name == c.name) {
        errors.at(
            name.span(),
            format!(
                "kernel `{name}` is declared in `{}` at line {}, but the preprocessor removes it: {why}; the module built from that file has no kernel `{name}`, so change the directive (or the macro it tests, or give it with `define NAME = value;` in the graph), or move the kernel out of it",
                c.file.as_deref().unwrap_or(&file.shown), c.line
            ),
        );
        return;
    }
    // Candidates by plain name, and by qualified name where a namespace was written.
    let names: Vec<String> = file
        .src
        .kernels
        .iter()
        .map(|c| {
            if k.namespace.is_empty() {
                c.name.clone()
            } else {
                c.qualified()
            }
        })
        .collect();
    let likely = suggestions(written, names.iter().map(String::as_str));
    let hint = if likely.is_empty() {
        let mut all: Vec<&str> = file.src.kernels.iter().map(|k| k.name.as_str()).collect();
        all.dedup();
        format!(" (it declares {})", all.join(", "))
    } else {
        let at: Vec<String> = likely
            .iter()
            .map(|m| {
                let line = file
                    .src
                    .kernels
                    .iter()
                    .find(|c| c.name == *m || c.qualified() == *m)
                    .map_or(0, |c| c.line);
                format!("`{m}` ({}:{line})", file.shown)
            })
            .collect();
        let at = match at.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => at.join(""),
        };
        format!("; did you mean {at}?")
    };
    let scope = if k.namespace.is_empty() {
        String::new()
    } else {
        " (with that namespace)".to_owned()
    };
    errors.at(
        name.span(),
        format!(
            "no kernel named `{written}`{scope} in `{}`{hint}{}",
            file.shown,
            macro_note(&file.src)
        ),
    );
}

/// Whether the graph's parameter list `params` could be `c`'s: as many, each buffer's element
/// the pointee (or `Void` for `void*`) and each scalar the type.
fn fits(params: &[KernelParam], c: &CKernel) -> bool {
    params.len() == c.params.len()
        && params
            .iter()
            .zip(&c.params)
            .all(|(p, cp)| match (&p.ty, &cp.ty) {
                (ParamTy::Slice { elem, .. }, CType::Pointer { rust, pointee, .. }) => {
                    match (primitive(elem), rust) {
                        (Some(e), Some(r)) => e == *r,
                        _ => is_void(elem) == (pointee == "void"),
                    }
                }
                (ParamTy::Scalar(t), CType::Scalar { rust, .. }) => {
                    primitive(t).as_deref() == Some(rust)
                }
                (ParamTy::Scalar(t), CType::Other(_)) => primitive(t).is_none(),
                (ParamTy::Slice { elem, .. }, CType::Addresses { rust, pointee, .. }) => {
                    match addr_of(elem) {
                        None => false,
                        Some(x) => match (primitive(x), rust) {
                            (Some(e), Some(r)) => e == *r,
                            _ => is_void(x) == (pointee == "void"),
                        },
                    }
                }
                _ => false,
            })
}

/// The graph's parameter list for `c` (`x: &[f32], n: i32`), where every parameter has a
/// Rust type.
fn rust_list(c: &CKernel) -> Option<String> {
    let mut out = Vec::new();
    for (i, p) in c.params.iter().enumerate() {
        let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
        out.push(match &p.ty {
            CType::Pointer {
                rust: Some(r),
                constant,
                ..
            } => format!("{name}: &{}[{r}]", if *constant { "" } else { "mut " }),
            CType::Scalar { rust, .. } => format!("{name}: {rust}"),
            CType::Addresses {
                rust: Some(r),
                constant,
                ..
            } => format!(
                "{name}: &{}[Addr<{r}>]",
                if *constant { "" } else { "mut " }
            ),
            _ => return None,
        });
    }
    Some(out.join(", "))
}

/// A parameter's C type as written, without its name (`const float*` for `const float* x`).
fn c_type_of(p: &csrc::CParam) -> String {
    let text = p.text.replace("[]", "*");
    let words: Vec<&str> = text.split(' ').collect();
    let kept: Vec<&str> = match (&p.name, words.split_last()) {
        (Some(n), Some((last, rest))) if last == n => rest.to_vec(),
        (Some(n), Some((last, rest))) if last.strip_suffix('*') == Some(n.as_str()) => {
            let mut v = rest.to_vec();
            v.push("*");
            v
        }
        _ => words,
    };
    // `ns : : Params` (tokens joined) is `ns::Params` in C++.
    kept.join(" ")
        .replace(" *", "*")
        .replace(" : : ", "::")
        .replace(": : ", "::")
}
