//! Reading kernel declarations from CUDA C source, at compile time.
//!
//! Not a C++ compiler: a preprocessor (`#include "..."`, object-like and function-like macros,
//! `#if` with integer expressions and `defined`), a lexer, and a scanner that finds
//! `__global__` function declarations, their parameter lists, the namespaces around them and
//! their template parameters, and the layout of the structs the file defines. What it cannot
//! decide it says: kernels inside a conditional it cannot evaluate, headers it cannot read. It
//! never panics on any input.

mod layout;
mod lex;
pub mod pdl;
mod pp;

use std::path::{Path, PathBuf};

pub use layout::{vector_type, CStruct, VECTOR_TYPES};
use lex::{lex, Kind, Pre, Tok};

/// A CUDA source file, as far as kernels go.
#[derive(Debug, Default)]
pub struct Source {
    pub kernels: Vec<CKernel>,
    /// Kernels the preprocessor leaves out (`#if 0`, an `#ifndef` of a macro the file
    /// defines, ...), each with why.
    pub removed: Vec<(CKernel, String)>,
    /// Files read through `#include "..."`: the name as written and where it was found.
    pub includes: Vec<(String, PathBuf)>,
    /// What the reader could not read (an include not found, ...), for messages.
    pub notes: Vec<String>,
    /// Structs (and typedefs of structs) the file defines, with their layout where known.
    pub structs: Vec<CStruct>,
    /// `__device__` functions with a body: what programmatic-launch checks follow into.
    pub(crate) device_fns: Vec<CKernel>,
    /// The text of the file and of every file it includes (`None`: the file itself), by line,
    /// for messages that quote C.
    lines: Vec<(Option<String>, Vec<String>)>,
}

impl Source {
    /// Line `line` (1-based) of the file (`None`) or of the included file `file`, trimmed.
    pub fn line(&self, file: Option<&str>, line: usize) -> Option<&str> {
        let (_, lines) = self.lines.iter().find(|(f, _)| f.as_deref() == file)?;
        lines.get(line.checked_sub(1)?).map(|l| l.trim())
    }
}

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
    pub name: String,
    /// 1-based line of its declaration.
    pub line: usize,
    /// The declaration on one line, as quoted in messages.
    pub decl: String,
    pub params: Vec<CParam>,
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

/// One parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CParam {
    pub name: Option<String>,
    pub ty: CType,
    /// The parameter as written (tokens joined), e.g. `const float* __restrict__ x`.
    pub text: String,
}

/// A parameter's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CType {
    /// A scalar: its C spelling (canonical, e.g. `unsigned int`) and the Rust type it is.
    Scalar { c: String, rust: &'static str },
    /// A pointer: its pointee's C spelling, the Rust element type when it is a known scalar
    /// (`None` for `void` and other types), and whether the pointee is `const`.
    Pointer {
        pointee: String,
        rust: Option<&'static str>,
        constant: bool,
    },
    /// Anything else (a struct, a template parameter, a reference, a double pointer, ...).
    Other(String),
}

/// Reads `text` (no file: an `#include "..."` in it is not read).
pub fn parse(text: &str) -> Source {
    parse_file(text, None, &[])
}

/// Reads `text`, the file at `path` (includes are looked up beside it), with the graph's
/// `defines` (name, value) defined first.
pub fn parse_file(text: &str, path: Option<&Path>, defines: &[(String, String)]) -> Source {
    let mut pre = Pre::default();
    for (n, v) in defines {
        pre.macros.push(pp::object(n, v));
    }
    let toks = lex(text, path, None, &mut pre);
    let (live, gone): (Vec<Tok>, Vec<Tok>) = toks.into_iter().partition(|t| t.removed.is_none());
    let aliases = aliases(&live);
    let kernels = scan(&live, &aliases);
    let device_fns = device_functions(&live, &aliases);
    let mut lines = vec![(None, text.lines().map(str::to_owned).collect())];
    for (name, text) in std::mem::take(&mut pre.texts) {
        lines.push((Some(name), text.lines().map(str::to_owned).collect()));
    }
    let structs = layout::structs(&live);
    // Kernels of the branches left out, each with the reason its first token carries.
    let mut removed = Vec::new();
    let mut start = 0;
    while start < gone.len() {
        let why = gone[start].removed.clone();
        let end = start
            + gone[start..]
                .iter()
                .take_while(|t| t.removed == why)
                .count();
        for k in scan(&gone[start..end], &aliases) {
            let why = why.as_deref().unwrap_or_default().to_owned();
            removed.push((k, why));
        }
        start = end;
    }
    Source {
        kernels,
        removed,
        includes: pre.includes,
        notes: pre.notes,
        structs,
        device_fns,
        lines,
    }
}

