//! What a node kind's lowering uses: the declarations it resolves names against, the errors,
//! and the helpers every kind shares (inputs found by name and kind, expressions that use params
//! and constants only, "did you mean" hints).

use std::collections::BTreeSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Expr, Ident};

pub use crate::hints::{closest, edit_distance, either, hint, proposed, suggestions};
use crate::model::{Cond, Errors, Implicit, Input, InputKind, Kernel, Uses, Value};

/// `KernelMut` setters a kernel node's view reaches through `Deref` (`set_grid`, ...): a kernel
/// parameter's setter may not hide them.
pub const VIEW_SETTERS: &[&str] = &[
    "args",
    "arg",
    "launch",
    "grid",
    "block",
    "shared_mem",
    "enabled",
    "",
];

/// The Rust names of kernel parameters taken from C (`c[i]`: the C name, if any): the
/// snake_case of the C name (`N` is `n`, `ldA` is `ld_a`); parameter `i` without a usable name is
/// `p{i}`; a name that is a Rust keyword, hides a view setter (`grid`, `block`, ...) or repeats an
/// earlier parameter's gets `_{i}` (`grid_3`). Setters are `set_` and the name.
pub fn rust_param_names(c: &[Option<&str>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(c.len());
    for (i, name) in c.iter().enumerate() {
        let usable = name.filter(|n| {
            n.chars()
                .next()
                .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
                && n.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        });
        let mut n = match usable {
            Some(n) => snake_case(n),
            None => format!("p{i}"),
        };
        let clash = |n: &str, out: &[String]| {
            syn::parse_str::<Ident>(n).is_err()
                || VIEW_SETTERS.contains(&n)
                || out.iter().any(|o| o == n)
        };
        if clash(&n, &out) {
            n = format!("{n}_{i}");
            while clash(&n, &out) {
                n.push('_');
            }
        }
        out.push(n);
    }
    out
}

/// `name` in snake_case, as Rust names methods: `numRows` is `num_rows`, `N` is `n`, `ldA` is
/// `ld_a`, `HTTPCode` is `http_code`.
pub fn snake_case(name: &str) -> String {
    let c: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &ch) in c.iter().enumerate() {
        if ch.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|j| c[j]);
            let next = c.get(i + 1);
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// `name` in UpperCamelCase, as Rust names types: `scale_rows` is `ScaleRows`.
pub fn camel_case(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut cs = p.chars();
            cs.next()
                .map(|f| f.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The primitive scalar type `ty` names (`f32`, `u32`, ...), as written; `None` for any other
/// type (a struct, an alias), whose comparisons are left to the compiler.
pub fn primitive(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            // `f32`, or a type of the crate's by its last segment (`half::f16`, `Float2`,
            // `fp8::F8E4M3`).
            let last = p.path.segments.last()?;
            if !last.arguments.is_none() {
                return None;
            }
            let id = last.ident.to_string();
            let primitive = p.path.get_ident().is_some();
            let crate_type = matches!(id.as_str(), "f16" | "bf16" | "Cond" | "TensorMap")
                || crate::csrc::VECTOR_TYPES.iter().any(|v| v.rust == id)
                || crate::csrc::rust_path(&id).starts_with("::cuda_graph::fp8::");
            // `Tag` (an empty tag type) has no one C spelling.
            if id == "Tag" {
                return Some(id);
            }
            (primitive || crate_type)
                .then(|| crate::csrc::c_of(&id).map(|_| id))
                .flatten()
        }
        _ => None,
    }
}

/// Whether `ty` is the runtime's untyped element (`Void`, `buffer::Void`): a `void*`
/// parameter, which takes a buffer of any element type.
pub fn is_void(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Void" && s.arguments.is_none()))
}

/// `X` when `t` is `Addr<X>` (a buffer element that is a device address).
pub fn addr_of(t: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = t else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match (last.ident == "Addr", a.args.first(), a.args.len()) {
        (true, Some(syn::GenericArgument::Type(x)), 1) => Some(x),
        _ => None,
    }
}

/// Another graph of the same macro call, as a node that makes it a child sees it: the inputs of
/// its `NameChild` struct.
pub struct KnownGraph {
    /// The graph's name.
    pub name: Ident,
    /// Its inputs, by name, in the order declared (temporaries left out).
    pub inputs: Vec<(Ident, KnownInput)>,
}

/// An input of a [`KnownGraph`].
pub enum KnownInput {
    /// A buffer (`buffer`, `host_buffer`).
    Buffer {
        /// `host_buffer`: host memory.
        host: bool,
        /// Declared `mut`.
        mutable: bool,
        /// The element type.
        elem: syn::Type,
        /// A stack of buffers (`buffer w[n]: T;`).
        stack: bool,
    },
    /// A param (`param name: T;`), of this type.
    Param(syn::Type),
    /// A host callback (`callback name;`).
    Callback,
    /// A CUDA event (`event name;`).
    Event,
    /// Captured work (`work name;`).
    Work,
    /// An NCCL communicator (`comm name;`).
    Comm,
}

impl KnownGraph {
    /// The inputs `def` declares (temporaries are no inputs).
    pub fn of(def: &crate::ast::GraphDef) -> Self {
        use crate::ast::Item;
        let inputs = def
            .items
            .iter()
            .filter_map(|item| {
                Some(match item {
                    Item::Buffer(b) => (
                        b.name.clone(),
                        KnownInput::Buffer {
                            host: b.host,
                            mutable: b.mutable,
                            elem: b.elem.clone(),
                            stack: b.count.is_some(),
                        },
                    ),
                    Item::Param(p) => (p.name.clone(), KnownInput::Param(p.ty.clone())),
                    Item::Callback(n) => (n.clone(), KnownInput::Callback),
                    Item::Event(n) => (n.clone(), KnownInput::Event),
                    Item::Work(n) => (n.clone(), KnownInput::Work),
                    Item::Comm(n) => (n.clone(), KnownInput::Comm),
                    _ => return None,
                })
            })
            .collect();
        KnownGraph {
            name: def.name.clone(),
            inputs,
        }
    }
}

/// What a node kind's lowering reads and marks: the declarations, and where errors go.
pub struct Lower<'m> {
    /// The graph's declared kernels (a launch marks its kernel used).
    pub kernels: &'m mut Vec<Kernel>,
    /// The graph's inputs (lowering marks those it meets used).
    pub inputs: &'m mut Vec<Input>,
    /// The graph's condition handles.
    pub conds: &'m mut Vec<Cond>,
    /// Condition handles of the other graphs of the macro call, and their graph.
    pub foreign: &'m [(String, String)],
    /// The other graphs of the macro call, for the nodes that make one a child.
    pub known: &'m [KnownGraph],
    /// The graph's name, for messages.
    pub graph: String,
    /// Where errors go.
    pub errors: &'m mut Errors,
    /// While the nodes of a repeat block's body are lowered: the block.
    pub iter: Option<Iter>,
    /// Every repeat block's loop variable and block name, for messages.
    pub loop_vars: Vec<(String, String)>,
}

