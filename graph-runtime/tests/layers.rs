//! The runtime's layers, as `docs/architecture.md` lists them, are the layers its code keeps:
//! no module names (by `use`, or by an inline `crate::` or `super::` path) a module listed
//! after it. Comments do not count (documentation may link anywhere).
//!
//! It reads source files and makes no CUDA call, so compute-sanitizer refuses to run it; like
//! the trybuild harness it stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests
//! whose source names trybuild) and runs in CI.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The top-level modules of the runtime (files and folders of `src/`, but `lib.rs`).
fn modules(src: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(src)
        .expect("the runtime's src/")
        .map(|e| e.expect("an entry").path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_owned();
            if p.is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".rs")
                    .filter(|n| *n != "lib")
                    .map(str::to_owned)
            }
        })
        .collect();
    out.sort();
    out
}

/// The runtime's modules in the order `docs/architecture.md` lists them (first mention in its
/// `cuda-graph-runtime` section, numbered list by numbered list).
fn documented_order(doc: &str, modules: &[String]) -> Vec<String> {
    let start = doc
        .find("## `cuda-graph-runtime`")
        .expect("architecture.md has a section for the runtime");
    let section = &doc[start + 3..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let mut order = Vec::new();
    // A module is named as `name` or `name/`; `file.rs` names a file inside a folder.
    for piece in section.split('`').skip(1).step_by(2) {
        if piece.contains(".rs") {
            continue;
        }
        let first = piece.split(['/', ' ', '(']).next().unwrap_or("");
        if modules.iter().any(|m| m == first) && !order.iter().any(|o: &String| o == first) {
            order.push(first.to_owned());
        }
    }
    order
}

/// Every Rust file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a source folder") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `text` without comments (line comments, doc comments, block comments) and string literals.
fn code(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The first path segment of each top-level element of a `use` group, `group` starting after
/// its `{`: `a::X, b, c::{D, E}}` gives `a`, `b`, `c`.
fn group_heads(group: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut level = 0;
    let mut element_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => level += 1,
            '}' if level == 0 => break,
            '}' => level -= 1,
            ',' if level == 0 => element_start = true,
            c if element_start && !c.is_whitespace() => {
                out.push(
                    group[i..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect(),
                );
                element_start = false;
            }
            _ => {}
        }
    }
    out
}

/// The top-level modules a file names through `crate::` paths, and through `super::` paths
/// that climb to the crate root. `depth`: how many modules deep the file's own module is
/// (`src/kinds/kernel.rs` is 2 deep, `src/kinds/mod.rs` and `src/bind.rs` 1).
fn named(code: &str, depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut rest = code;
    loop {
        // The earlier of the next `crate::` and the next `super::`.
        let (at, root_path) = match (rest.find("crate::"), rest.find("super::")) {
            (Some(c), Some(s)) if s < c => (s, false),
            (Some(c), _) => (c, true),
            (None, Some(s)) => (s, false),
            (None, None) => break,
        };
        let mut tail = &rest[at..];
        let at_root = if root_path {
            tail = &tail["crate::".len()..];
            true
        } else {
            let mut up = 0;
            while let Some(t) = tail.strip_prefix("super::") {
                up += 1;
                tail = t;
            }
            up >= depth
        };
        if at_root {
            if let Some(group) = tail.strip_prefix('{') {
                out.extend(group_heads(group));
            } else {
                out.push(word(tail));
            }
        }
        rest = &rest[at + 1..];
    }
    out
}

#[test]
fn no_module_names_a_module_listed_after_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let doc = std::fs::read_to_string(root.join("../docs/architecture.md"))
        .expect("docs/architecture.md");
    let modules = modules(&src);
    let order = documented_order(&doc, &modules);
    let missing: Vec<&String> = modules.iter().filter(|m| !order.contains(m)).collect();
    assert!(
        missing.is_empty(),
        "modules docs/architecture.md does not place in a layer: {missing:?}"
    );
    let rank: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src/");
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .collect();
        if parts == ["lib"] {
            continue; // the crate root re-exports every layer
        }
        let module = &parts[0];
        let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod"));
        let text = std::fs::read_to_string(f).expect("a source file");
        for dep in named(&code(&text), depth) {
            let (Some(&mine), Some(&theirs)) = (rank.get(module.as_str()), rank.get(dep.as_str()))
            else {
                continue;
            };
            if theirs > mine {
                violations.push(format!(
                    "{} (layer of `{module}`) names `{dep}`, listed after it",
                    rel.display()
                ));
            }
        }
    }
    violations.sort();
    violations.dedup();
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_checker_reads_paths_as_the_compiler_does() {
    let text = "use crate::{error::E, bind::{A, B}}; // crate::exec\nfn f() { crate::kinds::x(); let s = \"crate::graph\"; super::super::id::N; }";
    let got = named(&code(text), 2);
    assert_eq!(got, ["error", "bind", "kinds", "id"]);
    // One level up from a file one module deep is the crate root; from two deep it is not.
    assert_eq!(named("super::driver::X", 1), ["driver"]);
    assert!(named("super::sibling::X", 2).is_empty());
}

