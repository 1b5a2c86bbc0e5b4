//! The reader's first phase: the tokens of a CUDA source, comments dropped, continuation lines
//! joined, each preprocessor directive one token of its own (its text after the `#`). The
//! preprocessor (`pp.rs`) runs on what this gives.

use std::rc::Rc;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Ident,
    Punct,
    Str,
    Other,
    /// A preprocessor directive: its text after the `#`, comments dropped, lines joined.
    Directive,
}

#[derive(Debug, Clone)]
pub(crate) struct Tok {
    pub(crate) kind: Kind,
    pub(crate) text: String,
    pub(crate) line: usize,
    /// The included file it comes from (`None`: the file the graph names); set by the
    /// preprocessor.
    pub(super) file: Option<Rc<str>>,
    /// Inside an `#if` the reader cannot evaluate: its condition (set by the preprocessor).
    pub(super) cond: Option<String>,
    /// Left out by the preprocessor: why (which directive, at which line).
    pub(super) removed: Option<Rc<str>>,
}

impl Tok {
    pub(super) fn new(kind: Kind, text: impl Into<String>, line: usize) -> Tok {
        Tok {
            kind,
            text: text.into(),
            line,
            file: None,
            cond: None,
            removed: None,
        }
    }
}

/// The tokens of `text`, directives among them as [`Kind::Directive`] tokens.
pub(super) fn lex(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut line_start) = (0usize, 1usize, true);
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            line += 1;
            i += 2;
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
            // A directive, with its continuation lines (comments in it dropped).
            let start = i + 1;
            let at = line;
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    line += 1;
                    i += 1;
                } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                        if b[i] == b'\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
                i += 1;
            }
            let end = i.min(b.len());
            let raw = String::from_utf8_lossy(&b[start..end]).replace("\\\n", " ");
            let text = strip_comments(&raw).trim().to_owned();
            out.push(Tok::new(Kind::Directive, text, at));
            continue;
        }
        line_start = false;
        let (kind, end) = token_at(text, i);
        out.push(Tok::new(kind, String::from_utf8_lossy(&b[i..end]), line));
        i = end;
    }
    out
}

/// The kind and end of the token starting at byte `i` of `text` (not whitespace).
pub(super) fn token_at(text: &str, i: usize) -> (Kind, usize) {
    let b = text.as_bytes();
    let c = b[i];
    if c == b'"' || c == b'\'' {
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
        // A non-ASCII character (in an identifier or elsewhere): the whole of it.
        let mut j = i + 1;
        while j < b.len() && !text.is_char_boundary(j) {
            j += 1;
        }
        (Kind::Other, j)
    }
}

/// Tokens of a piece of text (a macro body, a directive's condition), no directives in it.
pub(super) fn tokens(text: &str, line: usize) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let (kind, end) = token_at(text, i);
        out.push(Tok::new(kind, String::from_utf8_lossy(&b[i..end]), line));
        i = end.max(i + 1);
    }
    out
}

/// `text` without `/* */` and `//` comments (outside string literals).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut quote = None;
    while let Some((_, c)) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == '\\' {
                    if let Some((_, n)) = chars.next() {
                        out.push(n);
                    }
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None if c == '/' && chars.peek().map(|p| p.1) == Some('/') => break,
            None if c == '/' && chars.peek().map(|p| p.1) == Some('*') => {
                chars.next();
                let mut prev = ' ';
                for (_, n) in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
            }
            None => out.push(c),
        }
    }
    out
}