/// The repeat block whose body is being lowered: its loop variable, its node index (`None`
/// when the block itself was left out, for an error), its count as written.
#[derive(Clone)]
pub struct Iter {
    /// The loop variable, as written (`_` when the body names none).
    pub var: Ident,
    /// The block's node index (`None` when the block was left out).
    pub block: Option<usize>,
    /// The block's name, for messages.
    pub name: Ident,
    /// The count, as written.
    pub count: Expr,
}

impl Lower<'_> {
    /// The condition handle called `name`.
    pub fn find_cond(&self, name: &Ident) -> Option<usize> {
        self.conds.iter().position(|c| &c.name == name)
    }

    /// Why `name`, a condition handle of this graph or another, cannot be used where `what`
    /// is; `None` if it is no condition handle.
    pub fn cond_misuse(&self, name: &Ident, what: &str) -> Option<String> {
        if self.find_cond(name).is_some() {
            return Some(format!(
                "`{name}` is a condition handle, which {what} cannot use; pass it alone as a kernel argument (a parameter of type `Cond`) to the kernel that sets it"
            ));
        }
        let (_, graph) = self.foreign.iter().find(|(c, _)| name == c)?;
        Some(format!(
            "condition `{name}` belongs to graph `{graph}`; a condition handle is used only in the graph that declares it (and its conditional bodies), not in `{}`: declare a `cond` here",
            self.graph
        ))
    }

    /// The input called `name`.
    pub fn find(&self, name: &Ident) -> Option<usize> {
        self.inputs.iter().position(|i| &i.name == name)
    }

    /// Names of the inputs of one kind, for hints.
    fn names(&self, of: impl Fn(&InputKind) -> bool) -> Vec<String> {
        self.inputs
            .iter()
            .filter(|i| of(&i.kind))
            .map(|i| i.name.to_string())
            .collect()
    }

    /// The buffer called `id`, which the node needs `writable` (or not), on the graph's device
    /// (or also on the host, if `host_ok`). `what` names the operation in messages.
    pub fn buffer(
        &mut self,
        id: &Ident,
        writable: bool,
        host_ok: bool,
        what: &str,
    ) -> Option<usize> {
        let i = self.any_buffer(id, writable, host_ok, what)?;
        if self.inputs[i].kind.buffer().is_some_and(|b| b.peer) {
            self.errors
                .once(format!("peer:{id}"), id.span(), peer_misuse(id, what));
            return None;
        }
        Some(i)
    }

    /// A memcpy end: as [`buffer`](Self::buffer), and a buffer of another device (`on peer`)
    /// too: a peer copy.
    pub fn memcpy_end(&mut self, id: &Ident, writable: bool) -> Option<usize> {
        self.any_buffer(id, writable, true, "memcpy")
    }

    fn any_buffer(
        &mut self,
        id: &Ident,
        writable: bool,
        host_ok: bool,
        what: &str,
    ) -> Option<usize> {
        let Some(i) = self.find(id) else {
            let names = self.names(|k| matches!(k, InputKind::Buffer(_)));
            self.errors.once(
                format!("no-buffer:{id}"),
                id.span(),
                format!(
                    "no buffer named `{id}` is declared{}",
                    hint(&id.to_string(), names, "; declare it with `buffer ...`")
                ),
            );
            return None;
        };
        // Named: with an error of its own here, it is no unused input as well.
        self.inputs[i].used = true;
        let Some(b) = self.inputs[i].kind.buffer() else {
            let d = self.inputs[i].kind.describe();
            self.errors.at(
                id.span(),
                format!("{what} needs a buffer, but `{id}` is {d}"),
            );
            return None;
        };
        if b.host && !host_ok {
            self.errors.at(
                id.span(),
                format!("{what} needs a device buffer, but `{id}` is a host buffer"),
            );
            return None;
        }
        if b.stack.is_some() {
            self.errors.at(
                id.span(),
                format!(
                    "`{id}` is a stack of buffers (`buffer {id}[..]`), and {what} takes one buffer; only kernel arguments take a buffer of a stack (`{id}[l]`)"
                ),
            );
            return None;
        }
        if writable && !b.mutable {
            let kw = if b.host { "host_buffer" } else { "buffer" };
            self.errors.once(
                format!("read-only:{id}"),
                id.span(),
                format!(
                    "{what} writes `{id}`, which is read-only; declare it `{kw} mut {id}: ...;`"
                ),
            );
            return None;
        }
        self.inputs[i].used = true;
        Some(i)
    }

    /// An expression (launch dimensions, a kernel argument, a memset value) that may use params,
    /// and constants or paths from the surrounding scope (names starting with an uppercase
    /// letter, or paths such as `u32::MAX`). A lowercase name that is no param is an error.
    /// The params it uses are recorded in the value and in `uses`.
    pub fn value(&mut self, uses: &mut Uses, e: Expr, what: &str) -> Option<Value> {
        let e = crate::model::bare(e);
        let mut ok = true;
        let mut params = BTreeSet::new();
        let mut iter = false;
        for id in free_idents(e.to_token_stream()) {
            let name = id.to_string();
            if self.iter.as_ref().is_some_and(|it| it.var == id) {
                iter = true;
                continue;
            }
            match self.find(&id) {
                Some(i) if matches!(self.inputs[i].kind, InputKind::Param(_)) => {
                    self.inputs[i].used = true;
                    // `rank` and `world` are read from their communicator.
                    if let Some(Implicit::Rank(c) | Implicit::World(c)) = self.inputs[i].implicit {
                        self.inputs[c].used = true;
                    }
                    params.insert(i);
                }
                Some(i) => {
                    let d = self.inputs[i].kind.describe();
                    let note = match self.inputs[i].kind.buffer() {
                        Some(b) if b.temp.is_some() => {
                            " (graph-owned memory, which exists only on the device while a launch runs)"
                        }
                        _ => "",
                    };
                    self.errors.at(
                        id.span(),
                        format!("`{name}` is {d}{note}; {what} can use params and constants only"),
                    );
                    ok = false;
                }
                None if self.loop_vars.iter().any(|(v, _)| *v == name) => {
                    let (_, block) = self
                        .loop_vars
                        .iter()
                        .find(|(v, _)| *v == name)
                        .expect("checked");
                    self.errors.at(
                        id.span(),
                        format!("`{name}` is the loop variable of repeat block `{block}`, known only inside its body; {what} here cannot use it"),
                    );
                    ok = false;
                }
                None if name == "rank" || name == "world" => {
                    let msg = self.implicit_misuse(&name);
                    self.errors.once(format!("implicit:{name}"), id.span(), msg);
                    ok = false;
                }
                None if self.cond_misuse(&id, what).is_some() => {
                    let msg = self.cond_misuse(&id, what).expect("checked");
                    self.errors.at(id.span(), msg);
                    ok = false;
                }
                None => {
                    let params = self.names(|k| matches!(k, InputKind::Param(_)));
                    let fallback = format!("; declare it with `param {name}: ...;`");
                    self.errors.once(
                        format!("unknown:{name}"),
                        id.span(),
                        format!(
                            "unknown param `{name}` in {what}{}",
                            hint(&name, params, &fallback)
                        ),
                    );
                    ok = false;
                }
            }
        }
        uses.params.extend(params.iter().copied());
        ok.then_some(Value {
            expr: e,
            params,
            iter,
        })
    }
}

