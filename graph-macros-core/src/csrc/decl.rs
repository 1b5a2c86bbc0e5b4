//! The declarations of a file after the preprocessor: the `__global__` functions (and the
//! `__device__` ones with a body), their linkage, namespaces, template parameters and
//! parameters, with the type aliases of the file resolved; one per signature.

use super::alias::resolve_types;
use super::lex::{self, Kind, Tok};
use super::types::{parameter, CParam};

/// How a kernel is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    /// `extern "C"`: loadable by its name.
    C,
    /// C++ linkage: its name is mangled.
    Cpp,
    /// A template (C++ linkage): its parameter types depend on template arguments.
    Template,
}

/// A template parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TParam {
    /// Its name (`T`, `BLOCK`).
    pub name: String,
    /// `None` for a type parameter (`typename T`), else the C type of a value parameter.
    pub value: Option<String>,
    /// Its default, as written.
    pub default: Option<String>,
    /// As written (`typename T`, `int BLOCK = 256`).
    pub text: String,
}

/// One `__global__` function.
#[derive(Debug, Clone)]
pub struct CKernel {
    /// Its name, as declared (unqualified).
    pub name: String,
    /// 1-based line of its declaration.
    pub line: usize,
    /// The declaration on one line, as quoted in messages.
    pub decl: String,
    /// Its parameters, in order.
    pub params: Vec<CParam>,
    /// C or C++ linkage, with its namespaces and template parameters.
    pub linkage: Linkage,
    /// The condition of an `#if`/`#ifdef` it sits in that the reader cannot evaluate.
    pub conditional: Option<String>,
    /// Macro calls in the declaration that the reader does not expand.
    pub unexpanded: Vec<String>,
    /// The namespaces around it, outermost first (`""` for an anonymous one).
    pub namespace: Vec<String>,
    /// Its template parameters, for a template.
    pub template: Option<Vec<TParam>>,
    /// The included file it is declared in (`None`: the file the graph names).
    pub file: Option<String>,
    /// Each parameter's tokens, for a template's parameters to be read again with its
    /// arguments.
    raw_params: Vec<Vec<Tok>>,
    /// The tokens of its body (empty for a declaration without one).
    pub(crate) body: Vec<Tok>,
    /// Whether it is defined here (has a body, even an empty one).
    pub(crate) defined: bool,
    /// The lines of its other declarations with the same parameters (a prototype, the other
    /// branch of an `#if` the reader cannot evaluate).
    pub also: Vec<usize>,
}

impl CKernel {
    /// Its name with its namespaces (`ops::scale`).
    pub fn qualified(&self) -> String {
        let mut parts: Vec<&str> = self.namespace.iter().map(String::as_str).collect();
        parts.push(&self.name);
        parts.join("::")
    }

    /// Whether a namespace around it is anonymous (its name cannot be written outside).
    pub fn in_anonymous_namespace(&self) -> bool {
        self.namespace.iter().any(String::is_empty)
    }

    /// The template's header as written: `template <typename T, int BLOCK>`.
    pub fn template_header(&self) -> Option<String> {
        let t = self.template.as_ref()?;
        let ps: Vec<&str> = t.iter().map(|p| p.text.as_str()).collect();
        Some(format!("template <{}>", ps.join(", ")))
    }

    /// The parameters of the template instance whose arguments are `args` (C spellings, one
    /// per template parameter; missing trailing ones take their defaults): each template
    /// parameter's name replaced by its argument. `Err` says what does not fit.
    pub fn instantiate(&self, args: &[String]) -> Result<Vec<CParam>, String> {
        let Some(tps) = &self.template else {
            return Ok(self.params.clone());
        };
        if args.len() > tps.len() {
            return Err(format!(
                "{} template argument{} given, but the template has {}",
                args.len(),
                if args.len() == 1 { "" } else { "s" },
                tps.len()
            ));
        }
        let mut values = Vec::new();
        for (k, tp) in tps.iter().enumerate() {
            match (args.get(k), &tp.default) {
                (Some(a), _) => values.push(a.clone()),
                (None, Some(d)) => values.push(d.clone()),
                (None, None) => {
                    return Err(format!(
                        "template parameter `{}` has no argument and no default",
                        tp.text
                    ))
                }
            }
        }
        Ok(self
            .raw_params
            .iter()
            .map(|toks| {
                let mut out = Vec::new();
                for t in toks {
                    match tps
                        .iter()
                        .position(|tp| t.kind == Kind::Ident && tp.name == t.text)
                    {
                        Some(k) => out.extend(lex::tokens(&values[k], t.line)),
                        None => out.push(t.clone()),
                    }
                }
                parameter(&out)
            })
            .collect())
    }
}

