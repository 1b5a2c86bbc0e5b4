//! Measures how much real CUDA code the `cuda_graph!` front end accepts.
//!
//! For every `*.cu`/`*.cuh` file under each project directory (walked recursively, sorted), it
//! reads the file with `csrc::parse_file` and, for every `__global__` declaration found, runs
//! the whole front end (`check_in`) on the graph a user would write for it,
//! `graph G { source "file.cu"; kernel NAME; }`. A template gets `f32` for a type parameter,
//! and for a value parameter its default when that is a literal (a default that is not stops
//! the list: the front end fills it and the rest in), else `true` for `bool`, else `1` for an
//! integer type, else the first enumerator (`Mode::kA`) for an enum the file defines (or
//! includes with `#include "..."`), else nothing more (which the front end refuses). A
//! declaration is accepted when no error is left other than the ones every such graph has
//! (its kernel is never launched); else it is counted under a reason read from its first
//! error. Panics are caught and counted on their own.
//!
//! With `--lists`, a declaration refused because a parameter needs a Rust type the user names
//! (a struct by value or by pointer) gets a second try: the graph the error itself suggests
//! (`declare them, e.g. `kernel k(p: Params, ...);``), its placeholder type names standing for
//! `#[repr(C)]` types the user would define; it counts as accepted when the front end accepts
//! that graph. Nothing else is written for the user.
//!
//! ```text
//! cargo run --release -p cuda-graph-macros-core --example source_acceptance -- \
//!     NAME=DIR [NAME=DIR ...] [--lists] [--md OUT.md] [--details OUT.txt]
//! ```
//!
//! It prints per-project totals and per-reason counts; `--md` writes them as markdown tables,
//! `--details` one tab-separated line per refused declaration (project, file, line, kernel,
//! reason, graph => first message) and per kernel left out by the preprocessor.
#![deny(warnings)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cuda_graph_macros_core::ast::ParamTy;
use cuda_graph_macros_core::csrc::{parse_file, CEnum, CKernel, TParam};
use cuda_graph_macros_core::lower::{addr_of, is_void, primitive};
use cuda_graph_macros_core::{check_in, validate::Dirs};

/// (substring of the first error's first line, reason): the first pattern found wins. For an
/// error that lists the parameters needing a Rust type, only its first item is read.
#[rustfmt::skip]
const REASONS: &[(&str, &str)] = &[
    ("__nv_fp8", "fp8 type (`__nv_fp8_*`)"),
    ("anonymous namespace", "kernel in an anonymous namespace"),
    ("under preprocessor conditions the checker cannot evaluate", "same name declared twice, in an #if the reader cannot evaluate"),
    ("kernels named", "overloads / same name declared twice"),
    ("is overloaded in", "overloads / same name declared twice"),
    ("the preprocessor removes it", "left out by the preprocessor (macro not defined)"),
    ("template parameter `template", "template template parameter"),
    ("has no argument and no default", "template value parameter without default (enum, function pointer, ...)"),
    ("takes an enumerator of", "template value parameter of an enum type: enumerator refused"),
    ("neither `", "template value parameter of an enum the reader does not see"),
    ("takes a type the checker can spell", "template type argument the checker cannot spell"),
    ("cannot be instantiated", "template cannot be instantiated"),
    ("is a template in", "template: arguments needed"),
    ("a kernel node takes at most", "more than 40 parameters"),
    ("graph text does not parse", "harness: graph text does not parse"),
    ("_`: name", "type alias from another scope (`using T = T_;`) replaced a parameter's type"),
    ("_` by value", "type alias from another scope (`using T = T_;`) replaced a parameter's type"),
    ("array of addresses of", "pointer to pointer to a struct type (needs a Rust type)"),
    ("**", "pointer to pointer, other (`T***`, ...)"),
    ("`std uint", "scalar spelled with `std::` (`std::uint32_t`)"),
    ("`constant<", "compile-time constant parameter (`constant<N>`, a type the reader does not see)"),
    ("constant`", "compile-time constant parameter (`constant<N>`, a type the reader does not see)"),
    ("CUTE_GRID_CONSTANT", "unexpanded macro in a parameter (`CUTE_GRID_CONSTANT`)"),
    ("TensorMap", "TMA descriptor of the project's own type (a struct holding `CUtensorMap`s)"),
    ("cudaTmaDesc", "TMA descriptor of the project's own type (a struct holding `CUtensorMap`s)"),
    ("curandState", "CUDA library type (`curandState`, `cudaExtent`, ...)"),
    ("`cudaExtent`", "CUDA library type (`curandState`, `cudaExtent`, ...)"),
    ("`uint`", "typedef from a file the reader does not see (`uint`, `TColor`)"),
    ("`TColor`", "typedef from a file the reader does not see (`uint`, `TColor`)"),
    ("by value: name a #[repr(C)]", "parameter of a struct type (needs a Rust type)"),
    ("points at `", "pointer to a struct type (needs a Rust type)"),
    ("macro", "unexpanded macro"),
];