/// Every `__device__` function with a body.
fn device_functions(t: &[Tok], aliases: &[(String, Vec<Tok>)]) -> Vec<CKernel> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i].text == "__device__" {
            let (f, next) = declaration(t, i, i + 1, Linkage::Cpp, aliases);
            out.extend(f.filter(|f| !f.body.is_empty()));
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

/// Type aliases of plain types: `typedef unsigned int uint;`, `using index_t = int64_t;`
/// (not of pointers, functions or structs).
fn aliases(t: &[Tok]) -> Vec<(String, Vec<Tok>)> {
    let mut out: Vec<(String, Vec<Tok>)> = Vec::new();
    let plain = |ts: &[Tok]| {
        !ts.is_empty()
            && ts.iter().all(|x| {
                x.kind == Kind::Ident
                    && !matches!(x.text.as_str(), "struct" | "enum" | "union" | "class")
            })
    };
    // A name the checker knows itself (`cudaGraphConditionalHandle` is a condition handle,
    // not the `unsigned long long` it is declared as) keeps its meaning.
    let known = |n: &str| rust_of(&[n]).is_some();
    for (i, x) in t.iter().enumerate() {
        if x.text != "typedef" && x.text != "using" {
            continue;
        }
        let Some(end) = t[i..].iter().take(12).position(|y| y.text == ";") else {
            continue;
        };
        let stmt = &t[i + 1..i + end];
        if x.text == "typedef" {
            if let Some((name, ty)) = stmt.split_last() {
                if name.kind == Kind::Ident && plain(ty) && !known(&name.text) {
                    out.push((name.text.clone(), ty.to_vec()));
                }
            }
        } else if x.text == "using"
            && stmt.len() >= 3
            && stmt[0].kind == Kind::Ident
            && stmt[1].text == "="
            && plain(&stmt[2..])
            && !known(&stmt[0].text)
        {
            out.push((stmt[0].text.clone(), stmt[2..].to_vec()));
        }
    }
    out
}

/// `toks` with every alias replaced by what it names (aliases of aliases too).
fn resolve(toks: &[Tok], aliases: &[(String, Vec<Tok>)], depth: usize) -> Vec<Tok> {
    let mut out = Vec::with_capacity(toks.len());
    for x in toks {
        match aliases
            .iter()
            .rev()
            .find(|(n, _)| x.kind == Kind::Ident && *n == x.text)
        {
            Some((_, ty)) if depth < 8 => {
                let ty: Vec<Tok> = ty
                    .iter()
                    .map(|y| Tok {
                        line: x.line,
                        ..y.clone()
                    })
                    .collect();
                out.extend(resolve(&ty, aliases, depth + 1));
            }
            _ => out.push(x.clone()),
        }
    }
    out
}

/// Finds the `__global__` functions.
fn scan(t: &[Tok], aliases: &[(String, Vec<Tok>)]) -> Vec<CKernel> {
    let mut out = Vec::new();
    let is = |i: usize, s: &str| t.get(i).is_some_and(|x| x.text == s);
    // Brace depth, and the depths at which `extern "C" {` blocks and namespaces were opened.
    let (mut depth, mut c_blocks) = (0usize, Vec::new());
    let mut namespaces: Vec<(usize, String)> = Vec::new();
    // `extern "C"` or `template<...>` seen before the declaration being read (token index).
    let (mut extern_c, mut template) = (None::<usize>, None::<usize>);
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
                let linkage = if template.is_some() {
                    Linkage::Template
                } else if extern_c.is_some() || !c_blocks.is_empty() {
                    Linkage::C
                } else {
                    Linkage::Cpp
                };
                let start = template.or(extern_c).unwrap_or(i);
                let (kernel, next) = declaration(t, start, i + 1, linkage, aliases);
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
        .replace(" :: ", "::")
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
fn skip_group(t: &[Tok], i: usize) -> usize {
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
    };
    (Some(kernel), body_end)
}

/// A parameter's tokens with the aliases in its type resolved (its name kept: a parameter
/// named like an alias is still its name).
fn resolve_types(p: &[Tok], aliases: &[(String, Vec<Tok>)]) -> Vec<Tok> {
    if aliases.is_empty() {
        return p.to_vec();
    }
    // The last identifier is the name when more than one identifier or a `*` precedes it.
    let decl_end = p.iter().position(|x| x.text == "=").unwrap_or(p.len());
    let last = p[..decl_end].iter().rposition(|x| x.kind == Kind::Ident);
    let named = last.is_some_and(|l| l > 0);
    match last {
        Some(l) if named => {
            let mut out = resolve(&p[..l], aliases, 0);
            out.extend_from_slice(&p[l..]);
            out
        }
        _ => resolve(p, aliases, 0),
    }
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

const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "__restrict__",
    "__restrict",
    "restrict",
    "struct",
    "class",
    "enum",
    "typename",
    "register",
    "__grid_constant__",
];

const TYPE_WORDS: &[&str] = &[
    "void",
    "bool",
    "char",
    "short",
    "int",
    "long",
    "signed",
    "unsigned",
    "float",
    "double",
    "size_t",
    "ptrdiff_t",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "__half",
    "half",
    "__nv_bfloat16",
    "nv_bfloat16",
];

fn parameter(t: &[Tok]) -> CParam {
    // A default argument is not part of the type.
    let t = match t.iter().position(|x| x.text == "=") {
        Some(k) => &t[..k],
        None => t,
    };
    let text = t
        .iter()
        .map(|x| x.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" *", "*")
        .replace(" [ ]", "[]");
    let stars =
        t.iter().filter(|x| x.text == "*").count() + t.iter().filter(|x| x.text == "[").count();
    let reference = t.iter().any(|x| x.text == "&" || x.text == "...");
    let first_star = t
        .iter()
        .position(|x| x.text == "*" || x.text == "[")
        .unwrap_or(t.len());
    let constant = t[..first_star].iter().any(|x| x.text == "const");
    let words: Vec<&str> = t[..first_star]
        .iter()
        .filter(|x| x.kind == Kind::Ident && !QUALIFIERS.contains(&x.text.as_str()))
        .map(|x| x.text.as_str())
        .collect();
    // The name: the identifier after the last `*`, or the last of several identifiers that is
    // no type word.
    let after: Vec<&str> = t[first_star..]
        .iter()
        .filter(|x| x.kind == Kind::Ident && !QUALIFIERS.contains(&x.text.as_str()))
        .map(|x| x.text.as_str())
        .collect();
    let array = t.get(first_star).is_some_and(|x| x.text == "[");
    let (ty_words, name): (Vec<&str>, Option<&str>) = if stars > 0 && !array {
        (words, after.last().copied())
    } else {
        match words.split_last() {
            Some((last, rest)) if !rest.is_empty() && !TYPE_WORDS.contains(last) => {
                (rest.to_vec(), Some(*last))
            }
            _ => (words, None),
        }
    };
    let base = ty_words.join(" ");
    let ty = if reference || stars > 1 || ty_words.is_empty() {
        CType::Other(text.clone())
    } else if stars == 1 {
        CType::Pointer {
            rust: rust_of(&ty_words),
            pointee: canonical(&ty_words).unwrap_or(base),
            constant,
        }
    } else {
        match (canonical(&ty_words), rust_of(&ty_words)) {
            (Some(c), Some(rust)) => CType::Scalar { c, rust },
            _ => CType::Other(base),
        }
    };
    CParam {
        name: name.map(str::to_owned),
        ty,
        text,
    }
}

/// The canonical spelling of a type made of `words` (e.g. `unsigned int` for `unsigned`).
fn canonical(words: &[&str]) -> Option<String> {
    let count = |w: &str| words.iter().filter(|&&x| x == w).count();
    let (unsigned, signed, long, short) = (
        count("unsigned"),
        count("signed"),
        count("long"),
        count("short"),
    );
    let others: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "unsigned" | "signed" | "long" | "short" | "int"))
        .collect();
    let sign = if unsigned > 0 { "unsigned " } else { "" };
    match (others.as_slice(), long, short) {
        ([], 0, 0) if unsigned + signed + count("int") > 0 => Some(format!("{sign}int")),
        ([], 1, 0) => Some(format!("{sign}long")),
        ([], 2, 0) => Some(format!("{sign}long long")),
        ([], 0, 1) => Some(format!("{sign}short")),
        (["char"], 0, 0) if unsigned > 0 => Some("unsigned char".to_owned()),
        (["char"], 0, 0) if signed > 0 => Some("signed char".to_owned()),
        ([one], 0, 0) if unsigned + signed == 0 => Some((*one).to_owned()),
        _ => None,
    }
}

