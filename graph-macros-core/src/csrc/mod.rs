//! Reading kernel declarations from CUDA C source, at compile time.
//!
//! Not a C++ compiler: a preprocessor (`#include "..."`, object-like and function-like macros,
//! `#if` with integer expressions and `defined`), a lexer, and a scanner that finds
//! `__global__` function declarations, their parameter lists, the namespaces around them and
//! their template parameters, and the layout of the structs the file defines. What it cannot
//! decide it says: kernels inside a conditional it cannot evaluate, headers it cannot read. It
//! never panics on any input.

mod alias;
mod cond;
mod decl;
mod enums;
mod layout;
mod lex;
mod macros;
pub mod pdl;
mod pp;
mod types;

use std::path::{Path, PathBuf};

use alias::aliases;
use decl::{device_functions, one_per_signature, scan};
pub use decl::{CKernel, Linkage, TParam};
pub use enums::CEnum;
pub use layout::{c_layout, CStruct};
use lex::{lex, Tok};
use pp::{preprocess, Pre};
pub use types::{c_of, rust_path, vector_type, CParam, CType, VECTOR_TYPES};

/// A CUDA source file, as far as kernels go.
#[derive(Debug, Default)]
pub struct Source {
    /// Every `__global__` declaration the preprocessor keeps.
    pub kernels: Vec<CKernel>,
    /// Kernels the preprocessor leaves out (`#if 0`, an `#ifndef` of a macro the file
    /// defines, ...), each with why.
    pub removed: Vec<(CKernel, String)>,
    /// Files read through `#include "..."`: the name as written and where it was found.
    pub includes: Vec<(String, PathBuf)>,
    /// What the reader could not read (an include not found, ...), for messages.
    pub notes: Vec<String>,
    /// Structs (and typedefs of structs) the file defines, with their layout where known.
    pub structs: Vec<CStruct>,
    /// Enums the file defines, with their enumerators.
    pub enums: Vec<CEnum>,
    /// `__device__` functions with a body: what programmatic-launch checks follow into.
    pub(crate) device_fns: Vec<CKernel>,
    /// The text of the file and of every file it includes (`None`: the file itself), by line,
    /// for messages that quote C.
    lines: Vec<(Option<String>, Vec<String>)>,
}

impl Source {
    /// Line `line` (1-based) of the file (`None`) or of the included file `file`, trimmed.
    pub fn line(&self, file: Option<&str>, line: usize) -> Option<&str> {
        let (_, lines) = self.lines.iter().find(|(f, _)| f.as_deref() == file)?;
        lines.get(line.checked_sub(1)?).map(|l| l.trim())
    }
}

/// Why a graph's `define` of a macro NVRTC defines for the target is refused, if it is:
/// `__CUDA_ARCH__` must be an architecture (`900` for sm_90), `CUDA_VERSION` a version
/// (`12080` for 12.8); the macros that follow from them cannot be given apart.
pub fn target_define(name: &str, value: Option<&str>) -> Option<String> {
    let n = value.and_then(|v| v.parse::<u32>().ok());
    match name {
        "__CUDA_ARCH__" => match n {
            Some(a) if (300..=2000).contains(&a) && a % 10 == 0 => None,
            _ => Some(format!(
                "`__CUDA_ARCH__` is the architecture the source is built for, major * 100 + minor * 10: write `define __CUDA_ARCH__ = 900;` for sm_90 (given: `{}`)",
                value.unwrap_or("")
            )),
        },
        "CUDA_VERSION" => match n {
            Some(v) if (9000..=99990).contains(&v) => None,
            _ => Some(format!(
                "`CUDA_VERSION` is the CUDA version the source is built with, major * 1000 + minor * 10: write `define CUDA_VERSION = 12080;` for CUDA 12.8 (given: `{}`)",
                value.unwrap_or("")
            )),
        },
        _ => cond::TARGET.iter().find(|(n, _)| *n == name).map(|(_, write)| {
            format!("`{name}` follows from what the graph builds for, which is given once: write `{write}`")
        }),
    }
}

/// The macros NVRTC defines for the target whose values the condition `cond` (an `#if` the
/// reader could not evaluate, as [`CKernel::conditional`] quotes it) needs and the graph does
/// not give, each with the `define` that gives it.
pub fn deciding(cond: &str) -> Vec<(&'static str, &'static str)> {
    cond::deciding(cond, &[])
        .into_iter()
        .filter_map(|n| cond::TARGET.iter().find(|(t, _)| *t == n).copied())
        .collect()
}

/// Reads `text` (no file: an `#include "..."` in it is not read).
pub fn parse(text: &str) -> Source {
    parse_file(text, None, &[])
}

/// Reads `text`, the file at `path` (includes are looked up beside it), with the graph's
/// `defines` (name, value) defined first.
pub fn parse_file(text: &str, path: Option<&Path>, defines: &[(String, String)]) -> Source {
    let mut pre = Pre::default();
    for (n, v) in defines.iter().chain(&cond::derived(defines)) {
        pre.macros.push(macros::object(n, v));
    }
    let toks = preprocess(lex(text), path, None, &mut pre);
    let (live, gone): (Vec<Tok>, Vec<Tok>) = toks.into_iter().partition(|t| t.removed.is_none());
    let aliases = aliases(&live);
    let kernels = one_per_signature(scan(&live, &aliases));
    let device_fns = device_functions(&live, &aliases);
    let mut lines = vec![(None, text.lines().map(str::to_owned).collect())];
    for (name, text) in std::mem::take(&mut pre.texts) {
        lines.push((Some(name), text.lines().map(str::to_owned).collect()));
    }
    let structs = layout::structs(&live);
    let enums = enums::enums(&live);
    // Kernels of the branches left out, each with the reason its first token carries.
    let mut removed = Vec::new();
    let mut start = 0;
    while start < gone.len() {
        let why = gone[start].removed.clone();
        let end = start
            + gone[start..]
                .iter()
                .take_while(|t| t.removed == why)
                .count();
        for k in scan(&gone[start..end], &aliases) {
            let why = why.as_deref().unwrap_or_default().to_owned();
            removed.push((k, why));
        }
        start = end;
    }
    Source {
        kernels,
        removed,
        includes: pre.includes,
        notes: pre.notes,
        structs,
        enums,
        device_fns,
        lines,
    }
}
