//! Kernel modules and functions that know their parameter lists.
//!
//! A kernel node must be given exactly the kernel's parameters: too few and the driver reads
//! past the argument array. The driver can report a parameter's size (`cuFuncGetParamInfo`)
//! but, before CUDA 13.2, not how many there are except by failing on the first index past the
//! end. So a [`Module`] reads every kernel's parameter list from its PTX when it is loaded, and
//! checking arguments then needs no failing driver call. A [`Kernel`] made from a bare cudarc
//! `CudaFunction` has no such list and is checked by probing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule};

use crate::driver::{self, CallResult, FuncInfo};
use crate::error::{DriverFailure, ModuleError};

/// A loaded module whose kernels' parameter lists are known. [`compile`](crate::compile) makes
/// one from CUDA C source; [`Module::from_ptx`] from PTX.
///
/// ```no_run
/// # fn demo(ctx: &std::sync::Arc<cudarc::driver::CudaContext>, ptx: &str)
/// #   -> cuda_graph_runtime::Result<()> {
/// let module = cuda_graph_runtime::Module::from_ptx(ctx, ptx)?;
/// for name in module.kernel_names() {
///     println!("{name}");
/// }
/// # Ok(()) }
/// ```
pub struct Module {
    ctx: Arc<CudaContext>,
    inner: Arc<CudaModule>,
    params: HashMap<String, Arc<[usize]>>,
    /// Name expressions registered when compiling, and the kernels' lowered names.
    lowered: HashMap<String, String>,
    /// Every `.entry` of the PTX (those whose parameter sizes are unknown too).
    entries: Vec<String>,
    /// Kernels handed out so far: asking again gives a clone, which shares the limits read
    /// from the driver once (a graph built from this module again asks the driver nothing).
    loaded: Mutex<Vec<Kernel>>,
    /// The kernel first handed out for each of `entries`, read without the lock: a graph built
    /// again (`cuda_graph!`'s `build` asks for its kernels by name each time) finds its kernels
    /// with one atomic read-modify-write, the clone's (the lock and unlock were two more).
    first: Box<[OnceLock<Kernel>]>,
}

impl Clone for Module {
    /// Another handle to the same loaded module (the kernels it handed out are shared).
    fn clone(&self) -> Self {
        let loaded = self
            .loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Module {
            ctx: self.ctx.clone(),
            inner: self.inner.clone(),
            params: self.params.clone(),
            lowered: self.lowered.clone(),
            entries: self.entries.clone(),
            loaded: Mutex::new(loaded),
            first: self.first.clone(),
        }
    }
}

impl Module {
    /// Loads PTX text into the context.
    pub fn from_ptx(ctx: &Arc<CudaContext>, ptx: &str) -> Result<Self, ModuleError> {
        let params = parse_entries(ptx)
            .into_iter()
            .map(|(name, sizes)| (name, Arc::from(sizes)))
            .collect();
        let inner = ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|source| DriverFailure {
                call: "cuModuleLoadData",
                node: None,
                source,
            })?;
        let entries = entry_names(ptx);
        Ok(Module {
            ctx: ctx.clone(),
            inner,
            params,
            lowered: HashMap::new(),
            first: entries.iter().map(|_| OnceLock::new()).collect(),
            entries,
            loaded: Mutex::new(Vec::new()),
        })
    }

    /// Records the lowered names NVRTC gave the name expressions.
    pub(crate) fn add_lowered(&mut self, lowered: Vec<(String, String)>) {
        self.lowered.extend(lowered);
    }

    /// The module's entry for `name` (see [`entry_for`]).
    fn entry(&self, name: &str) -> Result<String, ModuleError> {
        entry_for(&self.lowered, &self.params, name)
    }

    /// The kernel called `name`: its `extern "C"` name, its mangled name, or, for a kernel
    /// with C++ linkage, its qualified name (`ops::scale`) or the name expression it was
    /// compiled with ([`Compile::name_expression`](crate::kernel::Compile::name_expression):
    /// `layernorm<float, 256>`). In a module built elsewhere (PTX from nvcc), a qualified name
    /// finds the one entry of that name; a template instance or an overload among several is
    /// found by its mangled name only.
    pub fn function(&self, name: &str) -> Result<Kernel, ModuleError> {
        if let Some(k) = self
            .first
            .iter()
            .filter_map(OnceLock::get)
            .find(|k| &*k.0.name == name)
        {
            return Ok(k.clone());
        }
        self.load(name)
    }

    /// [`function`](Self::function) for a name not asked for before under that name.
    #[cold]
    #[inline(never)]
    fn load(&self, name: &str) -> Result<Kernel, ModuleError> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = loaded.iter().find(|k| &*k.0.name == name) {
            return Ok(k.clone());
        }
        let entry = self.entry(name)?;
        // Not in the PTX: no driver call (it would fail, and tools report the failed call).
        if !self.entries.is_empty() && !self.entries.contains(&entry) {
            return Err(ModuleError::NoKernel {
                name: name.to_owned(),
                source: driver::not_found(),
            });
        }
        let func = self
            .inner
            .load_function(&entry)
            .map_err(|source| ModuleError::NoKernel {
                name: name.to_owned(),
                source,
            })?;
        let k = Kernel(Arc::new(KernelInner {
            func,
            name: Arc::from(name),
            params: self.params.get(&entry).cloned(),
            info: OnceLock::new(),
        }));
        if let Some(at) = self.entries.iter().position(|e| *e == entry) {
            // The first name a kernel is asked for by; another name for it takes the lock.
            let _ = self.first[at].set(k.clone());
        }
        loaded.push(k.clone());
        Ok(k)
    }

    /// The names of the module's kernels.
    pub fn kernel_names(&self) -> impl Iterator<Item = &str> {
        self.params.keys().map(String::as_str)
    }

    /// The cudarc module.
    pub fn cuda_module(&self) -> &Arc<CudaModule> {
        &self.inner
    }

    /// The context the module was loaded in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