/// The Rust type a C scalar type is, for the types a kernel argument can be in cudarc.
fn rust_of(words: &[&str]) -> Option<&'static str> {
    Some(match canonical(words)?.as_str() {
        "float" => "f32",
        "double" => "f64",
        "int" | "int32_t" => "i32",
        "unsigned int" | "uint32_t" => "u32",
        "short" | "int16_t" => "i16",
        "unsigned short" | "uint16_t" => "u16",
        "char" | "signed char" | "int8_t" => "i8",
        "unsigned char" | "uint8_t" => "u8",
        // LP64, as on every platform CUDA supports.
        "long" | "long long" | "int64_t" | "ptrdiff_t" => "i64",
        "unsigned long" | "unsigned long long" | "uint64_t" => "u64",
        "size_t" => "usize",
        "bool" => "bool",
        // A condition handle for conditional nodes (`typedef unsigned long long ...`).
        "cudaGraphConditionalHandle" => "Cond",
        // Texture and surface objects are `unsigned long long` handles.
        "cudaTextureObject_t" | "cudaSurfaceObject_t" | "CUtexObject" | "CUsurfObject" => "u64",
        // `long` on every platform CUDA supports (LP64).
        "clock_t" => "i64",
        "__half" | "half" => "f16",
        "__nv_bfloat16" | "nv_bfloat16" => "bf16",
        other => return vector_type(other).map(|v| v.rust),
    })
}