#[test]
fn unsafe_code_lives_in_the_driver_layer_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let outside: Vec<String> = files
        .iter()
        .filter(|f| {
            let rel = f.strip_prefix(&src).expect("under src/");
            !rel.starts_with("driver") && rel != Path::new("block.rs")
        })
        .filter(|f| {
            let text = code(&std::fs::read_to_string(f).expect("a source file"));
            text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .any(|w| w == "unsafe")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        outside.is_empty(),
        "`unsafe` outside driver/ and block.rs: {outside:?}"
    );
}

/// The items a folder's `mod.rs` re-exports from its files (`pub(crate) use file::{A, B}`,
/// `pub use file::A`, `use file::*`: for a glob, the file's `pub` and `pub(crate)` items),
/// as item name -> file.
fn reexports(mod_code: &str, folder: &Path, files: &[String]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for stmt in mod_code.split(';') {
        let stmt = stmt.trim();
        let Some(at) = stmt.find("use ") else {
            continue;
        };
        if !stmt[..at].contains("pub") {
            continue;
        }
        let path = stmt[at + 4..].trim().trim_start_matches("self::");
        let file = word(path);
        if !files.contains(&file) {
            continue;
        }
        let rest = path[file.len()..].trim_start_matches("::").trim();
        let names: Vec<String> = if rest == "*" {
            let text = std::fs::read_to_string(folder.join(format!("{file}.rs")))
                .expect("a file of the folder");
            let text = code(&text);
            let mut names = Vec::new();
            for kw in [
                "struct ", "enum ", "fn ", "trait ", "type ", "const ", "static ", "mod ",
            ] {
                for vis in ["pub ", "pub(crate) "] {
                    let pat = format!("{vis}{kw}");
                    let mut s = text.as_str();
                    while let Some(i) = s.find(&pat) {
                        names.push(word(&s[i + pat.len()..]));
                        s = &s[i + pat.len()..];
                    }
                }
            }
            names
        } else if let Some(group) = rest.strip_prefix('{') {
            group
                .trim_end_matches('}')
                .split(',')
                .map(|e| {
                    let e = e.trim();
                    // `a as b` re-exports `a` under the name `b`.
                    e.rsplit(" as ").next().map(word).unwrap_or_default()
                })
                .filter(|n| !n.is_empty())
                .collect()
        } else {
            vec![word(rest.rsplit(" as ").next().unwrap_or(rest))]
        };
        for n in names {
            out.insert(n, file.clone());
        }
    }
    out
}