/// A kernel function, with its parameter sizes when they are known. Cloning is cheap.
///
/// ```no_run
/// # fn demo(module: &cuda_graph_runtime::Module) -> cuda_graph_runtime::Result<()> {
/// let saxpy = module.function("saxpy")?;
/// assert_eq!(saxpy.param_sizes(), Some(&[4, 8, 8, 4][..]));   // float, two pointers, unsigned
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Kernel(Arc<KernelInner>);

/// What the clones of a [`Kernel`] share (one reference count: a clone is one atomic
/// operation).
struct KernelInner {
    func: CudaFunction,
    name: Arc<str>,
    params: Option<Arc<[usize]>>,
    /// What graphs check nodes against, read from the driver once.
    info: OnceLock<FuncInfo>,
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Sizes in bytes of the kernel's parameters, when read from its PTX.
    pub fn param_sizes(&self) -> Option<&[usize]> {
        self.0.params.as_deref()
    }

    /// The cudarc function.
    pub fn cuda_function(&self) -> &CudaFunction {
        &self.0.func
    }

    /// Parameter sizes (from PTX, else probed) and launch limits, asked of the driver on first
    /// use only. (The dynamic shared memory limit is read then: raise it with cudarc before the
    /// kernel's first node.) The caller makes the kernel's context current.
    pub(crate) fn info(&self) -> CallResult<&FuncInfo> {
        let k = &*self.0;
        if let Some(info) = k.info.get() {
            return Ok(info);
        }
        let info = driver::func_info(&k.func, k.params.as_deref())?;
        Ok(k.info.get_or_init(|| info))
    }
}

/// A kernel given to [`Graph::add_kernel`](crate::Graph::add_kernel): borrowed for the graph's
/// life, or owned by the graph.
pub enum KernelRef<'a> {
    /// Borrowed: the graph cannot outlive it.
    Borrowed(&'a Kernel),
    /// Owned by the graph.
    Owned(Kernel),
}

impl<'a> From<&'a Kernel> for KernelRef<'a> {
    fn from(k: &'a Kernel) -> Self {
        KernelRef::Borrowed(k)
    }
}

impl From<Kernel> for KernelRef<'_> {
    fn from(k: Kernel) -> Self {
        KernelRef::Owned(k)
    }
}

impl From<CudaFunction> for Kernel {
    /// A kernel whose parameter list is unknown: adding it to a graph asks the driver, probing
    /// one index past the last parameter (compute-sanitizer reports that probe as an API error).
    fn from(func: CudaFunction) -> Self {
        Kernel(Arc::new(KernelInner {
            func,
            name: Arc::from("<kernel>"),
            params: None,
            info: OnceLock::new(),
        }))
    }
}

