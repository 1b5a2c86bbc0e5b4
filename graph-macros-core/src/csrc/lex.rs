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
    /// Left out by the preprocessor: why (which directive, at which line).
    pub(super) removed: Option<std::rc::Rc<str>>,
}

/// What a preprocessor conditional does to the lines under it.
#[derive(Clone)]
enum Branch {
    /// Kept: the directive and its line (for an `#else` that follows).
    Taken(String, usize),
    /// Left out, and why.
    Skipped(std::rc::Rc<str>),
    /// Cannot tell: the condition's text.
    Unknown(String),
    /// An `#else` or `#elif` after a taken branch, and why it is left out.
    Done(std::rc::Rc<str>),
}

impl Branch {
    /// Why the lines under this branch are left out, if they are.
    fn removed(&self) -> Option<&std::rc::Rc<str>> {
        match self {
            Branch::Skipped(why) | Branch::Done(why) => Some(why),
            _ => None,
        }
    }
}

struct Macro {
    name: String,
    body: Vec<Tok>,
    /// Where it is defined.
    line: usize,
}

/// Tokens of `text` with comments and preprocessor lines removed and object-like macros
/// expanded; tokens of branches the preprocessor leaves out come unexpanded, marked `removed`.
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
        // The outermost branch that leaves these lines out says why.
        let removed = stack.iter().find_map(|s| s.removed().cloned());
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
        let live = removed.is_none();
        let tok = Tok {
            kind,
            text: String::from_utf8_lossy(&b[i..end]).into_owned(),
            line,
            cond,
            removed,
        };
        i = end;
        if live {
            expand(tok, &macros, 0, &mut out);
        } else {
            out.push(tok);
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
    let outer = stack.iter().find_map(|s| s.removed().cloned());
    let skipping = outer.is_some();
    let defined =
        |macros: &Vec<Macro>, n: &str| macros.iter().rev().find(|m| m.name == n).map(|m| m.line);
    let why = |text: String| -> std::rc::Rc<str> { text.into() };
    match word {
        "if" | "ifdef" | "ifndef" => {
            let name = rest.split_whitespace().next().unwrap_or("");
            let this = format!("#{word} {}", rest.trim());
            let branch = match outer {
                Some(o) => Branch::Skipped(o),
                None => match (word, rest.trim()) {
                    ("if", "0") => Branch::Skipped(why(format!(
                        "`#if 0` at line {line} leaves out what follows"
                    ))),
                    ("if", "1") => Branch::Taken(this, line),
                    ("ifdef", _) if defined(macros, name).is_some() => Branch::Taken(this, line),
                    // Not defined in this file: assumed not defined by the build either (an
                    // include guard, typically).
                    ("ifndef", _) => match defined(macros, name) {
                        None => Branch::Taken(this, line),
                        Some(at) => Branch::Skipped(why(format!(
                            "`{this}` at line {line} leaves it out: `{name}` is defined at line {at}"
                        ))),
                    },
                    _ => Branch::Unknown(this),
                },
            };
            stack.push(branch);
        }
        "else" | "elif" => {
            let this = format!("#{word} {}", rest.trim()).trim_end().to_owned();
            // An `#else` inside a region left out stays left out, for the outer reason.
            let outer = stack
                .iter()
                .rev()
                .skip(1)
                .find_map(|s| s.removed().cloned());
            if let Some(top) = stack.last_mut() {
                *top = match (&*top, outer) {
                    (_, Some(o)) => Branch::Skipped(o),
                    (Branch::Taken(t, at), None) => Branch::Done(why(format!(
                        "`{this}` at line {line} leaves it out: the branch of `{t}` at line {at} is the one kept"
                    ))),
                    (Branch::Done(w), None) => Branch::Done(w.clone()),
                    (Branch::Skipped(_), None) if word == "else" => Branch::Taken(this, line),
                    (Branch::Skipped(_), None) if rest.trim() == "1" => Branch::Taken(this, line),
                    (Branch::Skipped(_), None) if rest.trim() == "0" => Branch::Skipped(why(format!(
                        "`#elif 0` at line {line} leaves out what follows"
                    ))),
                    (Branch::Skipped(_), None) => Branch::Unknown(this),
                    (Branch::Unknown(c), None) => Branch::Unknown(format!("{c} (#{word})")),
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
                macros.push(Macro { name, body, line });
            }
        }
        "undef" if !skipping => {
            let name = rest.split_whitespace().next().unwrap_or("");
            macros.retain(|m| m.name != name);
        }
        _ => {}
    }
}
