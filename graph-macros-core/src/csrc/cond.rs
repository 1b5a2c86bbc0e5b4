//! `#if` conditions: integer expressions with `defined`, and what the compiler defines.
//!
//! What the build defines is what the file and the graph's `define`s define, and what NVRTC
//! defines for the target (see [`builtin`]). Other names reserved to the implementation
//! (`__cplusplus`'s value, `CUB_...`, `__NV...`) are unknown: a condition that needs their value
//! is one the reader cannot evaluate.

use super::lex::{tokens, Kind, Tok};
use super::macros::{expand, find, Macro};

/// What NVRTC defines for the build whose value the reader does not know unless the graph
/// gives it with a `define` (the build then compiles for that target, or checks it): the
/// architecture, and the toolkit's version. Each with what to write.
pub(super) const TARGET: &[(&str, &str)] = &[
    ("__CUDA_ARCH__", "define __CUDA_ARCH__ = 900;"),
    ("__CUDA_ARCH_LIST__", "define __CUDA_ARCH__ = 900;"),
    ("__CUDACC_VER_MAJOR__", "define CUDA_VERSION = 12080;"),
    ("__CUDACC_VER_MINOR__", "define CUDA_VERSION = 12080;"),
    ("__CUDACC_VER_BUILD__", "define CUDA_VERSION = 12080;"),
    ("CUDA_VERSION", "define CUDA_VERSION = 12080;"),
    ("CUDART_VERSION", "define CUDA_VERSION = 12080;"),
];

/// Compiler-defined macros: `Some(true)` defined, `None` unknown. Every build is NVRTC's
/// device compilation: `__CUDACC__`, `__CUDACC_RTC__`, `__CUDA_ARCH__` and the version macros
/// are defined (their values are [`TARGET`]'s, known where the graph gives them).
fn builtin(name: &str) -> Option<Option<bool>> {
    match name {
        "__CUDACC__" | "__CUDACC_RTC__" | "__cplusplus" => Some(Some(true)),
        "__CUDA_ARCH__"
        | "__CUDACC_VER_MAJOR__"
        | "__CUDACC_VER_MINOR__"
        | "__CUDACC_VER_BUILD__" => Some(Some(true)),
        _ if name.starts_with("__")
            || (name.starts_with('_')
                && name.chars().nth(1).is_some_and(|c| c.is_ascii_uppercase()))
            || name.starts_with("CUDA")
            || name.starts_with("CUB_")
            || name.starts_with("THRUST_")
            || name.starts_with("NV_")
            || name.starts_with("__NV") =>
        {
            Some(None)
        }
        _ => None,
    }
}

/// The macros that follow from the graph's `define`s of the target (`__CUDA_ARCH_LIST__`
/// from `__CUDA_ARCH__`; `__CUDACC_VER_MAJOR__`, `__CUDACC_VER_MINOR__` and `CUDART_VERSION`
/// from `CUDA_VERSION`).
pub(super) fn derived(defines: &[(String, String)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (n, v) in defines {
        let Ok(x) = v.parse::<u32>() else {
            continue;
        };
        match n.as_str() {
            "__CUDA_ARCH__" => out.push(("__CUDA_ARCH_LIST__".to_owned(), v.clone())),
            "CUDA_VERSION" => {
                out.push(("__CUDACC_VER_MAJOR__".to_owned(), (x / 1000).to_string()));
                out.push((
                    "__CUDACC_VER_MINOR__".to_owned(),
                    ((x % 1000) / 10).to_string(),
                ));
                out.push(("CUDART_VERSION".to_owned(), v.clone()));
            }
            _ => {}
        }
    }
    out
}

/// The target macros (see [`TARGET`]) whose values the condition `cond` needs and the graph
/// does not give: what decides a branch the reader cannot take, for messages.
pub(super) fn deciding(cond: &str, macros: &[Macro]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for t in tokens(cond, 0) {
        if let Some((n, _)) = TARGET.iter().find(|(n, _)| *n == t.text) {
            if find(macros, n).is_none() && !out.contains(n) {
                out.push(n);
            }
        }
    }
    out
}

/// Whether `name` is defined: by the file or the graph, by the compiler, or (`None`) unknown.
pub(super) fn is_defined(name: &str, macros: &[Macro]) -> Option<bool> {
    if find(macros, name).is_some() {
        return Some(true);
    }
    match builtin(name) {
        Some(d) => d,
        None => Some(false),
    }
}

/// Why a condition on `rest` is false, for the message: the names it tests that are not
/// defined (`defined` true for `#ifdef`/`#if`, false for `#ifndef`).
pub(super) fn reason(rest: &str, macros: &[Macro], wanted_defined: bool) -> String {
    let mut names: Vec<String> = tokens(rest, 0)
        .into_iter()
        .filter(|t| t.kind == Kind::Ident && t.text != "defined")
        .map(|t| t.text)
        .collect();
    names.dedup();
    let undefined: Vec<String> = names
        .iter()
        .filter(|n| is_defined(n, macros) == Some(false))
        .map(|n| format!("`{n}`"))
        .collect();
    if wanted_defined && !undefined.is_empty() {
        format!(
            ": {} not defined (neither in the file nor by a `define` of the graph)",
            if undefined.len() == 1 {
                format!("{} is", undefined[0])
            } else {
                format!("{} are", undefined.join(", "))
            }
        )
    } else if !wanted_defined {
        match names.first().map(|n| (n, find(macros, n).map(|m| m.line))) {
            Some((n, Some(0))) => format!(": `{n}` is defined by a `define` of the graph"),
            Some((n, Some(l))) => format!(": `{n}` is defined at line {l}"),
            Some((n, None)) => format!(": `{n}` is defined"),
            None => String::new(),
        }
    } else {
        String::new()
    }
}

/// The value of an `#if` condition, `None` when it cannot be known.
pub(super) fn eval(cond: &str, macros: &[Macro]) -> Option<i64> {
    // `defined X` and `defined(X)` first, then macros expanded, then names left are 0 (or
    // unknown, for the implementation's).
    let raw = tokens(cond, 0);
    let mut pre = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        if raw[i].text == "defined" {
            let (name, next) = if raw.get(i + 1).map(|t| t.text.as_str()) == Some("(") {
                (raw.get(i + 2), i + 4)
            } else {
                (raw.get(i + 1), i + 2)
            };
            let d = is_defined(name.map_or("", |t| t.text.as_str()), macros)?;
            pre.push(Tok::new(Kind::Other, if d { "1" } else { "0" }, 0));
            i = next;
            continue;
        }
        pre.push(raw[i].clone());
        i += 1;
    }
    let toks = expand(pre, macros);
    let mut vals = Vec::new();
    for t in toks {
        match t.kind {
            Kind::Ident if t.text == "true" => vals.push(Val::Num(1)),
            Kind::Ident if t.text == "false" => vals.push(Val::Num(0)),
            Kind::Ident => match builtin(&t.text) {
                Some(_) => return None,
                None => vals.push(Val::Num(0)),
            },
            Kind::Other => vals.push(Val::Num(number(&t.text)?)),
            Kind::Punct => vals.push(Val::Op(t.text)),
            Kind::Str | Kind::Directive => return None,
        }
    }
    let ops = join_ops(vals);
    let mut p = Parser { t: &ops, i: 0 };
    let v = p.ternary()?;
    (p.i == ops.len()).then_some(v)
}