/// The path generated code names a Rust type by, from the short name [`CType`] holds
/// (`f16` is `::cuda_graph::half::f16`, `Float2` is `::cuda_graph::vector::Float2`).
pub fn rust_path(short: &str) -> String {
    match short {
        "f16" | "bf16" => format!("::cuda_graph::half::{short}"),
        "Cond" => "::cuda_graph::kernel::Cond".to_owned(),
        _ if VECTOR_TYPES.iter().any(|v| v.rust == short) => {
            format!("::cuda_graph::vector::{short}")
        }
        _ => short.to_owned(),
    }
}

/// The C spelling of a Rust scalar type, for prototypes written from Rust declarations.
pub fn c_of(rust: &str) -> Option<&'static str> {
    Some(match rust {
        "f32" => "float",
        "f64" => "double",
        "i32" => "int",
        "u32" => "unsigned int",
        "i16" => "short",
        "u16" => "unsigned short",
        "i8" => "signed char",
        "u8" => "unsigned char",
        "i64" => "long long",
        "u64" => "unsigned long long",
        "usize" => "size_t",
        "isize" => "ptrdiff_t",
        "bool" => "bool",
        "Cond" | ":: cuda_graph :: kernel :: Cond" => "cudaGraphConditionalHandle",
        "f16" => "__half",
        "bf16" => "__nv_bfloat16",
        other => return VECTOR_TYPES.iter().find(|v| v.rust == other).map(|v| v.c),
    })
}