/// The reason for a first error; overloads inside an `#if` the reader cannot evaluate (its
/// quotes say so) are told apart (`__CUDA_ARCH__`, `CUDA_VERSION`, ...).
fn classify(first: &str) -> String {
    let mut head = first.lines().next().unwrap_or_default();
    // "cannot take its parameters from `f.cu`: `A a` is ...; `B b` points at ...; declare
    // them, e.g. ...": the first parameter named.
    if let Some((_, list)) = head.split_once("cannot take its parameters from `") {
        let list = list.split_once("`: ").map_or(list, |(_, l)| l);
        head = list.split("; ").next().unwrap_or(list);
    }
    match REASONS.iter().find(|(pat, _)| head.contains(pat)) {
        None => format!("other: {}", head.chars().take(80).collect::<String>()),
        Some((_, why)) if why.starts_with("overloads") && first.contains("cannot evaluate") => {
            "same name declared twice, in an #if the reader cannot evaluate".to_owned()
        }
        Some((_, why)) => (*why).to_owned(),
    }
}

/// The graph the error `first` suggests (`declare them, e.g. `kernel ...;``), if it suggests
/// one.
fn suggested(first: &str) -> Option<String> {
    let (_, rest) = first.split_once("declare them, e.g. `")?;
    let (decl, _) = rest.split_once('`')?;
    Some(decl.to_owned())
}

/// C types a template value parameter gets `1` for.
#[rustfmt::skip]
const INTEGERS: &[&str] = &[
    "int", "unsigned", "signed", "long", "short", "char", "size_t", "int8_t", "int16_t",
    "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uint", "index_t",
];

/// The first enumerator of the enum the C type `ty` names, as a user writes it (`Mode::kA`),
/// if the file defines (or includes) one of that name.
fn enumerator(ty: &str, enums: &[CEnum]) -> Option<String> {
    let name = ty.split_whitespace().rfind(|w| *w != "const")?;
    let e = enums.iter().find(|e| e.name == name)?;
    let (first, _) = e.values.first()?;
    Some(format!("{}::{first}", e.name))
}

/// The template arguments a user would write, up to the first one there is none for.
fn template_args(tps: &[TParam], enums: &[CEnum]) -> Vec<String> {
    let mut args = Vec::new();
    for p in tps {
        let (Some(ty), default) = (&p.value, &p.default) else {
            args.push("f32".to_owned());
            continue;
        };
        let words: Vec<&str> = ty.split_whitespace().filter(|w| *w != "const").collect();
        let literal = |d: &str| {
            matches!(d, "true" | "false")
                || d.trim_start_matches('-')
                    .starts_with(|c: char| c.is_ascii_digit())
        };
        args.push(match default {
            Some(d) if literal(d) => d.clone(),
            Some(_) => break,
            None if words == ["bool"] => "true".to_owned(),
            None if !words.is_empty() && words.iter().all(|w| INTEGERS.contains(w)) => {
                "1".to_owned()
            }
            None => match enumerator(ty, enums) {
                Some(e) => e,
                None => break,
            },
        });
    }
    args
}