#[derive(Debug, Clone)]
enum Val {
    Num(i64),
    Op(String),
}

/// Two-character operators from single punctuation tokens.
fn join_ops(v: Vec<Val>) -> Vec<Val> {
    let mut out: Vec<Val> = Vec::new();
    for x in v {
        if let (Some(Val::Op(a)), Val::Op(b)) = (out.last(), &x) {
            let two = format!("{a}{b}");
            if matches!(
                two.as_str(),
                "&&" | "||" | "==" | "!=" | "<=" | ">=" | "<<" | ">>"
            ) {
                out.pop();
                out.push(Val::Op(two));
                continue;
            }
        }
        out.push(x);
    }
    out
}

fn number(text: &str) -> Option<i64> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

struct Parser<'a> {
    t: &'a [Val],
    i: usize,
}

impl Parser<'_> {
    fn op(&self) -> Option<&str> {
        match self.t.get(self.i) {
            Some(Val::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn ternary(&mut self) -> Option<i64> {
        let c = self.binary(0)?;
        if self.op() == Some("?") {
            self.i += 1;
            let a = self.ternary()?;
            if self.op() != Some(":") {
                return None;
            }
            self.i += 1;
            let b = self.ternary()?;
            return Some(if c != 0 { a } else { b });
        }
        Some(c)
    }

    fn binary(&mut self, level: usize) -> Option<i64> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", ">", "<=", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut a = self.binary(level + 1)?;
        while let Some(o) = self.op().filter(|o| LEVELS[level].contains(o)) {
            let o = o.to_owned();
            self.i += 1;
            let b = self.binary(level + 1)?;
            a = match o.as_str() {
                "||" => i64::from(a != 0 || b != 0),
                "&&" => i64::from(a != 0 && b != 0),
                "|" => a | b,
                "^" => a ^ b,
                "&" => a & b,
                "==" => i64::from(a == b),
                "!=" => i64::from(a != b),
                "<" => i64::from(a < b),
                ">" => i64::from(a > b),
                "<=" => i64::from(a <= b),
                ">=" => i64::from(a >= b),
                "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
                ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
                "+" => a.checked_add(b)?,
                "-" => a.checked_sub(b)?,
                "*" => a.checked_mul(b)?,
                "/" => a.checked_div(b)?,
                _ => a.checked_rem(b)?,
            };
        }
        Some(a)
    }

    fn unary(&mut self) -> Option<i64> {
        match self.t.get(self.i)? {
            Val::Num(n) => {
                self.i += 1;
                Some(*n)
            }
            Val::Op(o) => {
                let o = o.clone();
                self.i += 1;
                match o.as_str() {
                    "!" => Some(i64::from(self.unary()? == 0)),
                    "-" => self.unary()?.checked_neg(),
                    "+" => self.unary(),
                    "~" => Some(!self.unary()?),
                    "(" => {
                        let v = self.ternary()?;
                        if self.op() != Some(")") {
                            return None;
                        }
                        self.i += 1;
                        Some(v)
                    }
                    _ => None,
                }
            }
        }
    }
}
