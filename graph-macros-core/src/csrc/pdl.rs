//! Programmatic dependent launch, proved from the source: a kernel may take a programmatic
//! edge only if it waits for its predecessors (`cudaGridDependencySynchronize()` or the PTX
//! `griddepcontrol.wait`) on every path before it uses any pointer parameter; a predecessor
//! gains from one only if it triggers (`cudaTriggerProgrammaticLaunchCompletion()`,
//! `griddepcontrol.launch_dependents`).
//!
//! Conservative by construction. The wait counts only as a statement of the kernel's body
//! itself, outside every `if`, loop, `switch`, `?:`, `&&` and `||`; any mention of a pointer
//! (or struct, or reference) parameter before it, anywhere, even to compute an address, is a
//! use. A call to a `__device__` function of the file counts as a wait when that function waits
//! so itself (two calls deep at most). The runtime's calls count by name, as cuda-graph's device
//! API (or CUDA's header) defines them, unless the file defines a function of that name itself:
//! NVRTC then calls the file's (a function is preferred to the device API's templates), and
//! the proof follows it like any other.
//!
//! A kernel that waits may use parameters before its wait (to start loading weights while its
//! predecessor finishes, say): the proof lists them ([`Wait::Proven`]'s `early`), and each node
//! that launches the kernel on a programmatic edge must give each of them memory that no node
//! of the graph writes (the graph's check, not this file's).

use super::lex::{Kind, Tok};
use super::{CKernel, CType, Source};

/// Why a kernel cannot take a programmatic edge, or where it waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// It waits unconditionally, at this line; `early`: the parameters it uses before (each
    /// with the line of its first use), which must be memory no predecessor writes.
    Proven {
        /// The line of the wait.
        line: usize,
        /// The parameters used before it, each with the line of its first use.
        early: Vec<(String, usize)>,
    },
    /// No body in the file (a declaration only).
    NoBody,
    /// It never waits unconditionally; `conditional` is a wait under a condition, if any:
    /// its line and the construct (`if`, `for`, `?:`, ...).
    Never {
        /// A wait under a condition: its line and the construct.
        conditional: Option<(usize, String)>,
    },
    /// It never waits unconditionally, and uses parameter `param` at `line` (`conditional`: a
    /// wait under a condition, its line and the construct).
    UsedBefore {
        /// The parameter used.
        param: String,
        /// The line of its use.
        line: usize,
        /// A wait under a condition: its line and the construct.
        conditional: Option<(usize, String)>,
    },
}

const WAIT: &str = "cudaGridDependencySynchronize";
const WAIT_PTX: &str = "griddepcontrol.wait";
const TRIGGER: &str = "cudaTriggerProgrammaticLaunchCompletion";
const TRIGGER_PTX: &str = "griddepcontrol.launch_dependents";

/// What a statement's tokens do: a wait, if any, and the construct that makes it conditional.
fn is_call(t: &[Tok], i: usize) -> bool {
    t.get(i + 1).is_some_and(|x| x.text == "(")
}

/// The calls that wait (or trigger): the runtime's, by name, unless the file defines a function
/// of that name, and the file's device functions that do.
struct Calls {
    /// The runtime's call (`cudaGridDependencySynchronize`), or `None` where the file defines
    /// its own.
    builtin: Option<&'static str>,
    /// The PTX instruction, in an `asm` string.
    ptx: &'static str,
    /// Device functions of the file that wait (or trigger).
    fns: Vec<String>,
}

impl Calls {
    /// For the runtime call `name` and its instruction `ptx`, in `src`.
    fn new(src: &Source, name: &'static str, ptx: &'static str) -> Calls {
        let own = src.device_fns.iter().any(|f| f.name == name);
        Calls {
            builtin: (!own).then_some(name),
            ptx,
            fns: Vec::new(),
        }
    }

    /// Whether the token at `i` is one: the runtime call, the PTX instruction in an `asm`
    /// string, or a call to one of the device functions found.
    fn at(&self, t: &[Tok], i: usize) -> bool {
        let x = &t[i];
        match x.kind {
            Kind::Ident => {
                (self.builtin == Some(x.text.as_str()) || self.fns.contains(&x.text))
                    && is_call(t, i)
            }
            Kind::Str => x.text.contains(self.ptx),
            _ => false,
        }
    }
}