fn decl_for(k: &CKernel, enums: &[CEnum]) -> String {
    match &k.template {
        None => format!("kernel {};", k.name),
        Some(tps) => format!(
            "kernel {}<{}>;",
            k.name,
            template_args(tps, enums).join(", ")
        ),
    }
}

/// The errors left for `decl` from `file` (in `dir`), or the graph text's parse error; and how
/// many of its buffer parameters have an element type of the user's whose layout nothing
/// checks (the reader does not know the C type's, and the driver sees only a pointer).
fn errors(dir: &Path, file: &str, decl: &str) -> (Vec<String>, usize) {
    let text = format!("graph G {{ source {file:?}; {decl} }}");
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
        return (
            vec![format!("graph text does not parse (tokens): {text}")],
            0,
        );
    };
    let dirs = Dirs {
        manifest: Some(dir.to_path_buf()),
        call: None,
    };
    match check_in(tokens, &dirs) {
        Err(e) => (vec![format!("graph text does not parse: {e}: {text}")], 0),
        Ok((graphs, errs)) => {
            let unchecked = graphs
                .iter()
                .flat_map(|g| &g.kernels)
                .map(|k| {
                    let user = |t: &syn::Type| {
                        primitive(t).is_none() && !is_void(t) && addr_of(t).is_none()
                    };
                    let text = |t: &syn::Type| quote::ToTokens::to_token_stream(t).to_string();
                    let checked: Vec<String> = k.sizes.iter().map(|l| text(&l.ty)).collect();
                    // Element types of buffers: nothing at run time checks them either (a
                    // by-value argument's size is checked against the kernel's when the graph
                    // is built).
                    k.params
                        .iter()
                        .filter_map(|(_, p)| match p {
                            ParamTy::Scalar(_) => None,
                            ParamTy::Slice { elem, .. } => {
                                Some(addr_of(elem).unwrap_or(elem)).filter(|t| user(t))
                            }
                        })
                        .filter(|t| !checked.contains(&text(t)))
                        .count()
                })
                .sum();
            let left = errs
                .messages()
                .into_iter()
                .filter(|m| !m.contains("never launched") && !m.contains("no node launches"))
                .collect();
            (left, unchecked)
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        let cuda = matches!(
            path.extension().and_then(|x| x.to_str()),
            Some("cu" | "cuh")
        );
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&path, out),
            Ok(t) if t.is_file() && cuda => out.push(path),
            _ => {}
        }
    }
}

#[derive(Default)]
struct Project {
    name: String,
    /// files, declarations, accepted, distinct declarations, distinct accepted, left out, panics
    n: [usize; 7],
    /// With `--lists`: distinct declarations accepted only through the suggested list, and of
    /// them those with a buffer of a named element type whose layout nothing checks.
    listed: [usize; 2],
    reasons: BTreeMap<String, usize>,
}

/// The last panic's message and place, set by the hook.
static PANIC: Mutex<String> = Mutex::new(String::new());

fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f))
        .map_err(|_| PANIC.lock().map(|p| p.clone()).unwrap_or_default())
}

fn one_line(s: &str) -> String {
    s.replace('\n', " | ")
}

