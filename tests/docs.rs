//! The Markdown files' relative links point at files that exist: the README, the changelog,
//! the guide's chapters (`src/guide/*.md`) and everything under `docs/`. A link is resolved from
//! the directory of the file that holds it, as GitHub shows it; links to the web, anchors of the
//! same page and rustdoc's intra-doc links (`crate::Graph`, `super::ch02_conditionals`) are not
//! files and are left to rustdoc. No GPU needed.

use std::path::{Path, PathBuf};

/// Every Markdown file the check reads, relative to the repository's root.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    for dir in ["src/guide", "docs"] {
        walk(&root.join(dir), &mut files);
    }
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The targets of the inline links and images of `text` (`[..](target)`, `![..](target)`),
/// outside fenced code blocks and code spans, with their line numbers.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans dropped: what is between backticks is code, not a link.
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                prose.push_str(part);
            } else {
                prose.push_str(&" ".repeat(part.len()));
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            match after.find(')') {
                Some(end) => {
                    found.push((n + 1, after[..end].trim().to_owned()));
                    rest = &after[end..];
                }
                None => break,
            }
        }
    }
    found
}

/// Whether `target` names a file (not the web, an anchor or a rustdoc item path).
fn is_file_link(target: &str) -> bool {
    let target = target.split('#').next().unwrap_or("");
    !(target.is_empty()
        || target.contains("://")
        || target.starts_with("mailto:")
        || target.contains("::")
        || (!target.contains('/') && !target.contains('.')))
}

#[test]
fn every_relative_link_points_at_a_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files(root) {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let dir = file.parent().expect("a file has a directory");
        for (line, target) in link_targets(&text) {
            if !is_file_link(&target) {
                continue;
            }
            checked += 1;
            let path = target.split('#').next().unwrap_or("");
            if !dir.join(path).exists() {
                broken.push(format!(
                    "{}:{line}: `{target}`",
                    file.strip_prefix(root).unwrap_or(&file).display()
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to files that do not exist:\n{}",
        broken.join("\n")
    );
    assert!(
        checked > 50,
        "only {checked} links found: the reader is broken"
    );
}

#[test]
fn the_link_reader_finds_links_and_skips_code() {
    let text = "see [a](docs/a.md) and ![p](p.svg)\n`[not](x.md)` [b](#anchor) [c](crate::Graph)\n```\n[no](code.md)\n```\n[w](https://x.org/y.md)";
    let targets: Vec<String> = link_targets(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(
        targets,
        [
            "docs/a.md",
            "p.svg",
            "#anchor",
            "crate::Graph",
            "https://x.org/y.md"
        ]
    );
    let files: Vec<&String> = targets.iter().filter(|t| is_file_link(t)).collect();
    assert_eq!(files, ["docs/a.md", "p.svg"]);
    assert!(!is_file_link("ch01_grammar"));
    assert!(is_file_link("../../examples/heat.rs#L10"));
}