impl Lower<'_> {
    /// Why `rank` or `world` (`name`) is unknown here: no `comm` is declared, or several are.
    fn implicit_misuse(&self, name: &str) -> String {
        let comms: Vec<String> = self
            .inputs
            .iter()
            .filter(|i| matches!(i.kind, InputKind::Comm))
            .map(|i| format!("`{}`", i.name))
            .collect();
        let what = if name == "rank" {
            "the rank of the graph's communicator"
        } else {
            "the number of ranks of the graph's communicator"
        };
        if comms.is_empty() {
            format!("`{name}` is {what}, and this graph declares none; declare one with `comm name;`, or declare `param {name}: u32;`")
        } else {
            format!(
                "`{name}` is {what}, and this graph declares {} ({}), so `{name}` could be any of theirs; keep one `comm` in the graph, or pass the value as a param (`param tp_{name}: u32;`)",
                if comms.len() == 2 { "two" } else { "several" },
                comms.join(", ")
            )
        }
    }
}

/// Why buffer `id`, declared `on peer` (of another device), cannot be used by `what`, which
/// runs on the graph's device, and what to write instead.
pub fn peer_misuse(id: &Ident, what: &str) -> String {
    format!(
        "{what} runs on this graph's device, but `{id}` is a buffer of another device (`on peer`); copy it into a buffer of this device with a memcpy node (`copy = memcpy(local, {id});`) and use that, or copy the result out to it"
    )
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while",
];

