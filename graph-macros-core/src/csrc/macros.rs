//! Macros: object-like and function-like (`#` stringizing, `##` pasting, `__VA_ARGS__`, no
//! macro expanded inside its own expansion), defined by the file, the files it includes and
//! the graph's `define`s, and their expansion.

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

pub(super) fn find<'m>(macros: &'m [Macro], name: &str) -> Option<&'m Macro> {
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
