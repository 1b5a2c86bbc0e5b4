//! Tokens of a CUDA source after the preprocessor: comments and string literals dropped,
//! conditionals followed (a branch left out marked with why, one the reader cannot evaluate
//! marked with its condition), `#include "file"` read relative to the including file, and
//! object-like and function-like macros expanded (`pp.rs`).

use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::pp::{self, Macro};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Ident,
    Punct,
    Str,
    Other,
}

#[derive(Debug, Clone)]
pub(crate) struct Tok {
    pub(crate) kind: Kind,
    pub(crate) text: String,
    pub(crate) line: usize,
    /// The included file it comes from (`None`: the file the graph names).
    pub(super) file: Option<Rc<str>>,
    /// Inside an `#if` the reader cannot evaluate: its condition.
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

/// What a preprocessor conditional does to the lines under it.
#[derive(Clone)]
enum Branch {
    /// Kept: the directive and its line (for an `#else` that follows).
    Taken(String, usize),
    /// Left out, and why.
    Skipped(Rc<str>),
    /// Cannot tell: the condition's text.
    Unknown(String),
    /// An `#else` or `#elif` after a taken branch, and why it is left out.
    Done(Rc<str>),
}

impl Branch {
    fn removed(&self) -> Option<&Rc<str>> {
        match self {
            Branch::Skipped(why) | Branch::Done(why) => Some(why),
            _ => None,
        }
    }
}

/// The preprocessor's state across a file and what it includes.
#[derive(Default)]
pub(super) struct Pre {
    pub(super) macros: Vec<Macro>,
    /// Files read through `#include "..."`: the name as written and where it was found.
    pub(super) includes: Vec<(String, PathBuf)>,
    /// What could not be read or expanded, for messages.
    pub(super) notes: Vec<String>,
    /// The text of every included file, by the name it was included as.
    pub(super) texts: Vec<(String, String)>,
    /// Files with `#pragma once` already read.
    once: Vec<PathBuf>,
    depth: usize,
}

/// Tokens of `text` (the file at `path`, `None` for text without a file; `shown` names an
/// included file in messages).
pub(super) fn lex(
    text: &str,
    path: Option<&Path>,
    shown: Option<Rc<str>>,
    pre: &mut Pre,
) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut pending: Vec<Tok> = Vec::new();
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
            let directive = strip_comments(&raw);
            out.extend(pp::expand(std::mem::take(&mut pending), &pre.macros));
            directive_(&directive, at, &mut stack, pre, path, &shown, &mut out);
            continue;
        }
        line_start = false;
        let removed = stack.iter().find_map(|s| s.removed().cloned());
        let cond = stack.iter().rev().find_map(|s| match s {
            Branch::Unknown(c) => Some(c.clone()),
            _ => None,
        });
        let (kind, end) = token_at(text, i);
        let tok = Tok {
            kind,
            text: String::from_utf8_lossy(&b[i..end]).into_owned(),
            line,
            file: shown.clone(),
            cond,
            removed: removed.clone(),
        };
        i = end;
        if removed.is_none() {
            pending.push(tok);
        } else {
            out.extend(pp::expand(std::mem::take(&mut pending), &pre.macros));
            out.push(tok);
        }
    }
    out.extend(pp::expand(pending, &pre.macros));
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