/// The first unconditional wait of `body` (its token index), or the first conditional one
/// with what makes it so.
fn first_wait(body: &[Tok], waiting: &Calls) -> (Option<usize>, Option<(usize, String)>) {
    // Per brace level: whether a control construct opened it.
    let mut blocks: Vec<Option<String>> = Vec::new();
    // A brace-less control statement in progress: the construct, and the block depth it
    // belongs to.
    let mut pending: Vec<(String, usize)> = Vec::new();
    // Whether the current statement holds `?`, `&&` or `||`, and where it started.
    let mut statement_start = 0;
    let mut conditional = None;
    let mut i = 0;
    while i < body.len() {
        let x = &body[i];
        match x.text.as_str() {
            "if" | "for" | "while" | "switch" if x.kind == Kind::Ident => {
                // Skip the condition, then see whether a block or a statement follows.
                let open = i + 1;
                let close = super::decl::skip_group(body, open);
                let next_is_block = body.get(close).is_some_and(|y| y.text == "{");
                if next_is_block {
                    blocks.push(Some(x.text.clone()));
                    i = close + 1;
                } else {
                    pending.push((x.text.clone(), blocks.len()));
                    i = close;
                }
                statement_start = i;
                continue;
            }
            "else" | "do" if x.kind == Kind::Ident => {
                if body.get(i + 1).is_some_and(|y| y.text == "{") {
                    blocks.push(Some(x.text.clone()));
                    i += 2;
                } else {
                    pending.push((x.text.clone(), blocks.len()));
                    i += 1;
                }
                statement_start = i;
                continue;
            }
            "{" => blocks.push(None),
            "}" => {
                blocks.pop();
                pending.retain(|&(_, d)| d <= blocks.len());
                // A brace-less `if`/loop whose statement was this block ends with it.
                while pending.last().is_some_and(|&(_, d)| d == blocks.len()) {
                    pending.pop();
                }
                statement_start = i + 1;
            }
            ";" => {
                // The statement of brace-less constructs at this depth ends here.
                while pending.last().is_some_and(|&(_, d)| d == blocks.len()) {
                    pending.pop();
                }
                statement_start = i + 1;
            }
            _ => {}
        }
        if waiting.at(body, i) {
            let end = body[i..]
                .iter()
                .position(|y| y.text == ";")
                .map_or(body.len(), |k| i + k);
            let in_expr = body[statement_start..end]
                .iter()
                .find(|y| matches!(y.text.as_str(), "?" | "&&" | "||"))
                .map(|y| {
                    if y.text == "?" {
                        "?:".to_owned()
                    } else {
                        y.text.clone()
                    }
                })
                .or_else(|| {
                    // `&&`/`||` are two tokens each.
                    body[statement_start..end].windows(2).find_map(|w| {
                        (w[0].text == w[1].text && matches!(w[0].text.as_str(), "&" | "|"))
                            .then(|| format!("{}{}", w[0].text, w[1].text))
                    })
                });
            let control = blocks
                .iter()
                .rev()
                .flatten()
                .next()
                .cloned()
                .or_else(|| pending.last().map(|(c, _)| c.clone()));
            match control.or(in_expr) {
                None => return (Some(i), conditional),
                Some(c) => {
                    if conditional.is_none() {
                        conditional = Some((body[i].line, c));
                    }
                }
            }
        }
        i += 1;
    }
    (None, conditional)
}

/// Names of the parameters a kernel could read or write memory through: pointers, arrays of
/// addresses, tensor maps (a descriptor holds a global address), and (conservatively)
/// structs and references, which may hold pointers.
fn memory_params(k: &CKernel) -> Vec<String> {
    k.params
        .iter()
        .filter(|p| match &p.ty {
            CType::Pointer { .. } | CType::Addresses { .. } | CType::Other(_) => true,
            CType::Scalar { rust, .. } => *rust == "TensorMap",
        })
        .filter_map(|p| p.name.clone())
        .collect()
}

/// The calls of `src` that wait unconditionally (device functions followed two calls deep).
fn waiting_fns(src: &Source) -> Calls {
    let mut waiting = Calls::new(src, WAIT, WAIT_PTX);
    for _ in 0..2 {
        for f in &src.device_fns {
            if !waiting.fns.contains(&f.name) && first_wait(&f.body, &waiting).0.is_some() {
                waiting.fns.push(f.name.clone());
            }
        }
    }
    waiting
}

/// The calls of `src` that trigger on some path (device functions followed two calls deep).
fn triggering_fns(src: &Source) -> Calls {
    let mut out = Calls::new(src, TRIGGER, TRIGGER_PTX);
    for _ in 0..2 {
        for f in &src.device_fns {
            if !out.fns.contains(&f.name) && (0..f.body.len()).any(|i| out.at(&f.body, i)) {
                out.fns.push(f.name.clone());
            }
        }
    }
    out
}

/// Whether `k` may take a programmatic edge: where it waits, or why not.
pub fn wait(src: &Source, k: &CKernel) -> Wait {
    if k.body.is_empty() {
        return Wait::NoBody;
    }
    let waiting = waiting_fns(src);
    let (at, conditional) = first_wait(&k.body, &waiting);
    let params = memory_params(k);
    let limit = at.unwrap_or(k.body.len());
    // A member (`threadIdx.x`, `p->x`, `ns::x`) is not the parameter of that name.
    let member = |i: usize| {
        let before = |d: usize| i.checked_sub(d).map(|j| k.body[j].text.as_str());
        match before(1) {
            Some(".") => true,
            Some(">") => before(2) == Some("-"),
            Some(":") => before(2) == Some(":"),
            _ => false,
        }
    };
    // Each parameter used before the wait, at its first use.
    let mut early: Vec<(String, usize)> = Vec::new();
    for (i, x) in k.body[..limit].iter().enumerate() {
        if x.kind == Kind::Ident
            && params.contains(&x.text)
            && !member(i)
            && !early.iter().any(|(p, _)| *p == x.text)
        {
            early.push((x.text.clone(), x.line));
        }
    }
    match at {
        Some(w) => Wait::Proven {
            line: k.body[w].line,
            early,
        },
        None => match early.into_iter().next() {
            Some((param, line)) => Wait::UsedBefore {
                param,
                line,
                conditional,
            },
            // Even with no pointer parameter: it may read globals its predecessor writes.
            None => Wait::Never { conditional },
        },
    }
}

/// Whether `k` triggers its dependents' launch on some path.
pub fn triggers(src: &Source, k: &CKernel) -> bool {
    let fns = triggering_fns(src);
    (0..k.body.len()).any(|i| fns.at(&k.body, i))
}