/// The entry of a module for `name`: a name expression registered when compiling (its lowered
/// name, from `lowered`), an entry of exactly that name, or the one entry with C++ linkage whose
/// qualified name is `name` (template arguments aside). Several such entries (overloads,
/// template instances) are [`ModuleError::Ambiguous`]. A name found nowhere is returned as it
/// is (loading it then fails). `entries`: the module's entries (with their parameters).
pub(crate) fn entry_for<V>(
    lowered: &HashMap<String, String>,
    entries: &HashMap<String, V>,
    name: &str,
) -> Result<String, ModuleError> {
    if let Some(l) = lowered.get(name) {
        return Ok(l.clone());
    }
    if entries.contains_key(name) || !is_cpp_name(name) {
        return Ok(name.to_owned());
    }
    let base = strip_template_args(name);
    let base = base.trim_start_matches("::");
    let mut found: Vec<&String> = entries
        .keys()
        .filter(|e| demangled_name(e).as_deref() == Some(base))
        .collect();
    found.sort();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Ok(name.to_owned()),
        many => Err(ModuleError::Ambiguous {
            name: name.to_owned(),
            entries: many.iter().map(|s| (*s).clone()).collect(),
        }),
    }
}

/// The name of every `.entry` of a PTX text.
fn entry_names(ptx: &str) -> Vec<String> {
    ptx.split(".entry")
        .skip(1)
        .filter_map(|rest| {
            let name = rest.split('(').next()?.trim();
            (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_owned())
        })
        .collect()
}

/// Whether `name` can only be a C++ name (qualified, or with template arguments).
fn is_cpp_name(name: &str) -> bool {
    name.contains("::") || name.contains('<')
}

/// `name` without its template arguments (`a::k<float, 2>` gives `a::k`).
fn strip_template_args(name: &str) -> &str {
    name.split('<').next().unwrap_or(name).trim()
}

/// The qualified name (without template arguments) of an Itanium-mangled function name:
/// `_ZN3ops5scaleEPfi` gives `ops::scale`, `_Z4fillPff` gives `fill`,
/// `_Z9layernormIfLi256EEvPT_` gives `layernorm`. `None` for other names.
pub(crate) fn demangled_name(mangled: &str) -> Option<String> {
    let rest = mangled.strip_prefix("_Z")?;
    let b = rest.as_bytes();
    let mut i = 0;
    let nested = b.first() == Some(&b'N');
    if nested {
        i += 1;
        while matches!(b.get(i), Some(b'K' | b'V' | b'r')) {
            i += 1;
        }
    }
    let mut parts = Vec::new();
    loop {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let len: usize = rest[start..i].parse().ok()?;
        let name = rest.get(i..i + len)?;
        parts.push(name);
        i += len;
        if !nested {
            break;
        }
        // Template arguments of this component: skip them (balanced `I` ... `E`).
        if b.get(i) == Some(&b'I') {
            i = skip_template_args(b, i)?;
        }
        match b.get(i) {
            Some(b'E') => break,
            Some(c) if c.is_ascii_digit() => continue,
            _ => return None,
        }
    }
    Some(parts.join("::"))
}

