//! Tokens of a CUDA source: comments and string literals dropped, preprocessor conditionals
//! followed (`#if 0` left out, a branch it cannot evaluate marked on its tokens) and object-like
//! macros expanded.

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    Ident,
    Punct,
    Str,
    Other,
}

#[derive(Debug, Clone)]
pub(super) struct Tok {
    pub(super) kind: Kind,
    pub(super) text: String,
    pub(super) line: usize,
    /// Inside an `#if` the reader cannot evaluate: its condition.
    pub(super) cond: Option<String>,
}

/// What a preprocessor conditional does to the lines under it.
#[derive(Clone)]
enum Branch {
    Taken,
    Skipped,
    /// Cannot tell: the condition's text.
    Unknown(String),
    /// An `#else` or `#elif` after a taken branch.
    Done,
}

struct Macro {
    name: String,
    body: Vec<Tok>,
}

/// Tokens of `text` with comments and preprocessor lines removed, skipped branches left out,
/// and object-like macros expanded.
pub(super) fn lex(text: &str, function_macros: &mut Vec<String>) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut macros: Vec<Macro> = Vec::new();
    let mut stack: Vec<Branch> = Vec::new();
    let (mut i, mut line, mut line_start) = (0usize, 1usize, true);
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        if c == b'#' && line_start {
            // A directive, with its continuation lines.
            let start = i + 1;
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    line += 1;
                    i += 1;
                }
                i += 1;
            }
            let directive = String::from_utf8_lossy(&b[start..i]).replace("\\\n", " ");
            directive_(&directive, line, &mut stack, &mut macros, function_macros);
            continue;
        }
        line_start = false;
        let live = !stack
            .iter()
            .any(|s| matches!(s, Branch::Skipped | Branch::Done));
        let cond = stack.iter().rev().find_map(|s| match s {
            Branch::Unknown(c) => Some(c.clone()),
            _ => None,
        });
        let (kind, end) = if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < b.len() && b[j] != c && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            (Kind::Str, (j + 1).min(b.len()))
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            (Kind::Ident, j)
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.') {
                j += 1;
            }
            (Kind::Other, j)
        } else if c.is_ascii() {
            (Kind::Punct, i + 1)
        } else {
            // A non-ASCII character (in an identifier or elsewhere): skip the whole of it.
            let mut j = i + 1;
            while j < b.len() && !text.is_char_boundary(j) {
                j += 1;
            }
            (Kind::Other, j)
        };
        let tok = Tok {
            kind,
            text: String::from_utf8_lossy(&b[i..end]).into_owned(),
            line,
            cond,
        };
        i = end;
        if live {
            expand(tok, &macros, 0, &mut out);
        }
    }
    out
}

/// Pushes `tok`, or the body of the object-like macro it names (expanded in turn, to a depth).
fn expand(tok: Tok, macros: &[Macro], depth: usize, out: &mut Vec<Tok>) {
    if tok.kind == Kind::Ident && depth < 8 {
        if let Some(m) = macros.iter().rev().find(|m| m.name == tok.text) {
            for t in &m.body {
                let t = Tok {
                    line: tok.line,
                    cond: tok.cond.clone(),
                    ..t.clone()
                };
                expand(t, macros, depth + 1, out);
            }
            return;
        }
    }
    out.push(tok);
}

fn directive_(
    d: &str,
    line: usize,
    stack: &mut Vec<Branch>,
    macros: &mut Vec<Macro>,
    function_macros: &mut Vec<String>,
) {
    let d = d.trim();
    let (word, rest) = d
        .split_once(|c: char| c.is_whitespace() || c == '(')
        .map_or((d, ""), |(w, r)| (w, r));
    let rest = if d.len() > word.len() && d.as_bytes().get(word.len()) == Some(&b'(') {
        &d[word.len()..]
    } else {
        rest.trim()
    };
    let skipping = stack
        .iter()
        .any(|s| matches!(s, Branch::Skipped | Branch::Done));
    let defined = |macros: &Vec<Macro>, n: &str| macros.iter().any(|m| m.name == n);
    match word {
        "if" | "ifdef" | "ifndef" => {
            let name = rest.split_whitespace().next().unwrap_or("");
            let branch = if skipping {
                Branch::Skipped
            } else {
                match (word, rest.trim()) {
                    ("if", "0") => Branch::Skipped,
                    ("if", "1") => Branch::Taken,
                    ("ifdef", _) if defined(macros, name) => Branch::Taken,
                    // Not defined in this file: assumed not defined by the build either (an
                    // include guard, typically).
                    ("ifndef", _) if !defined(macros, name) => Branch::Taken,
                    ("ifndef", _) => Branch::Skipped,
                    _ => Branch::Unknown(format!("#{word} {}", rest.trim())),
                }
            };
            stack.push(branch);
        }
        "else" | "elif" => {
            if let Some(top) = stack.last_mut() {
                *top = match (&*top, word) {
                    (Branch::Taken | Branch::Done, _) => Branch::Done,
                    (Branch::Skipped, "else") => Branch::Taken,
                    (Branch::Skipped, _) if rest.trim() == "1" => Branch::Taken,
                    (Branch::Skipped, _) if rest.trim() == "0" => Branch::Skipped,
                    (Branch::Skipped, _) => Branch::Unknown(format!("#elif {}", rest.trim())),
                    (Branch::Unknown(c), _) => Branch::Unknown(format!("{c} (#{word})")),
                };
            }
        }
        "endif" => {
            stack.pop();
        }
        "define" if !skipping => {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                return;
            }
            let after = &rest[name.len()..];
            if after.starts_with('(') {
                function_macros.push(name);
            } else {
                let mut unused = Vec::new();
                let body = lex(after, &mut unused)
                    .into_iter()
                    .map(|t| Tok { line, ..t })
                    .collect();
                macros.push(Macro { name, body });
            }
        }
        "undef" if !skipping => {
            let name = rest.split_whitespace().next().unwrap_or("");
            macros.retain(|m| m.name != name);
        }
        _ => {}
    }
}