fn directive_(
    d: &str,
    line: usize,
    stack: &mut Vec<Branch>,
    pre: &mut Pre,
    path: Option<&Path>,
    shown: &Option<Rc<str>>,
    out: &mut Vec<Tok>,
) {
    let d = d.trim();
    let word: String = d
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let rest = d[word.len()..].trim();
    let outer = stack.iter().find_map(|s| s.removed().cloned());
    let skipping = outer.is_some();
    let at = match shown {
        Some(f) => format!("line {line} of `{f}`"),
        None => format!("line {line}"),
    };
    let why = |text: String| -> Rc<str> { text.into() };
    match word.as_str() {
        "if" | "ifdef" | "ifndef" => {
            let this = format!("#{word} {rest}");
            let branch = match outer {
                Some(o) => Branch::Skipped(o),
                None => {
                    let value = match word.as_str() {
                        "if" => pp::eval(rest, &pre.macros),
                        _ => {
                            let name = rest.split_whitespace().next().unwrap_or("");
                            pp::is_defined(name, &pre.macros)
                                .map(|d| i64::from(d == (word == "ifdef")))
                        }
                    };
                    match value {
                        Some(0) if rest == "0" => {
                            Branch::Skipped(why(format!("`#if 0` at {at} leaves out what follows")))
                        }
                        Some(0) => Branch::Skipped(why(format!(
                            "`{this}` at {at} leaves it out{}",
                            pp::reason(rest, &pre.macros, word != "ifndef")
                        ))),
                        Some(_) => Branch::Taken(this, line),
                        None => Branch::Unknown(this),
                    }
                }
            };
            stack.push(branch);
        }
        "else" | "elif" => {
            let this = format!("#{word} {rest}").trim_end().to_owned();
            let outer = stack
                .iter()
                .rev()
                .skip(1)
                .find_map(|s| s.removed().cloned());
            let value = (word == "elif").then(|| pp::eval(rest, &pre.macros));
            if let Some(top) = stack.last_mut() {
                *top = match (&*top, outer) {
                    (_, Some(o)) => Branch::Skipped(o),
                    (Branch::Taken(t, l), None) => Branch::Done(why(format!(
                        "`{this}` at {at} leaves it out: the branch of `{t}` at line {l} is the one kept"
                    ))),
                    (Branch::Done(w), None) => Branch::Done(w.clone()),
                    (Branch::Skipped(_), None) => match value {
                        None => Branch::Taken(this, line),
                        Some(Some(0)) => Branch::Skipped(why(format!(
                            "`{this}` at {at} leaves it out{}",
                            pp::reason(rest, &pre.macros, true)
                        ))),
                        Some(Some(_)) => Branch::Taken(this, line),
                        Some(None) => Branch::Unknown(this),
                    },
                    (Branch::Unknown(c), None) => Branch::Unknown(format!("{c} (#{word})")),
                };
            }
        }
        "endif" => {
            stack.pop();
        }
        _ if skipping => {}
        "define" => {
            if let Some(m) = pp::define(rest, line) {
                pre.macros.push(m);
            }
        }
        "undef" => {
            let name = rest.split_whitespace().next().unwrap_or("");
            pre.macros.retain(|m| m.name != name);
        }
        "pragma" if rest.split_whitespace().next() == Some("once") => {
            if let Some(p) = path {
                pre.once.push(p.to_owned());
            }
        }
        "include" => include(rest, line, pre, path, shown, out),
        _ => {}
    }
}

/// `#include "name"`: reads the file beside the including one and lexes it in place.
/// `#include <name>` (a system or toolkit header) is not read.
fn include(
    rest: &str,
    line: usize,
    pre: &mut Pre,
    path: Option<&Path>,
    shown: &Option<Rc<str>>,
    out: &mut Vec<Tok>,
) {
    let Some(name) = rest
        .strip_prefix('"')
        .and_then(|r| r.split_once('"'))
        .map(|(n, _)| n.to_owned())
    else {
        return;
    };
    let from = match shown {
        Some(f) => format!("`{f}` line {line}"),
        None => format!("line {line}"),
    };
    let Some(dir) = path.and_then(Path::parent) else {
        pre.notes.push(format!(
            "`#include \"{name}\"` at {from} was not read (no directory to look in)"
        ));
        return;
    };
    let file = dir.join(&name);
    if pre.once.contains(&file) {
        return;
    }
    if pre.depth >= 16 {
        pre.notes.push(format!(
            "`#include \"{name}\"` at {from} was not read: includes nest more than 16 deep"
        ));
        return;
    }
    match std::fs::read_to_string(&file) {
        Ok(text) => {
            if !pre.includes.iter().any(|(_, p)| *p == file) {
                pre.includes.push((name.clone(), file.clone()));
                pre.texts.push((name.clone(), text.clone()));
            }
            pre.depth += 1;
            let toks = lex(&text, Some(&file), Some(name.as_str().into()), pre);
            pre.depth -= 1;
            out.extend(toks);
        }
        Err(e) => pre.notes.push(format!(
            "`#include \"{name}\"` at {from} could not be read ({}: {e})",
            file.display()
        )),
    }
}
