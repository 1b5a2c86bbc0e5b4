//! Macros and `#if` conditions: object-like and function-like macros (`#` stringizing, `##`
//! pasting, `__VA_ARGS__`, no macro expanded inside its own expansion), and integer
//! expressions with `defined`.
//!
//! What the build defines is what the file and the graph's `define`s define. Names reserved to
//! the implementation (`__CUDA_ARCH__`, `__cplusplus`, `CUDART_VERSION`, ...) are unknown: a
//! condition that needs their value is one the reader cannot evaluate. `__CUDACC__` and
//! `__CUDA_ARCH__` are defined (every build of a kernel is a device compilation).

use super::lex::{tokens, Kind, Tok};

/// A macro: its parameters if function-like (`None` for object-like), and its body.
#[derive(Debug, Clone)]
pub(crate) struct Macro {
    pub(crate) name: String,
    pub(crate) params: Option<Vec<String>>,
    pub(crate) variadic: bool,
    pub(crate) body: Vec<Tok>,
    /// Where it is defined (0: by the graph).
    pub(crate) line: usize,
}

/// The macro a `#define` line (after the word) defines.
pub(super) fn define(rest: &str, line: usize) -> Option<Macro> {
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() {
        return None;
    }
    let after = &rest[name.len()..];
    if let Some(list) = after.strip_prefix('(') {
        let (params, body) = list.split_once(')')?;
        let mut names: Vec<String> = params
            .split(',')
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect();
        let variadic = names.last().is_some_and(|p| p.ends_with("..."));
        if variadic {
            let last = names.pop().unwrap_or_default();
            let named = last.trim_end_matches("...").trim();
            // `args...` (GNU) names the variadic part; `...` is `__VA_ARGS__`.
            names.push(if named.is_empty() {
                "__VA_ARGS__".to_owned()
            } else {
                named.to_owned()
            });
        }
        Some(Macro {
            name,
            params: Some(names),
            variadic,
            body: tokens(body, line),
            line,
        })
    } else {
        Some(Macro {
            name,
            params: None,
            variadic: false,
            body: tokens(after, line),
            line,
        })
    }
}

/// A graph's `define NAME = value`, as a macro.
pub(crate) fn object(name: &str, value: &str) -> Macro {
    Macro {
        name: name.to_owned(),
        params: None,
        variadic: false,
        body: tokens(if value.is_empty() { "1" } else { value }, 0),
        line: 0,
    }
}

fn find<'m>(macros: &'m [Macro], name: &str) -> Option<&'m Macro> {
    macros.iter().rev().find(|m| m.name == name)
}

/// `tokens` with every macro expanded.
pub(super) fn expand(tokens: Vec<Tok>, macros: &[Macro]) -> Vec<Tok> {
    if macros.is_empty() || tokens.is_empty() {
        return tokens;
    }
    let mut disabled = Vec::new();
    expand_in(&tokens, macros, &mut disabled, 0)
}

fn expand_in(
    input: &[Tok],
    macros: &[Macro],
    disabled: &mut Vec<String>,
    depth: usize,
) -> Vec<Tok> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        let t = &input[i];
        let m = (t.kind == Kind::Ident && depth < 64 && !disabled.contains(&t.text))
            .then(|| find(macros, &t.text))
            .flatten();
        let Some(m) = m else {
            out.push(t.clone());
            i += 1;
            continue;
        };
        let at = |mut x: Tok| {
            x.line = t.line;
            x.file = t.file.clone();
            x.cond = t.cond.clone();
            x
        };
        match &m.params {
            None => {
                let body: Vec<Tok> = m.body.iter().cloned().map(at).collect();
                disabled.push(m.name.clone());
                out.extend(expand_in(&body, macros, disabled, depth + 1));
                disabled.pop();
                i += 1;
            }
            Some(params) => {
                // A function-like macro's name not followed by `(` is no call.
                if input.get(i + 1).map(|x| x.text.as_str()) != Some("(") {
                    out.push(t.clone());
                    i += 1;
                    continue;
                }
                let Some((args, next)) = arguments(input, i + 1) else {
                    out.push(t.clone());
                    i += 1;
                    continue;
                };
                let body = substitute(m, params, &args, macros, disabled, depth);
                let body: Vec<Tok> = body.into_iter().map(at).collect();
                disabled.push(m.name.clone());
                out.extend(expand_in(&body, macros, disabled, depth + 1));
                disabled.pop();
                i = next;
            }
        }
    }
    out
}