/// Lowercase identifiers of an expression that name a value: not a method, field, path
/// segment, function, macro, keyword or type after `as`.
pub fn free_idents(tokens: TokenStream) -> Vec<Ident> {
    let mut out = Vec::new();
    collect_free(tokens, &mut out);
    out
}

fn collect_free(tokens: TokenStream, out: &mut Vec<Ident>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => collect_free(g.stream(), out),
            TokenTree::Ident(id) => {
                let name = id.to_string();
                let prev = i.checked_sub(1).map(|j| &tts[j]);
                let next = tts.get(i + 1);
                let after_dot = matches!(prev, Some(TokenTree::Punct(p)) if p.as_char() == '.' || p.as_char() == ':');
                let after_as = matches!(prev, Some(TokenTree::Ident(p)) if p == "as");
                let before_path_or_call = match next {
                    Some(TokenTree::Punct(p)) => p.as_char() == ':' || p.as_char() == '!',
                    Some(TokenTree::Group(g)) => {
                        g.delimiter() == proc_macro2::Delimiter::Parenthesis
                    }
                    _ => false,
                };
                let lower = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                if lower
                    && name != "_"
                    && !after_dot
                    && !after_as
                    && !before_path_or_call
                    && !KEYWORDS.contains(&name.as_str())
                    && !out.iter().any(|o: &Ident| o == id)
                {
                    out.push(id.clone());
                }
            }
            _ => {}
        }
    }
}

