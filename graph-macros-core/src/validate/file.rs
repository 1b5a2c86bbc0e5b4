//! The CUDA source files a graph names (`source "file.cu";`, `kernel k(...) in "file.cu";`),
//! found beside the crate or the calling file and read at compile time, and how messages quote
//! them.

use std::path::{Path, PathBuf};

use syn::LitStr;

use crate::csrc::{self, CKernel};
use crate::model::Errors;

/// Where relative paths are looked up: the crate's manifest directory first, then the
/// directory of the file the macro is called in.
#[derive(Debug, Clone, Default)]
pub struct Dirs {
    /// The crate's manifest directory (`CARGO_MANIFEST_DIR`).
    pub manifest: Option<PathBuf>,
    /// The directory of the file the macro is called in, if known.
    pub call: Option<PathBuf>,
}

impl Dirs {
    /// The compiler's: `CARGO_MANIFEST_DIR`, and the calling file's directory if known.
    pub fn from_env(call: Option<PathBuf>) -> Self {
        Dirs {
            manifest: std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from),
            call,
        }
    }
}

/// A source file read and scanned.
pub struct Loaded {
    /// The path as written.
    pub shown: String,
    /// Where it was found.
    pub path: PathBuf,
    pub src: csrc::Source,
}

/// Reads the file `lit` names; an error at `lit` if it cannot be read or declares no kernel.
pub(super) fn load(
    lit: &LitStr,
    dirs: &Dirs,
    defines: &[(String, String)],
    errors: &mut Errors,
) -> Option<Loaded> {
    let shown = lit.value();
    let rel = Path::new(&shown);
    let mut tried: Vec<PathBuf> = if rel.is_absolute() {
        vec![rel.to_owned()]
    } else {
        [&dirs.manifest, &dirs.call]
            .into_iter()
            .flatten()
            .map(|d| d.join(rel))
            .collect()
    };
    tried.dedup();
    let mut last_err = None;
    for path in &tried {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let src = csrc::parse_file(&text, Some(path), defines);
                if src.kernels.is_empty() {
                    let macros = macro_note(&src);
                    errors.at(
                        lit.span(),
                        format!(
                            "`{shown}` declares no `__global__` kernel; a kernel the graph can launch is declared `__global__ void name(...)`{macros}"
                        ),
                    );
                    return None;
                }
                return Some(Loaded {
                    shown,
                    path: path.clone(),
                    src,
                });
            }
            Err(e) => last_err = Some(e),
        }
    }
    let why = last_err.map_or("no directory to look in".to_owned(), |e| e.to_string());
    let looked = if rel.is_absolute() {
        String::new()
    } else {
        "; looked in the crate's manifest directory and beside the file the macro is called in"
            .to_owned()
    };
    errors.at(
        lit.span(),
        format!("cannot read the CUDA source `{shown}`: {why}{looked}"),
    );
    None
}

pub(super) fn macro_note(src: &csrc::Source) -> String {
    if src.notes.is_empty() {
        String::new()
    } else {
        format!(
            " (the checker could not read all of it: {})",
            src.notes.join("; ")
        )
    }
}

/// `file:line: declaration`, as messages quote a C declaration.
pub(super) fn quote_c(file: &Loaded, k: &CKernel) -> String {
    let cond = match &k.conditional {
        Some(c) => format!(" (inside `{c}`, which the checker cannot evaluate)"),
        None => String::new(),
    };
    let shown = k.file.as_deref().unwrap_or(&file.shown);
    format!("{shown}:{}: {}{cond}", k.line, k.decl)
}