/// The arguments of a call whose `(` is at `open`, split at top-level commas, and the index
/// after its `)`.
fn arguments(t: &[Tok], open: usize) -> Option<(Vec<Vec<Tok>>, usize)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    let mut j = open + 1;
    while j < t.len() {
        let x = &t[j];
        match x.text.as_str() {
            "(" => depth += 1,
            ")" if depth == 0 => {
                if args.len() == 1 && args[0].is_empty() {
                    args.clear();
                }
                return Some((args, j + 1));
            }
            ")" => depth -= 1,
            "," if depth == 0 => {
                args.push(Vec::new());
                j += 1;
                continue;
            }
            _ => {}
        }
        if let Some(a) = args.last_mut() {
            a.push(x.clone());
        }
        j += 1;
    }
    None
}

/// The body of `m` with its parameters replaced: `#p` by the argument as a string, an operand
/// of `##` by the argument as written, any other `p` by the argument expanded; then `##`
/// pastes its neighbours into one token.
fn substitute(
    m: &Macro,
    params: &[String],
    args: &[Vec<Tok>],
    macros: &[Macro],
    disabled: &mut Vec<String>,
    depth: usize,
) -> Vec<Tok> {
    let arg = |name: &str| -> Option<Vec<Tok>> {
        let k = params.iter().position(|p| p == name)?;
        if m.variadic && k == params.len() - 1 {
            // The variadic part: every argument from here, commas kept.
            let mut v = Vec::new();
            for (n, a) in args.iter().enumerate().skip(k) {
                if n > k {
                    v.push(Tok::new(Kind::Punct, ",", 0));
                }
                v.extend(a.iter().cloned());
            }
            return Some(v);
        }
        Some(args.get(k).cloned().unwrap_or_default())
    };
    let body = &m.body;
    let is_paste = |k: usize| {
        body.get(k).is_some_and(|x| x.text == "#") && body.get(k + 1).is_some_and(|x| x.text == "#")
    };
    let mut out: Vec<Tok> = Vec::new();
    // Where `##` stood in `out`: paste the tokens on both sides.
    let mut pastes: Vec<usize> = Vec::new();
    let mut k = 0;
    while k < body.len() {
        let x = &body[k];
        if is_paste(k) {
            pastes.push(out.len());
            k += 2;
            continue;
        }
        if x.text == "#" {
            if let Some(a) = body.get(k + 1).and_then(|n| arg(&n.text)) {
                let text: Vec<&str> = a.iter().map(|t| t.text.as_str()).collect();
                let s = text.join(" ").replace('\\', "\\\\").replace('"', "\\\"");
                out.push(Tok::new(Kind::Str, format!("\"{s}\""), x.line));
                k += 2;
                continue;
            }
        }
        if x.kind == Kind::Ident {
            if let Some(a) = arg(&x.text) {
                let pasted = (k >= 2 && is_paste(k - 2)) || is_paste(k + 1);
                if pasted {
                    out.extend(a);
                } else {
                    out.extend(expand_in(&a, macros, disabled, depth + 1));
                }
                k += 1;
                continue;
            }
        }
        out.push(x.clone());
        k += 1;
    }
    // Paste from the last `##` back, so earlier positions stay valid.
    for &p in pastes.iter().rev() {
        if p == 0 || p > out.len() {
            continue;
        }
        if p == out.len() {
            continue;
        }
        let text = format!("{}{}", out[p - 1].text, out[p].text);
        let mut joined = tokens(&text, out[p - 1].line);
        let one = if joined.len() == 1 {
            joined.pop()
        } else {
            None
        };
        let tok = one.unwrap_or_else(|| Tok::new(Kind::Other, text, out[p - 1].line));
        out.splice(p - 1..=p, [tok]);
    }
    out
}

/// Compiler-defined macros: `Some(true)` defined, `None` unknown.
fn builtin(name: &str) -> Option<Option<bool>> {
    match name {
        "__CUDACC__" | "__CUDA_ARCH__" | "__cplusplus" => Some(Some(true)),
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
            Kind::Str => return None,
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