/// The index after the template arguments `I ... E` starting at `i`.
fn skip_template_args(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'I' | b'N' | b'X' => depth += 1,
            b'L' => {
                // A literal: `L<type><value>E`; no nesting inside.
                while i < b.len() && b[i] != b'E' {
                    i += 1;
                }
            }
            b'E' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            c if c.is_ascii_digit() => {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let len: usize = std::str::from_utf8(&b[start..i]).ok()?.parse().ok()?;
                i += len;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Every `.entry` of a PTX text with the sizes of its parameters.
pub(crate) fn parse_entries(ptx: &str) -> HashMap<String, Vec<usize>> {
    let mut out = HashMap::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry") {
        rest = &rest[at + ".entry".len()..];
        let Some(open) = rest.find('(') else { break };
        let name = rest[..open].trim().to_owned();
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let list = &rest[open + 1..open + close];
        rest = &rest[open + close..];
        let sizes: Option<Vec<usize>> = list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(param_size)
            .collect();
        if let Some(sizes) = sizes {
            if !name.is_empty() && !name.contains(char::is_whitespace) {
                out.insert(name, sizes);
            }
        }
    }
    out
}

/// Size of one PTX parameter declaration, e.g. `.param .u64 .ptr .align 1 k_param_1` or
/// `.param .align 8 .b8 k_param_0[24]`.
fn param_size(decl: &str) -> Option<usize> {
    let mut elem = None;
    let mut tokens = decl.split_whitespace().peekable();
    let mut last = "";
    while let Some(t) = tokens.next() {
        match t {
            ".param" | ".ptr" | ".global" | ".const" | ".local" | ".shared" => {}
            ".align" => {
                tokens.next();
            }
            _ if t.starts_with('.') => {
                let ty = &t[1..];
                let bits = ty.trim_start_matches(|c: char| c.is_ascii_alphabetic());
                let prefix = &ty[..ty.len() - bits.len()];
                if !matches!(prefix, "u" | "s" | "b" | "f" | "bf") {
                    return None;
                }
                elem = Some(match bits {
                    "8" => 1,
                    "16" => 2,
                    "32" => 4,
                    "64" => 8,
                    _ => return None,
                });
            }
            _ => last = t,
        }
    }
    let elem = elem?;
    match (last.find('['), last.find(']')) {
        (Some(a), Some(b)) if a < b => Some(elem * last[a + 1..b].parse::<usize>().ok()?),
        (None, None) => Some(elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Qualified names of mangled kernels as nvcc and NVRTC lower them.
    #[test]
    fn demangles_the_qualified_name_of_a_kernel() {
        let cases = [
            ("_Z4fillPff", Some("fill")),
            ("_ZN3ops5scaleEPfi", Some("ops::scale")),
            ("_ZN1a1b4axpyEPKfPfj", Some("a::b::axpy")),
            ("_Z9layernormIfLi256EEvPT_PKS0_i", Some("layernorm")),
            ("_ZN2nn6reduceILi128EfEEvPKT0_PS1_", Some("nn::reduce")),
            (
                "_ZN2nn6detail3sumIN3foo3BarELb1EEEvPT_",
                Some("nn::detail::sum"),
            ),
            ("saxpy", None),
            ("_Z", None),
            ("_Z99x", None),
            ("_ZN3ops", None),
        ];
        for (m, want) in cases {
            assert_eq!(demangled_name(m).as_deref(), want, "{m}");
        }
        assert_eq!(strip_template_args("ln<float, 256>"), "ln");
        let ptx = ".visible .entry _Z4fillPff(\n.param .u64 a\n)\n.entry plain(\n)\n";
        assert_eq!(entry_names(ptx), ["_Z4fillPff", "plain"]);
        assert!(is_cpp_name("a::k") && is_cpp_name("k<int>") && !is_cpp_name("k"));
    }

    #[test]
    fn reads_scalar_pointer_and_struct_parameters() {
        let ptx = r#"
.version 8.5
.target sm_90
.address_size 64

	// .globl	saxpy
.visible .entry saxpy(
	.param .f32 saxpy_param_0,
	.param .u64 .ptr .global .align 1 saxpy_param_1,
	.param .u64 saxpy_param_2,
	.param .u32 saxpy_param_3
)
{
	ret;
}
.visible .entry empty()
{
	ret;
}
.weak .entry _Z4packILi3EEv1S(
	.param .align 8 .b8 _Z4packILi3EEv1S_param_0[24],
	.param .u8 _Z4packILi3EEv1S_param_1,
	.param .f16 _Z4packILi3EEv1S_param_2
)
{
	ret;
}
"#;
        let e = parse_entries(ptx);
        assert_eq!(e["saxpy"], vec![4, 8, 8, 4]);
        assert_eq!(e["empty"], Vec::<usize>::new());
        assert_eq!(e["_Z4packILi3EEv1S"], vec![24, 1, 2]);
        assert_eq!(e.len(), 3);
    }

    #[test]
    fn skips_declarations_it_does_not_understand() {
        assert_eq!(param_size(".param .texref t"), None);
        assert_eq!(param_size(".param .b32 x[2"), None);
        assert_eq!(param_size(".param .b64 x"), Some(8));
        assert_eq!(param_size(".param .bf16 x"), Some(2));
        assert_eq!(param_size(".param .align 16 .b8 x[48]"), Some(48));
    }
}
