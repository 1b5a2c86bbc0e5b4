//! NVRTC: one program compiled to PTX (and, for a real architecture, to machine code), with
//! in-memory headers and name expressions.
//!
//! cudarc's safe compile call takes neither headers nor name expressions; both are needed to
//! build kernels as people write them (`#include "local.cuh"`, C++ linkage, templates).

use std::ffi::{c_char, CStr, CString};
use std::ptr;

use cudarc::nvrtc::sys;

/// What NVRTC made of a program: its PTX, its machine code (a cubin, when compiled for a real
/// architecture, `sm_XX`), per name expression the kernel's lowered (mangled) name, and its log
/// (warnings; empty when there are none).
pub(crate) struct Compiled {
    pub ptx: String,
    pub cubin: Option<Vec<u8>>,
    pub lowered: Vec<(String, String)>,
    pub log: String,
}

/// Why a program did not compile: the step and NVRTC's log (or its error's name).
pub(crate) struct CompileFailure {
    pub log: String,
}

/// Owns an `nvrtcProgram` and destroys it on drop.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by `nvrtcCreateProgram` and is destroyed once.
        unsafe {
            let _ = sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

fn cstring(s: &str, what: &str) -> Result<CString, CompileFailure> {
    CString::new(s).map_err(|_| CompileFailure {
        log: format!("{what} contains a NUL byte"),
    })
}

fn check(r: sys::nvrtcResult, step: &str) -> Result<(), CompileFailure> {
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(CompileFailure {
            log: format!("{step} failed: {r:?}"),
        })
    }
}

/// NVRTC's version: (major, minor).
pub(crate) fn version() -> Result<(i32, i32), CompileFailure> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two valid out-pointers.
    check(
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) },
        "nvrtcVersion",
    )?;
    Ok((major, minor))
}

/// Compiles `src` (called `name` in messages) with `headers` (name as `#include`d, text),
/// `options` and `names` (name expressions whose lowered names are wanted); `cubin`: also
/// return the machine code (the options name a real architecture, `sm_XX`).
pub(crate) fn compile(
    src: &str,
    name: &str,
    headers: &[(&str, &str)],
    options: &[String],
    names: &[&str],
    cubin: bool,
) -> Result<Compiled, CompileFailure> {
    let src_c = cstring(src, "the source")?;
    let name_c = cstring(name, "the program name")?;
    let header_texts = headers
        .iter()
        .map(|(_, t)| cstring(t, "a header"))
        .collect::<Result<Vec<_>, _>>()?;
    let header_names = headers
        .iter()
        .map(|(n, _)| cstring(n, "a header name"))
        .collect::<Result<Vec<_>, _>>()?;
    let texts: Vec<*const c_char> = header_texts.iter().map(|c| c.as_ptr()).collect();
    let includes: Vec<*const c_char> = header_names.iter().map(|c| c.as_ptr()).collect();
    let mut prog: sys::nvrtcProgram = ptr::null_mut();
    // SAFETY: every pointer is to a NUL-terminated string alive for the call; the arrays hold
    // `headers.len()` entries each.
    check(
        unsafe {
            sys::nvrtcCreateProgram(
                &mut prog,
                src_c.as_ptr(),
                name_c.as_ptr(),
                headers.len() as i32,
                if headers.is_empty() {
                    ptr::null()
                } else {
                    texts.as_ptr()
                },
                if headers.is_empty() {
                    ptr::null()
                } else {
                    includes.as_ptr()
                },
            )
        },
        "nvrtcCreateProgram",
    )?;
    let prog = Program(prog);
    let exprs = names
        .iter()
        .map(|n| cstring(n, "a name expression"))
        .collect::<Result<Vec<_>, _>>()?;
    for e in &exprs {
        // SAFETY: a live program and a NUL-terminated expression (NVRTC copies it).
        check(
            unsafe { sys::nvrtcAddNameExpression(prog.0, e.as_ptr()) },
            "nvrtcAddNameExpression",
        )?;
    }
    let opts = options
        .iter()
        .map(|o| cstring(o, "an option"))
        .collect::<Result<Vec<_>, _>>()?;
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: a live program; `opt_ptrs` holds `opts.len()` NUL-terminated strings.
    let r = unsafe { sys::nvrtcCompileProgram(prog.0, opt_ptrs.len() as i32, opt_ptrs.as_ptr()) };
    if r != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(CompileFailure {
            log: log(&prog).unwrap_or_else(|| format!("nvrtcCompileProgram failed: {r:?}")),
        });
    }
    let mut size = 0usize;
    // SAFETY: a compiled program; `size` receives the PTX's size, NUL included.
    check(
        unsafe { sys::nvrtcGetPTXSize(prog.0, &mut size) },
        "nvrtcGetPTXSize",
    )?;
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: `buf` holds `size` bytes, what NVRTC writes.
    check(
        unsafe { sys::nvrtcGetPTX(prog.0, buf.as_mut_ptr().cast()) },
        "nvrtcGetPTX",
    )?;
    let ptx = CStr::from_bytes_until_nul(&buf)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cubin = if cubin {
        let mut size = 0usize;
        // SAFETY: a compiled program; `size` receives the cubin's size.
        check(
            unsafe { sys::nvrtcGetCUBINSize(prog.0, &mut size) },
            "nvrtcGetCUBINSize",
        )?;
        let mut bin = vec![0u8; size];
        if size > 0 {
            // SAFETY: `bin` holds `size` bytes, what NVRTC writes.
            check(
                unsafe { sys::nvrtcGetCUBIN(prog.0, bin.as_mut_ptr().cast()) },
                "nvrtcGetCUBIN",
            )?;
        }
        Some(bin)
    } else {
        None
    };
    let mut lowered = Vec::new();
    for (n, e) in names.iter().zip(&exprs) {
        let mut out: *const c_char = ptr::null();
        // SAFETY: a compiled program and an expression added before compiling; the returned
        // string lives as long as the program, and is copied before it is destroyed.
        check(
            unsafe { sys::nvrtcGetLoweredName(prog.0, e.as_ptr(), &mut out) },
            "nvrtcGetLoweredName",
        )?;
        if !out.is_null() {
            // SAFETY: NVRTC returned a NUL-terminated string owned by the program.
            let s = unsafe { CStr::from_ptr(out) }
                .to_string_lossy()
                .into_owned();
            lowered.push(((*n).to_owned(), s));
        }
    }
    let log = log(&prog).unwrap_or_default();
    Ok(Compiled {
        ptx,
        cubin,
        lowered,
        log,
    })
}

fn log(prog: &Program) -> Option<String> {
    let mut size = 0usize;
    // SAFETY: a live program; `size` receives the log's size.
    unsafe { sys::nvrtcGetProgramLogSize(prog.0, &mut size) };
    if size == 0 {
        return None;
    }
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds `size` bytes.
    let r = unsafe { sys::nvrtcGetProgramLog(prog.0, buf.as_mut_ptr().cast()) };
    if r != sys::nvrtcResult::NVRTC_SUCCESS {
        return None;
    }
    CStr::from_bytes_until_nul(&buf)
        .ok()
        .map(|c| c.to_string_lossy().into_owned())
}
