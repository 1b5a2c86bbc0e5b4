//! The preprocessor, the reader's second phase: on the lexer's tokens, it follows
//! conditionals (a branch left out marked with why, one the reader cannot evaluate marked with
//! its condition), reads `#include "file"` relative to the including file (lexed, then
//! preprocessed in place), and expands macros (`macros.rs`) as `#if` conditions need
//! (`cond.rs`).

use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::cond;
use super::lex::{lex, Kind, Tok};
use super::macros::{self, expand, Macro};

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

/// `toks` (the lexer's, of the file at `path`, `None` for text without a file; `shown` names
/// an included file in messages) preprocessed: directives followed and gone, macros expanded,
/// each token marked with its file, the condition it sits under if the reader cannot evaluate
/// it, and why it is left out if it is.
pub(super) fn preprocess(
    toks: Vec<Tok>,
    path: Option<&Path>,
    shown: Option<Rc<str>>,
    pre: &mut Pre,
) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut pending: Vec<Tok> = Vec::new();
    let mut stack: Vec<Branch> = Vec::new();
    for mut tok in toks {
        if tok.kind == Kind::Directive {
            out.extend(expand(std::mem::take(&mut pending), &pre.macros));
            directive(&tok.text, tok.line, &mut stack, pre, path, &shown, &mut out);
            continue;
        }
        let removed = stack.iter().find_map(|s| s.removed().cloned());
        tok.cond = stack.iter().rev().find_map(|s| match s {
            Branch::Unknown(c) => Some(c.clone()),
            _ => None,
        });
        tok.file = shown.clone();
        tok.removed = removed.clone();
        if removed.is_none() {
            pending.push(tok);
        } else {
            out.extend(expand(std::mem::take(&mut pending), &pre.macros));
            out.push(tok);
        }
    }
    out.extend(expand(pending, &pre.macros));
    out
}

fn directive(
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
                        "if" => cond::eval(rest, &pre.macros),
                        _ => {
                            let name = rest.split_whitespace().next().unwrap_or("");
                            cond::is_defined(name, &pre.macros)
                                .map(|d| i64::from(d == (word == "ifdef")))
                        }
                    };
                    match value {
                        Some(0) if rest == "0" => {
                            Branch::Skipped(why(format!("`#if 0` at {at} leaves out what follows")))
                        }
                        Some(0) => Branch::Skipped(why(format!(
                            "`{this}` at {at} leaves it out{}",
                            cond::reason(rest, &pre.macros, word != "ifndef")
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
            let value = (word == "elif").then(|| cond::eval(rest, &pre.macros));
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
                            cond::reason(rest, &pre.macros, true)
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
            if let Some(m) = macros::define(rest, line) {
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
        // Kept as a token: the layouts of the structs after it are not C's default.
        "pragma" if rest.starts_with("pack") => {
            let mut tok = Tok::new(Kind::Directive, d, line);
            tok.file = shown.clone();
            out.push(tok);
        }
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
            let toks = preprocess(lex(&text), Some(&file), Some(name.as_str().into()), pre);
            pre.depth -= 1;
            out.extend(toks);
        }
        Err(e) => pre.notes.push(format!(
            "`#include \"{name}\"` at {from} could not be read ({}: {e})",
            file.display()
        )),
    }
}