/// The sibling files a file of a folder names: `super::file::..` paths, and items of a
/// sibling that `mod.rs` re-exports, named as `super::Item` or in `super::{..}`. One
/// `super::` only (two climb above the folder: the other test's concern).
fn siblings_named(code: &str, files: &[String], items: &BTreeMap<String, String>) -> Vec<String> {
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let resolve = |name: &str| -> Option<String> {
        if files.iter().any(|f| f == name) {
            Some(name.to_owned())
        } else {
            items.get(name).cloned()
        }
    };
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let tail = &rest[at + "super::".len()..];
        let before_is_super = rest[..at].ends_with("super::");
        rest = &rest[at + 1..];
        if before_is_super || tail.starts_with("super::") {
            continue;
        }
        if let Some(group) = tail.strip_prefix('{') {
            out.extend(group_heads(group).iter().filter_map(|h| resolve(h)));
        } else {
            out.extend(resolve(&word(tail)));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A circle in `edges` (file -> files it names), as the files around it, if there is one.
fn a_circle(edges: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    // Depth-first, with the path so far; 0 unseen, 1 on the path, 2 done.
    fn visit(
        n: &str,
        edges: &BTreeMap<String, Vec<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_owned(), 1);
        path.push(n.to_owned());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| p == m).expect("on the path");
                    return Some(path[from..].to_vec());
                }
                0 => {
                    if let Some(c) = visit(m, edges, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut path = Vec::new();
            if let Some(c) = visit(n, edges, &mut state, &mut path) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_file_of_a_folder_names_a_file_that_names_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut circles = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&src)
        .expect("the runtime's src/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let mut files: Vec<String> = std::fs::read_dir(&folder)
            .expect("a folder")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .filter_map(|p| p.file_stem()?.to_str().map(str::to_owned))
            .filter(|n| n != "mod")
            .collect();
        files.sort();
        let mod_code = code(&std::fs::read_to_string(folder.join("mod.rs")).unwrap_or_default());
        let items = reexports(&mod_code, &folder, &files);
        let mut edges = BTreeMap::new();
        for f in &files {
            let text =
                code(&std::fs::read_to_string(folder.join(format!("{f}.rs"))).expect("a file"));
            let named: Vec<String> = siblings_named(&text, &files, &items)
                .into_iter()
                .filter(|n| n != f)
                .collect();
            edges.insert(f.clone(), named);
        }
        if let Some(c) = a_circle(&edges) {
            let name = folder
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            circles.push(format!(
                "{name}/: {} -> {}",
                c.iter()
                    .map(|f| format!("{f}.rs"))
                    .collect::<Vec<_>>()
                    .join(" -> "),
                c[0]
            ));
        }
    }
    assert!(
        circles.is_empty(),
        "files that name each other, in a circle:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_folder_checker_sees_paths_and_reexports() {
    let files = vec!["exec".to_owned(), "graph".to_owned(), "nodes".to_owned()];
    let mut items = BTreeMap::new();
    items.insert("RawExec".to_owned(), "exec".to_owned());
    items.insert("RawGraph".to_owned(), "graph".to_owned());
    let text = "use super::nodes::Idle;\nuse super::{check, RawGraph, exec::X};\nfn f() { super::super::id::N; }";
    assert_eq!(
        siblings_named(&code(text), &files, &items),
        ["exec", "graph", "nodes"]
    );
    let mut edges = BTreeMap::new();
    edges.insert("exec".to_owned(), vec!["nodes".to_owned()]);
    edges.insert("nodes".to_owned(), vec!["graph".to_owned()]);
    edges.insert("graph".to_owned(), vec!["exec".to_owned()]);
    assert_eq!(a_circle(&edges).expect("a circle").len(), 3);
    edges.insert("graph".to_owned(), vec![]);
    assert!(a_circle(&edges).is_none());
    // A glob re-export names the file's public items.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/driver");
    let all: Vec<String> = std::fs::read_dir(&folder)
        .expect("driver/")
        .filter_map(|e| e.ok()?.path().file_stem()?.to_str().map(str::to_owned))
        .filter(|n| n != "mod")
        .collect();
    let got = reexports(
        &code(&std::fs::read_to_string(folder.join("mod.rs")).expect("driver/mod.rs")),
        &folder,
        &all,
    );
    assert_eq!(got.get("Idle").map(String::as_str), Some("params"));
    assert_eq!(got.get("RawExec").map(String::as_str), Some("exec"));
}