/// One project: its counts, with a line per refusal added to `details`; `lists`: a refusal
/// that suggests a parameter list gets a second try with it.
fn project(name: &str, root: &Path, lists: bool, details: &mut String) -> Project {
    let mut p = Project {
        name: name.to_owned(),
        ..Project::default()
    };
    // Each declaration once (a header's kernels are read again by every file that includes
    // it): whether some file's graph accepted it.
    // 0: refused; 1: accepted through a list, a buffer's named element type unchecked; 2:
    // through a list, every named element type checked; 3: accepted as `kernel NAME;`.
    let mut distinct: BTreeMap<(PathBuf, usize, String), u8> = BTreeMap::new();
    let mut files = Vec::new();
    walk(root, &mut files);
    p.n[0] = files.len();
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let src = match guarded(|| parse_file(&text, Some(path), &[])) {
            Ok(s) => s,
            Err(why) => {
                p.n[6] += 1;
                *p.reasons
                    .entry("PANIC in parse_file".to_owned())
                    .or_default() += 1;
                let _ = writeln!(details, "{name}\t{rel}\t0\t-\tPANIC in parse_file\t{why}");
                continue;
            }
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let file = path
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned());
        // Where a kernel is declared: the file, or an included one (`header (in file)`).
        let at = |k: &CKernel| match &k.file {
            None => (path.clone(), rel.clone()),
            Some(h) => {
                let found = src
                    .includes
                    .iter()
                    .find(|(n, _)| n == h)
                    .map(|(_, p)| p.clone());
                let hp = found.unwrap_or_else(|| dir.join(h));
                (
                    std::fs::canonicalize(&hp).unwrap_or(hp),
                    format!("{h} (in {rel})"),
                )
            }
        };
        // A guarded header's second inclusion is no kernel left out.
        let kept: BTreeSet<&str> = src.kernels.iter().map(|k| k.name.as_str()).collect();
        for (k, why) in src
            .removed
            .iter()
            .filter(|(k, _)| !kept.contains(k.name.as_str()))
        {
            p.n[5] += 1;
            let _ = writeln!(
                details,
                "{name}\t{}\t{}\t{}\t(left out by the preprocessor; not counted)\t{}",
                at(k).1,
                k.line,
                k.name,
                one_line(why)
            );
        }
        for k in &src.kernels {
            p.n[1] += 1;
            let (decl_path, shown) = at(k);
            let seen = distinct
                .entry((decl_path, k.line, k.name.clone()))
                .or_default();
            let mut decl = decl_for(k, &src.enums);
            let mut tried = guarded(|| errors(dir, &file, &decl));
            let mut listed = false;
            if let (true, Ok((errs, _))) = (lists, &tried) {
                if let Some(list) = errs.first().and_then(|e| suggested(e)) {
                    decl = list;
                    listed = true;
                    tried = guarded(|| errors(dir, &file, &decl));
                }
            }
            let (why, msg) = match tried {
                Ok((errs, unchecked)) => match errs.first() {
                    None => {
                        p.n[2] += 1;
                        let state = match (listed, unchecked) {
                            (false, _) => 3,
                            (true, 0) => 2,
                            (true, _) => 1,
                        };
                        *seen = (*seen).max(state);
                        continue;
                    }
                    Some(first) => (classify(first), format!("{decl} => {first}")),
                },
                Err(why) => {
                    p.n[6] += 1;
                    ("PANIC in check_in".to_owned(), format!("{decl} => {why}"))
                }
            };
            *p.reasons.entry(why.clone()).or_default() += 1;
            let (line, msg) = (k.line, one_line(&msg));
            let _ = writeln!(details, "{name}\t{shown}\t{line}\t{}\t{why}\t{msg}", k.name);
        }
    }
    p.n[3] = distinct.len();
    p.n[4] = distinct.values().filter(|a| **a > 0).count();
    p.listed = [
        distinct.values().filter(|a| matches!(**a, 1 | 2)).count(),
        distinct.values().filter(|a| **a == 1).count(),
    ];
    p
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut p) = PANIC.lock() {
            *p = one_line(&info.to_string());
        }
    }));
    let (mut projects, mut md_out, mut details_out) = (Vec::new(), None, None);
    let mut lists = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), a.split_once('=')) {
            ("--lists", _) => lists = true,
            ("--md", _) => md_out = args.next(),
            ("--details", _) => details_out = args.next(),
            (_, Some((n, d))) => projects.push((n.to_owned(), PathBuf::from(d))),
            _ => {
                eprintln!("usage: source_acceptance NAME=DIR [NAME=DIR ...] [--lists] [--md OUT.md] [--details OUT.txt]");
                std::process::exit(2);
            }
        }
    }
    if projects.is_empty() {
        // Nothing to measure (as when run bare, with the other examples): say how to use it.
        println!("source_acceptance: no project given; run it as `source_acceptance NAME=DIR [NAME=DIR ...] [--lists] [--md OUT.md] [--details OUT.txt]`");
        return;
    }
    let mut details = String::new();
    let results: Vec<Project> = projects
        .iter()
        .map(|(n, d)| project(n, d, lists, &mut details))
        .collect();
    let (text, md) = report(&results);
    print!("{text}");
    for (out, body) in [(md_out, md), (details_out, details)] {
        if let Some(out) = out {
            if let Err(e) = std::fs::write(&out, body) {
                eprintln!("cannot write {out}: {e}");
                std::process::exit(1);
            }
        }
    }
}