/// Names of an expression that come from the surrounding scope as values: constants and
/// statics (`BLOCK`), functions called by a one-segment path (`grid(n)`); not methods, fields,
/// path segments, types after `as`, macros, or the prelude's `Some`, `None`, `Ok`, `Err`.
pub fn outside_idents(tokens: TokenStream) -> Vec<Ident> {
    let mut out = Vec::new();
    collect_outside(tokens, &mut out);
    out
}

fn collect_outside(tokens: TokenStream, out: &mut Vec<Ident>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => collect_outside(g.stream(), out),
            TokenTree::Ident(id) => {
                let name = id.to_string();
                let prev = i.checked_sub(1).map(|j| &tts[j]);
                let next = tts.get(i + 1);
                // After `.` (a method or field), `::` (a path), `<` (a generic argument, a type),
                // `'` (a lifetime) or `as` (a type).
                let after = matches!(prev, Some(TokenTree::Punct(p)) if matches!(p.as_char(), '.' | ':' | '<' | '\''))
                    || matches!(prev, Some(TokenTree::Ident(p)) if p == "as");
                let before_path = matches!(next, Some(TokenTree::Punct(p)) if matches!(p.as_char(), ':' | '!' | '<'));
                let call = matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                let upper = name.starts_with(|c: char| c.is_ascii_uppercase());
                let lower = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                let wanted = (upper || (lower && call))
                    && !after
                    && !before_path
                    && !KEYWORDS.contains(&name.as_str())
                    && !["Some", "None", "Ok", "Err", "Self"].contains(&name.as_str());
                if wanted && !out.iter().any(|o: &Ident| o == id) {
                    out.push(id.clone());
                }
            }
            _ => {}
        }
    }
}

/// The element type check of a buffer (or a stack's buffer) `id` holding `elem`, for a slice
/// parameter of element `want`; `None` after reporting a mismatch.
pub(crate) fn check_elem(
    cx: &mut Lower<'_>,
    id: &Ident,
    kernel: &str,
    pname: &str,
    writes: bool,
    want: &syn::Type,
    elem: &syn::Type,
) -> Option<()> {
    if let (Some(w), Some(e)) = (primitive(want), primitive(elem)) {
        if w != e {
            cx.errors.at(
                id.span(),
                format!(
                    "kernel `{kernel}` takes a buffer of `{w}` for `{pname}`, but buffer `{id}` holds `{e}`; pass a buffer of `{w}`, or declare the parameter `{pname}: &{}[{e}]`",
                    if writes { "mut " } else { "" }
                ),
            );
            return None;
        }
    }
    Some(())
}