/// `kernels` with each function declared more than once kept once: a prototype and its
/// definition, or the branches of an `#if` the reader cannot evaluate (`__CUDA_ARCH__`) that
/// declare it alike. Declarations of one name that differ (overloads, or branches that
/// disagree) all stay, for the check to choose or to refuse.
pub(super) fn one_per_signature(kernels: Vec<CKernel>) -> Vec<CKernel> {
    let mut out: Vec<CKernel> = Vec::new();
    for k in kernels {
        let same = out.iter_mut().find(|o| {
            o.qualified() == k.qualified()
                && o.linkage == k.linkage
                && o.template == k.template
                && o.params.len() == k.params.len()
                && o.params.iter().zip(&k.params).all(|(a, b)| a.ty == b.ty)
        });
        match same {
            Some(o) => {
                if o.body.is_empty() && !k.body.is_empty() {
                    o.body = k.body;
                }
                o.defined |= k.defined;
                o.also.push(k.line);
            }
            None => out.push(k),
        }
    }
    out
}

/// Every `__device__` function with a body.
pub(super) fn device_functions(t: &[Tok], aliases: &[(String, Vec<Tok>)]) -> Vec<CKernel> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i].text == "__device__" {
            let (f, next) = declaration(t, i, i + 1, Linkage::Cpp, aliases);
            out.extend(f.filter(|f| f.defined));
            i = next.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// Attributes that may stand between `__global__` and the kernel's name, with or without a
/// parenthesised argument.
const ATTRIBUTES: &[&str] = &[
    "__launch_bounds__",
    "__attribute__",
    "__maxnreg__",
    "__cluster_dims__",
    "__declspec",
    "alignas",
    "__noinline__",
    "__forceinline__",
];

/// Finds the `__global__` functions.
pub(super) fn scan(t: &[Tok], aliases: &[(String, Vec<Tok>)]) -> Vec<CKernel> {
    let mut out = Vec::new();
    let is = |i: usize, s: &str| t.get(i).is_some_and(|x| x.text == s);
    // Brace depth, and the depths at which `extern "C" {` blocks and namespaces were opened.
    let (mut depth, mut c_blocks) = (0usize, Vec::new());
    let mut namespaces: Vec<(usize, String)> = Vec::new();
    // `extern "C"` or `template<...>` seen before the declaration being read (token index).
    let (mut extern_c, mut template) = (None::<usize>, None::<usize>);
    // A template header taken by a declaration inside an `#if` the reader cannot evaluate
    // (where it stands, the condition), for the other branches' declarations.
    let mut hanging: Option<(usize, String)> = None;
    let mut i = 0;
    while i < t.len() {
        let x = &t[i];
        if x.text == "extern" && t.get(i + 1).is_some_and(|s| s.text == "\"C\"") {
            if is(i + 2, "{") {
                c_blocks.push(depth);
                depth += 1;
                i += 3;
            } else {
                extern_c = Some(i);
                i += 2;
            }
            continue;
        }
        if x.text == "namespace" {
            // `namespace a {`, `namespace a::b {`, `namespace {`; an alias (`= ...;`) is none.
            let mut j = i + 1;
            let mut name = String::new();
            while t
                .get(j)
                .is_some_and(|y| y.kind == Kind::Ident || y.text == ":")
            {
                name.push_str(&t[j].text);
                j += 1;
            }
            if is(j, "{") {
                namespaces.push((depth, name));
                depth += 1;
                i = j + 1;
                continue;
            }
        }
        if x.text == "template" && is(i + 1, "<") {
            template = Some(i);
            i = skip_angles(t, i + 1);
            continue;
        }
        match x.text.as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if c_blocks.last() == Some(&depth) {
                    c_blocks.pop();
                }
                if namespaces.last().is_some_and(|(d, _)| *d == depth) {
                    namespaces.pop();
                }
                extern_c = None;
                template = None;
            }
            ";" => {
                extern_c = None;
                template = None;
            }
            "__global__" => {
                // `template <...>` before an `#if` the reader cannot evaluate whose branches each
                // declare the kernel belongs to every branch's declaration.
                let mut start = template.or(extern_c).unwrap_or(i);
                match (&template, &hanging, &x.cond) {
                    (Some(at), _, Some(c)) if t[*at].cond.as_ref() != Some(c) => {
                        hanging = Some((*at, c.clone()));
                    }
                    (None, Some((at, first)), Some(c))
                        if c != first && c.starts_with(first.as_str()) =>
                    {
                        template = Some(*at);
                        start = i;
                    }
                    _ => hanging = None,
                }
                let linkage = if template.is_some() {
                    Linkage::Template
                } else if extern_c.is_some() || !c_blocks.is_empty() {
                    Linkage::C
                } else {
                    Linkage::Cpp
                };
                // A template parameter is itself, whatever an alias of the same name says.
                let tparams = template.map(|at| template_params(t, at + 1));
                let own: Vec<(String, Vec<Tok>)> = aliases
                    .iter()
                    .filter(|(n, _)| !tparams.iter().flatten().any(|p| p.name == *n))
                    .cloned()
                    .collect();
                let (kernel, next) = declaration(t, start, i + 1, linkage, &own);
                out.extend(kernel.map(|mut k| {
                    if linkage != Linkage::C {
                        k.namespace = namespaces.iter().map(|(_, n)| n.clone()).collect();
                    }
                    k.template = template.map(|at| template_params(t, at + 1));
                    k
                }));
                extern_c = None;
                template = None;
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The parameters of the template whose `<` is at `open`.
fn template_params(t: &[Tok], open: usize) -> Vec<TParam> {
    let end = skip_angles(t, open).saturating_sub(1).max(open + 1);
    let inner = t.get(open + 1..end).unwrap_or_default();
    let mut out = Vec::new();
    let (mut d, mut start) = (0i32, 0);
    let mut pieces = Vec::new();
    for (k, x) in inner.iter().enumerate() {
        match x.text.as_str() {
            "(" | "[" | "{" | "<" => d += 1,
            ")" | "]" | "}" | ">" => d -= 1,
            "," if d <= 0 => {
                pieces.push(&inner[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    if start < inner.len() {
        pieces.push(&inner[start..]);
    }
    for p in pieces {
        let text = join(p);
        let (decl, default) = match p.iter().position(|x| x.text == "=") {
            Some(k) => (&p[..k], Some(join(&p[k + 1..]))),
            None => (p, None),
        };
        let idents: Vec<&Tok> = decl.iter().filter(|x| x.kind == Kind::Ident).collect();
        let name = idents.last().map(|x| x.text.clone()).unwrap_or_default();
        let kind_words: Vec<&str> = idents
            .iter()
            .take(idents.len().saturating_sub(1))
            .map(|x| x.text.as_str())
            .collect();
        let is_type = matches!(kind_words.first(), Some(&"typename" | &"class"));
        out.push(TParam {
            name,
            value: (!is_type).then(|| kind_words.join(" ")),
            default,
            text,
        });
    }
    out
}

/// Tokens joined as a C declaration reads.
fn join(t: &[Tok]) -> String {
    t.iter()
        .map(|x| x.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" *", "*")
        .replace(" : : ", "::")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

/// The index after the `<...>` starting at `i` (which is `<`).
fn skip_angles(t: &[Tok], i: usize) -> usize {
    let mut d = 0i32;
    let mut j = i;
    while j < t.len() {
        match t[j].text.as_str() {
            "<" => d += 1,
            ">" => {
                d -= 1;
                if d <= 0 {
                    return j + 1;
                }
            }
            "{" | ";" => return j,
            _ => {}
        }
        j += 1;
    }
    j
}

/// The index after the group opened at `i` (a `(`, `[` or `{`).
pub(super) fn skip_group(t: &[Tok], i: usize) -> usize {
    let (open, close) = match t.get(i).map(|x| x.text.as_str()) {
        Some("(") => ("(", ")"),
        Some("[") => ("[", "]"),
        Some("{") => ("{", "}"),
        _ => return i + 1,
    };
    let mut d = 0usize;
    let mut j = i;
    while j < t.len() {
        if t[j].text == open {
            d += 1;
        } else if t[j].text == close {
            d -= 1;
            if d == 0 {
                return j + 1;
            }
        }
        j += 1;
    }
    j
}

/// Reads the declaration whose `__global__` token ends just before `from`; returns the kernel
/// (if the declaration is one) and the index to go on scanning from (after its body, if any).
fn declaration(
    t: &[Tok],
    start: usize,
    from: usize,
    linkage: Linkage,
    aliases: &[(String, Vec<Tok>)],
) -> (Option<CKernel>, usize) {
    // The last `name (...)` before the body or `;` is the function; any earlier one is an
    // attribute or a macro call.
    let mut last: Option<(usize, usize, usize)> = None; // name, open, close (exclusive)
    let mut calls = Vec::new();
    let mut j = from;
    while j < t.len() {
        match t[j].text.as_str() {
            "{" | ";" => break,
            "(" => {
                let end = skip_group(t, j);
                if j > from && t[j - 1].kind == Kind::Ident {
                    if let Some((n, ..)) = last {
                        calls.push(t[n].text.clone());
                    }
                    last = Some((j - 1, j, end));
                }
                j = end;
            }
            _ => j += 1,
        }
    }
    let has_body = t.get(j).is_some_and(|x| x.text == "{");
    let body_end = if has_body { skip_group(t, j) } else { j + 1 };
    let body = if has_body {
        t[j + 1..body_end.saturating_sub(1).max(j + 1)].to_vec()
    } else {
        Vec::new()
    };
    let Some((n, open, close)) = last else {
        return (None, body_end);
    };
    if ATTRIBUTES.contains(&t[n].text.as_str()) {
        return (None, body_end);
    }
    let unexpanded = calls
        .into_iter()
        .filter(|c| !ATTRIBUTES.contains(&c.as_str()))
        .collect();
    let raw_params: Vec<Vec<Tok>> =
        split_params(&t[open + 1..close.saturating_sub(1).max(open + 1)])
            .iter()
            .map(|p| resolve_types(p, aliases))
            .collect();
    let params: Vec<CParam> = raw_params.iter().map(|p| parameter(p)).collect();
    let head: Vec<&str> = t[start..n]
        .iter()
        .filter(|x| !matches!(x.text.as_str(), "{"))
        .map(|x| x.text.as_str())
        .collect();
    let texts: Vec<&str> = params.iter().map(|p| p.text.as_str()).collect();
    let head = head
        .join(" ")
        .replace(" : : ", "::")
        .replace(" ( ", "(")
        .replace(" )", ")")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",");
    let decl = format!("{head} {}({})", t[n].text, texts.join(", "));
    let kernel = CKernel {
        name: t[n].text.clone(),
        line: t[n].line,
        decl,
        params,
        linkage,
        conditional: t[n].cond.clone(),
        unexpanded,
        namespace: Vec::new(),
        template: None,
        file: t[n].file.as_deref().map(str::to_owned),
        raw_params,
        body,
        defined: has_body,
        also: Vec::new(),
    };
    (Some(kernel), body_end)
}

/// Splits a parameter list at its top-level commas.
fn split_params(t: &[Tok]) -> Vec<Vec<Tok>> {
    if t.is_empty() || (t.len() == 1 && t[0].text == "void") {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut d, mut start) = (0i32, 0);
    for (k, x) in t.iter().enumerate() {
        match x.text.as_str() {
            "(" | "[" | "{" | "<" => d += 1,
            ")" | "]" | "}" | ">" => d -= 1,
            "," if d <= 0 => {
                out.push(t[start..k].to_vec());
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(t[start..].to_vec());
    out
}