fn pct(a: usize, t: usize) -> String {
    format!("{:.1}%", 100.0 * a as f64 / t.max(1) as f64)
}

/// The report as plain text and as markdown.
fn report(ps: &[Project]) -> (String, String) {
    let (mut t, mut m) = (String::new(), String::new());
    let head = "project,files,declarations,accepted,%,distinct,distinct accepted,%,left out by the preprocessor,panics";
    let mut rows = vec![head.split(',').map(str::to_owned).collect::<Vec<_>>()];
    let mut all = Project {
        name: "all".to_owned(),
        ..Project::default()
    };
    for p in ps {
        all.n.iter_mut().zip(p.n).for_each(|(a, b)| *a += b);
        for (r, n) in &p.reasons {
            *all.reasons.entry(r.clone()).or_default() += n;
        }
    }
    for p in ps.iter().chain([&all]) {
        let [f, d, a, dd, da, l, x] = p.n.map(|v| v.to_string());
        let (pc, dc) = (pct(p.n[2], p.n[1]), pct(p.n[4], p.n[3]));
        rows.push(vec![p.name.clone(), f, d, a, pc, dd, da, dc, l, x]);
    }
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(m, "| {} |", r.join(" | "));
        if i == 0 {
            let _ = writeln!(m, "|---|{}", "---:|".repeat(r.len() - 1));
        }
        let cells: Vec<String> = r.iter().map(|c| format!("{c:>9}")).collect();
        let _ = writeln!(t, "{:<13}{}", r[0], cells[1..].join(" "));
    }
    if ps.iter().any(|p| p.listed[0] > 0) {
        let _ = writeln!(t, "\naccepted only through the suggested list (distinct; of them with a buffer whose named element type's layout nothing checks):");
        let _ = writeln!(m, "\n| project | distinct accepted only through the suggested list | of them with a buffer whose named element type's layout nothing checks |\n|---|---:|---:|");
        for p in ps {
            let [l, u] = p.listed;
            let _ = writeln!(t, "{:<13}{l:>9} {u:>9}", p.name);
            let _ = writeln!(m, "| {} | {l} | {u} |", p.name);
        }
    }
    let mut reasons: Vec<(&String, &usize)> = all.reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
    let _ = writeln!(t, "\nrefusals by reason (overall: {}):", names.join(" / "));
    let _ = writeln!(m, "\n| reason | overall | {} |", names.join(" | "));
    let _ = writeln!(m, "|---|---:|{}", "---:|".repeat(ps.len()));
    for (r, n) in reasons {
        let per: Vec<String> = ps
            .iter()
            .map(|p| p.reasons.get(r).copied().unwrap_or(0).to_string())
            .collect();
        let _ = writeln!(t, "{n:>6}: {:<18} {r}", per.join(" / "));
        let _ = writeln!(
            m,
            "| {} | {n} | {} |",
            r.replace('|', "\\|"),
            per.join(" | ")
        );
    }
    (t, m)
}
