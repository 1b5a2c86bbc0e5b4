//! The type aliases of a file (`typedef unsigned int uint;`, `using index_t = int64_t;`), and
//! a parameter's type with them resolved: what the declarations (`decl.rs`) read their
//! parameters through.

use super::lex::{Kind, Tok};
use super::types::rust_of;

/// Type aliases of plain types: `typedef unsigned int uint;`, `using index_t = int64_t;`
/// (not of pointers, functions or structs).
pub(super) fn aliases(t: &[Tok]) -> Vec<(String, Vec<Tok>)> {
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
    // Only aliases at file scope (inside namespaces and `extern "C"` blocks at most): one in a
    // struct or a function body names a type only there.
    let mut scopes: Vec<bool> = Vec::new();
    for (i, x) in t.iter().enumerate() {
        match x.text.as_str() {
            "{" => {
                // `namespace {`, `namespace a::b {`, `extern "C" {`.
                let run = t[..i]
                    .iter()
                    .rev()
                    .take_while(|y| y.kind == Kind::Ident || y.text == ":")
                    .count();
                let opener = i.checked_sub(run + 1).map(|k| t[k].text.as_str());
                let file_scope =
                    opener == Some("namespace") || (run == 0 && i > 0 && t[i - 1].text == "\"C\"");
                scopes.push(file_scope);
                continue;
            }
            "}" => {
                scopes.pop();
                continue;
            }
            _ => {}
        }
        if (x.text != "typedef" && x.text != "using") || scopes.iter().any(|s| !s) {
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

/// A parameter's tokens with the aliases in its type resolved (its name kept: a parameter
/// named like an alias is still its name).
pub(super) fn resolve_types(p: &[Tok], aliases: &[(String, Vec<Tok>)]) -> Vec<Tok> {
    if aliases.is_empty() {
        return p.to_vec();
    }
    // The last identifier is the name when more than one identifier or a `*` precedes it and
    // nothing but an array's brackets follows it (`const Complex*` has none).
    let decl_end = p.iter().position(|x| x.text == "=").unwrap_or(p.len());
    let last = p[..decl_end].iter().rposition(|x| x.kind == Kind::Ident);
    let named = last.is_some_and(|l| {
        l > 0
            && p[l + 1..decl_end]
                .iter()
                .all(|x| x.text == "[" || x.text == "]" || x.kind == Kind::Other)
    });
    match last {
        Some(l) if named => {
            let mut out = resolve(&p[..l], aliases, 0);
            out.extend_from_slice(&p[l..]);
            out
        }
        _ => resolve(p, aliases, 0),
    }
}
