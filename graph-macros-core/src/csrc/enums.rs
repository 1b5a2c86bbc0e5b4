//! The enums a file defines, with the namespaces and structs around them and their
//! enumerators' values where the reader can compute them: what a template kernel's value
//! parameter of an enum type takes (`kernel k = f<ScaleMode::kNone>;`).

use super::cond;
use super::lex::{Kind, Tok};

/// An enum the file defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CEnum {
    /// Its name (the tag, or the typedef's name).
    pub name: String,
    /// The namespaces and structs around it, outermost first.
    pub scope: Vec<String>,
    /// `enum class` or `enum struct`: its enumerators are named only through it.
    pub scoped: bool,
    /// 1-based line of its definition.
    pub line: usize,
    /// The included file it is defined in (`None`: the file the graph names).
    pub file: Option<String>,
    /// Its enumerators in order, each with its value when the reader can compute it.
    pub values: Vec<(String, Option<i64>)>,
}

impl CEnum {
    /// Its name with the namespaces and structs around it (`ops::ScaleMode`).
    pub fn qualified(&self) -> String {
        let mut parts: Vec<&str> = self.scope.iter().map(String::as_str).collect();
        parts.push(&self.name);
        parts.join("::")
    }
}

/// What a brace opens, for the names of the enums inside.
enum Scope {
    /// A namespace or a struct: part of the names inside.
    Named(String),
    /// `extern "C" {` or an anonymous namespace: no part of the names inside.
    Transparent,
    /// A function body, an initializer, a template's body: enums inside are not recorded
    /// (their names cannot be written from outside, or not without template arguments).
    Opaque,
}

/// Every named enum at file scope, in namespaces, and in structs that are no templates.
pub(super) fn enums(t: &[Tok]) -> Vec<CEnum> {
    let mut out = Vec::new();
    let mut scopes: Vec<Scope> = Vec::new();
    let mut pending: Option<Scope> = None;
    let is = |i: usize, s: &str| t.get(i).is_some_and(|x| x.text == s);
    let mut i = 0;
    while i < t.len() {
        let x = &t[i];
        match x.text.as_str() {
            "namespace" => {
                let mut name = String::new();
                let mut j = i + 1;
                while t
                    .get(j)
                    .is_some_and(|y| y.kind == Kind::Ident || y.text == ":")
                {
                    name.push_str(&t[j].text);
                    j += 1;
                }
                pending = Some(if name.is_empty() {
                    Scope::Transparent
                } else {
                    Scope::Named(name)
                });
            }
            "extern" if t.get(i + 1).is_some_and(|y| y.kind == Kind::Str) => {
                pending = Some(Scope::Transparent);
            }
            "struct" | "class" | "union" if !is(i.wrapping_sub(1), "enum") => {
                let template = i > 0 && t[i - 1].text == ">";
                let name = t
                    .get(i + 1)
                    .filter(|y| y.kind == Kind::Ident)
                    .map(|y| y.text.clone());
                // A definition when a `{` comes before any `;`, `(`, `=` or `)`.
                let body = t[i + 1..]
                    .iter()
                    .find(|y| matches!(y.text.as_str(), "{" | ";" | "(" | "=" | ")"))
                    .is_some_and(|y| y.text == "{");
                if body {
                    pending = Some(match name {
                        Some(n) if !template => Scope::Named(n),
                        _ => Scope::Opaque,
                    });
                }
            }
            "enum" => {
                let visible = scopes.iter().all(|s| !matches!(s, Scope::Opaque));
                let typedef = i > 0 && t[i - 1].text == "typedef";
                let (e, next) = definition(t, i, typedef);
                if let Some(mut e) = e.filter(|_| visible) {
                    e.scope = scopes
                        .iter()
                        .filter_map(|s| match s {
                            Scope::Named(n) => Some(n.clone()),
                            _ => None,
                        })
                        .collect();
                    out.push(e);
                }
                i = next.max(i + 1);
                continue;
            }
            "{" => scopes.push(pending.take().unwrap_or(Scope::Opaque)),
            "}" => {
                scopes.pop();
            }
            ";" => pending = None,
            _ => {}
        }
        i += 1;
    }
    out
}

/// The enum defined at `at` (the `enum` keyword), if it is a definition with a name, and the
/// index after it.
fn definition(t: &[Tok], at: usize, typedef: bool) -> (Option<CEnum>, usize) {
    let mut j = at + 1;
    let scoped = t
        .get(j)
        .is_some_and(|x| x.text == "class" || x.text == "struct");
    j += usize::from(scoped);
    let mut name = t
        .get(j)
        .filter(|x| x.kind == Kind::Ident)
        .map(|x| x.text.clone());
    j += usize::from(name.is_some());
    // `: underlying type`.
    while t
        .get(j)
        .is_some_and(|x| !matches!(x.text.as_str(), "{" | ";" | "(" | ")" | "="))
    {
        j += 1;
    }
    if t.get(j).is_none_or(|x| x.text != "{") {
        return (None, j);
    }
    let open = j;
    let close = t[open..]
        .iter()
        .position(|x| x.text == "}")
        .map_or(t.len(), |k| open + k);
    if name.is_none() && typedef {
        name = t
            .get(close + 1)
            .filter(|x| x.kind == Kind::Ident)
            .map(|x| x.text.clone());
    }
    let Some(name) = name else {
        return (None, close + 1);
    };
    let mut values: Vec<(String, Option<i64>)> = Vec::new();
    let body = t.get(open + 1..close).unwrap_or_default();
    let (mut d, mut start) = (0i32, 0usize);
    let mut pieces = Vec::new();
    // (`<` is no bracket here: `1 << 2` is a shift.)
    for (k, x) in body.iter().enumerate() {
        match x.text.as_str() {
            "(" | "[" => d += 1,
            ")" | "]" => d -= 1,
            "," if d <= 0 => {
                pieces.push(&body[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    pieces.push(&body[start.min(body.len())..]);
    for p in pieces {
        let Some(first) = p.first().filter(|x| x.kind == Kind::Ident) else {
            continue;
        };
        let value = match p.iter().position(|x| x.text == "=") {
            Some(eq) => value(&p[eq + 1..], &name, &values),
            None => match values.last() {
                None => Some(0),
                Some((_, prev)) => prev.and_then(|v| v.checked_add(1)),
            },
        };
        values.push((first.text.clone(), value));
    }
    let e = CEnum {
        name,
        scope: Vec::new(),
        scoped,
        line: t[at].line,
        file: t[at].file.as_deref().map(str::to_owned),
        values,
    };
    (Some(e), close + 1)
}

/// The value of an enumerator's initializer: integers, the enum's earlier enumerators (`A`,
/// `E::A`) and integer operators; `None` for anything else.
fn value(expr: &[Tok], enum_name: &str, earlier: &[(String, Option<i64>)]) -> Option<i64> {
    let mut text = Vec::new();
    let mut k = 0;
    while k < expr.len() {
        let x = &expr[k];
        let qualified = x.text == enum_name
            && expr.get(k + 1).is_some_and(|y| y.text == ":")
            && expr.get(k + 2).is_some_and(|y| y.text == ":");
        if qualified {
            k += 3;
            continue;
        }
        if x.kind == Kind::Ident {
            let (_, v) = earlier.iter().find(|(n, _)| *n == x.text)?;
            text.push(v.as_ref()?.to_string());
        } else if x.kind == Kind::Other || x.kind == Kind::Punct {
            text.push(x.text.clone());
        } else {
            return None;
        }
        k += 1;
    }
    if text.is_empty() {
        return None;
    }
    cond::eval(&text.join(" "), &[])
}
