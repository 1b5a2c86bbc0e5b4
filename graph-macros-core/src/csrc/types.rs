//! A kernel parameter's C type, and the Rust type it is: scalars (with their C spellings made
//! canonical), pointers, arrays of device addresses (`float**`), CUDA's vector and fp8 types,
//! its tensor-map descriptor, the standard library's empty tag types, and the spellings back
//! for prototypes.

use super::lex::{Kind, Tok};

/// A CUDA vector type and the `#[repr(C)]` Rust type `cuda_graph::vector` has for it.
#[derive(Debug, Clone, Copy)]
pub struct Vector {
    pub c: &'static str,
    pub rust: &'static str,
    pub size: usize,
    pub align: usize,
}

const fn v(c: &'static str, rust: &'static str, size: usize, align: usize) -> Vector {
    Vector {
        c,
        rust,
        size,
        align,
    }
}

/// The vector types the checker knows (as `vector_types.h` lays them out).
pub const VECTOR_TYPES: &[Vector] = &[
    v("float2", "Float2", 8, 8),
    v("float3", "Float3", 12, 4),
    v("float4", "Float4", 16, 16),
    v("double2", "Double2", 16, 16),
    v("int2", "Int2", 8, 8),
    v("int3", "Int3", 12, 4),
    v("int4", "Int4", 16, 16),
    v("uint2", "UInt2", 8, 8),
    v("uint3", "UInt3", 12, 4),
    v("uint4", "UInt4", 16, 16),
    v("char4", "Char4", 4, 4),
    v("uchar4", "UChar4", 4, 4),
    v("short2", "Short2", 4, 4),
    v("ushort2", "UShort2", 4, 4),
    v("longlong2", "LongLong2", 16, 16),
    v("ulonglong2", "ULongLong2", 16, 16),
    v("__half2", "Half2", 4, 4),
    v("half2", "Half2", 4, 4),
    v("__nv_bfloat162", "BFloat162", 4, 4),
];

/// The vector type spelled `c`.
pub fn vector_type(c: &str) -> Option<Vector> {
    VECTOR_TYPES.iter().find(|v| v.c == c).copied()
}

/// CUDA's 8-bit float types (`cuda_fp8.h`; e8m0 since CUDA 12.8) and the Rust types
/// `cuda_graph::fp8` has for them.
pub const FP8_TYPES: &[Vector] = &[
    v("__nv_fp8_e4m3", "F8E4M3", 1, 1),
    v("__nv_fp8_e5m2", "F8E5M2", 1, 1),
    v("__nv_fp8_e8m0", "F8E8M0", 1, 1),
    v("__nv_fp8x2_e4m3", "F8E4M3x2", 2, 2),
    v("__nv_fp8x2_e5m2", "F8E5M2x2", 2, 2),
    v("__nv_fp8x2_e8m0", "F8E8M0x2", 2, 2),
    v("__nv_fp8x4_e4m3", "F8E4M3x4", 4, 4),
    v("__nv_fp8x4_e5m2", "F8E5M2x4", 4, 4),
    v("__nv_fp8x4_e8m0", "F8E8M0x4", 4, 4),
];

/// The 8-bit float type spelled `c`.
pub fn fp8_type(c: &str) -> Option<Vector> {
    FP8_TYPES.iter().find(|v| v.c == c).copied()
}

/// One parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CParam {
    /// Its name (`None` for a parameter declared without one).
    pub name: Option<String>,
    /// Its type.
    pub ty: CType,
    /// The parameter as written (tokens joined), e.g. `const float* __restrict__ x`.
    pub text: String,
}

/// A parameter's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CType {
    /// A scalar: its C spelling (canonical, e.g. `unsigned int`) and the Rust type it is.
    Scalar {
        /// The C spelling.
        c: String,
        /// The Rust type.
        rust: &'static str,
    },
    /// A pointer: its pointee's C spelling, the Rust element type when it is a known scalar
    /// (`None` for `void` and other types), and whether the pointee is `const`.
    Pointer {
        /// The pointee's C spelling.
        pointee: String,
        /// The Rust element type, when the pointee is a known scalar.
        rust: Option<&'static str>,
        /// Whether the pointee is `const`.
        constant: bool,
    },
    /// A pointer to pointers (`float**`, `const float* const*`, `void* const*`): an array of
    /// device addresses. `pointee` and `rust` are what the addresses point at (as for
    /// [`CType::Pointer`]); `constant` whether the array itself is `const` (`T* const*`: the
    /// kernel cannot write the addresses), `inner_const` whether what they point at is.
    Addresses {
        /// What the addresses point at, in C.
        pointee: String,
        /// Its Rust element type, when it is a known scalar.
        rust: Option<&'static str>,
        /// Whether the array of addresses is `const`.
        constant: bool,
        /// Whether what the addresses point at is `const`.
        inner_const: bool,
    },
    /// Anything else (a struct, a template parameter, a reference, a triple pointer, ...).
    Other(String),
}

/// The standard library's empty tag types (after `std::` or `cuda::std::`): a kernel
/// parameter of one is one byte whose value nothing reads (its meaning is its type).
const TAGS: &[(&str, bool)] = &[
    ("bool_constant", true),
    ("integral_constant", true),
    ("true_type", false),
    ("false_type", false),
];

/// `std::bool_constant<B> name` and the other tag types of [`TAGS`], as a parameter.
fn tag(t: &[Tok]) -> Option<CParam> {
    let k = t
        .iter()
        .position(|x| !QUALIFIERS.contains(&x.text.as_str()))?;
    // `std ::` or `cuda :: std ::` (`::std::` too).
    let mut i = k + usize::from(t.get(k).is_some_and(|x| x.text == ":")) * 2;
    if t.get(i).is_some_and(|x| x.text == "cuda") {
        i += 3;
    }
    let colons = |j: usize| {
        t.get(j).is_some_and(|x| x.text == ":") && t.get(j + 1).is_some_and(|x| x.text == ":")
    };
    if !(t.get(i).is_some_and(|x| x.text == "std") && colons(i + 1)) {
        return None;
    }
    let at = i + 3;
    let (_, template) = TAGS
        .iter()
        .find(|(n, _)| t.get(at).is_some_and(|x| x.text == *n))?;
    let mut end = at + 1;
    if *template {
        if t.get(end).is_none_or(|x| x.text != "<") {
            return None;
        }
        let mut d = 0i32;
        while end < t.len() {
            match t[end].text.as_str() {
                "<" => d += 1,
                ">" => d -= 1,
                _ => {}
            }
            end += 1;
            if d == 0 {
                break;
            }
        }
    }
    let rest: Vec<&Tok> = t[end..]
        .iter()
        .filter(|x| !QUALIFIERS.contains(&x.text.as_str()))
        .collect();
    let name = match rest.as_slice() {
        [] => None,
        [n] if n.kind == Kind::Ident => Some(n.text.clone()),
        _ => return None,
    };
    Some(CParam {
        name,
        ty: CType::Scalar {
            c: compact(&t[i..end]),
            rust: "Tag",
        },
        text: compact(t),
    })
}

const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "__restrict__",
    "__restrict",
    "restrict",
    "struct",
    "class",
    "enum",
    "typename",
    "register",
    "__grid_constant__",
];

const TYPE_WORDS: &[&str] = &[
    "void",
    "bool",
    "char",
    "short",
    "int",
    "long",
    "signed",
    "unsigned",
    "float",
    "double",
    "size_t",
    "ptrdiff_t",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "__half",
    "half",
    "__nv_bfloat16",
    "nv_bfloat16",
    "__nv_fp8_e4m3",
    "__nv_fp8_e5m2",
    "__nv_fp8_e8m0",
    "__nv_fp8x2_e4m3",
    "__nv_fp8x2_e5m2",
    "__nv_fp8x2_e8m0",
    "__nv_fp8x4_e4m3",
    "__nv_fp8x4_e5m2",
    "__nv_fp8x4_e8m0",
    "__nv_fp8_storage_t",
    "__nv_fp8x2_storage_t",
    "__nv_fp8x4_storage_t",
];

pub(super) fn parameter(t: &[Tok]) -> CParam {
    // A default argument is not part of the type.
    let t = match t.iter().position(|x| x.text == "=") {
        Some(k) => &t[..k],
        None => t,
    };
    if let Some(p) = tag(t) {
        return p;
    }
    // `std::uint32_t` is `uint32_t`, `::size_t` is `size_t`.
    let unqualified: Vec<Tok>;
    let t = if t.iter().any(|x| x.text == ":") {
        let mut v: Vec<Tok> = Vec::with_capacity(t.len());
        let mut k = 0;
        while k < t.len() {
            let colons = t.get(k).is_some_and(|x| x.text == ":")
                && t.get(k + 1).is_some_and(|x| x.text == ":");
            let std_at = t[k].text == "std"
                && t.get(k + 1).is_some_and(|x| x.text == ":")
                && t.get(k + 2).is_some_and(|x| x.text == ":");
            let global = colons && (k == 0 || t[k - 1].kind != Kind::Ident);
            if std_at {
                k += 3;
            } else if global {
                k += 2;
            } else {
                v.push(t[k].clone());
                k += 1;
            }
        }
        unqualified = v;
        &unqualified[..]
    } else {
        t
    };
    let text = compact(t);
    let stars =
        t.iter().filter(|x| x.text == "*").count() + t.iter().filter(|x| x.text == "[").count();
    let reference = t.iter().any(|x| x.text == "&" || x.text == "...");
    let first_star = t
        .iter()
        .position(|x| x.text == "*" || x.text == "[")
        .unwrap_or(t.len());
    let constant = t[..first_star].iter().any(|x| x.text == "const");
    let words: Vec<&str> = t[..first_star]
        .iter()
        .filter(|x| x.kind == Kind::Ident && !QUALIFIERS.contains(&x.text.as_str()))
        .map(|x| x.text.as_str())
        .collect();
    // The name: the identifier after the last `*`, or the last of several identifiers that is
    // no type word.
    let after: Vec<&str> = t[first_star..]
        .iter()
        .filter(|x| x.kind == Kind::Ident && !QUALIFIERS.contains(&x.text.as_str()))
        .map(|x| x.text.as_str())
        .collect();
    let array = t.get(first_star).is_some_and(|x| x.text == "[");
    let (ty_words, name): (Vec<&str>, Option<&str>) = if stars > 0 && !array {
        (words, after.last().copied())
    } else {
        match words.split_last() {
            Some((last, rest)) if !rest.is_empty() && !TYPE_WORDS.contains(last) => {
                (rest.to_vec(), Some(*last))
            }
            _ => (words, None),
        }
    };
    // A template instance (`Foo<int, 4>`) is spelled with its arguments: no struct the file
    // defines is it (a specialization may be laid out otherwise).
    let templated = t[..first_star].iter().any(|x| x.text == "<");
    let (ty_words, base) = if templated {
        let mut ty: Vec<Tok> = t[..first_star]
            .iter()
            .filter(|x| !QUALIFIERS.contains(&x.text.as_str()))
            .cloned()
            .collect();
        if name.is_some() && ty.last().is_some_and(|x| Some(x.text.as_str()) == name) {
            ty.pop();
        }
        (Vec::new(), compact(&ty))
    } else {
        let base = ty_words.join(" ");
        (ty_words, base)
    };
    // `T**`, `T* const*`, `T* name[]`: an array of addresses (the second level one `*` or an
    // unsized `[]` after the first `*`).
    let second = t
        .get(first_star + 1..)
        .unwrap_or_default()
        .iter()
        .position(|x| x.text == "*" || x.text == "[")
        .map(|k| first_star + 1 + k);
    let addresses = stars == 2
        && !array
        && second.is_some_and(|s| t[s].text == "*" || t.get(s + 1).is_some_and(|x| x.text == "]"));
    let ty = if reference || (ty_words.is_empty() && !templated) || (stars > 1 && !addresses) {
        CType::Other(text.clone())
    } else if addresses {
        let second = second.unwrap_or(first_star);
        CType::Addresses {
            rust: rust_of(&ty_words),
            pointee: canonical(&ty_words).unwrap_or(base),
            constant: t[first_star..second].iter().any(|x| x.text == "const"),
            inner_const: constant,
        }
    } else if stars == 1 {
        CType::Pointer {
            rust: rust_of(&ty_words),
            pointee: canonical(&ty_words).unwrap_or(base),
            constant,
        }
    } else {
        match (canonical(&ty_words), rust_of(&ty_words)) {
            (Some(c), Some(rust)) => CType::Scalar { c, rust },
            _ => CType::Other(base),
        }
    };
    CParam {
        name: name.map(str::to_owned),
        ty,
        text,
    }
}

/// Tokens joined as a C declaration reads: `const float* x`, `std::bool_constant<B> b`.
pub(super) fn compact(t: &[Tok]) -> String {
    t.iter()
        .map(|x| x.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" *", "*")
        .replace(" [ ]", "[]")
        .replace(" : : ", "::")
        .replace(": : ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

/// The canonical spelling of a type made of `words` (e.g. `unsigned int` for `unsigned`).
pub(super) fn canonical(words: &[&str]) -> Option<String> {
    // The short unsigned names of `<sys/types.h>` and CUDA's helper headers.
    if let [one] = words {
        let long = match *one {
            "uint" => Some("unsigned int"),
            "ushort" => Some("unsigned short"),
            "ulong" => Some("unsigned long"),
            "uchar" => Some("unsigned char"),
            _ => None,
        };
        if let Some(l) = long {
            return Some(l.to_owned());
        }
    }
    let count = |w: &str| words.iter().filter(|&&x| x == w).count();
    let (unsigned, signed, long, short) = (
        count("unsigned"),
        count("signed"),
        count("long"),
        count("short"),
    );
    let others: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "unsigned" | "signed" | "long" | "short" | "int"))
        .collect();
    let sign = if unsigned > 0 { "unsigned " } else { "" };
    match (others.as_slice(), long, short) {
        ([], 0, 0) if unsigned + signed + count("int") > 0 => Some(format!("{sign}int")),
        ([], 1, 0) => Some(format!("{sign}long")),
        ([], 2, 0) => Some(format!("{sign}long long")),
        ([], 0, 1) => Some(format!("{sign}short")),
        (["char"], 0, 0) if unsigned > 0 => Some("unsigned char".to_owned()),
        (["char"], 0, 0) if signed > 0 => Some("signed char".to_owned()),
        ([one], 0, 0) if unsigned + signed == 0 => Some((*one).to_owned()),
        _ => None,
    }
}

/// The Rust type a C scalar type is, for the types a kernel argument can be in cudarc.
pub(super) fn rust_of(words: &[&str]) -> Option<&'static str> {
    Some(match canonical(words)?.as_str() {
        "float" => "f32",
        "double" => "f64",
        "int" | "int32_t" => "i32",
        "unsigned int" | "uint32_t" => "u32",
        "short" | "int16_t" => "i16",
        "unsigned short" | "uint16_t" => "u16",
        "char" | "signed char" | "int8_t" => "i8",
        "unsigned char" | "uint8_t" => "u8",
        // LP64, as on every platform CUDA supports.
        "long" | "long long" | "int64_t" | "ptrdiff_t" => "i64",
        "unsigned long" | "unsigned long long" | "uint64_t" => "u64",
        "size_t" => "usize",
        "bool" => "bool",
        // A condition handle for conditional nodes (`typedef unsigned long long ...`).
        "cudaGraphConditionalHandle" => "Cond",
        // Texture and surface objects are `unsigned long long` handles.
        "cudaTextureObject_t" | "cudaSurfaceObject_t" | "CUtexObject" | "CUsurfObject" => "u64",
        // `long` on every platform CUDA supports (LP64).
        "clock_t" => "i64",
        // The tensor-map (TMA) descriptor of `cuda.h`: 128 opaque bytes.
        "CUtensorMap" | "CUtensorMap_st" => "TensorMap",
        "__half" | "half" => "f16",
        "__nv_bfloat16" | "nv_bfloat16" => "bf16",
        // `cuda_fp8.h`'s storage typedefs (`unsigned char`, `short`, `int`).
        "__nv_fp8_storage_t" => "u8",
        "__nv_fp8x2_storage_t" => "u16",
        "__nv_fp8x4_storage_t" => "u32",
        other => {
            return vector_type(other)
                .or_else(|| fp8_type(other))
                .map(|v| v.rust)
        }
    })
}

/// The path generated code names a Rust type by, from the short name [`CType`] holds
/// (`f16` is `::cuda_graph::half::f16`, `Float2` is `::cuda_graph::vector::Float2`, `F8E4M3`
/// is `::cuda_graph::fp8::F8E4M3`).
pub fn rust_path(short: &str) -> String {
    match short {
        "f16" | "bf16" => format!("::cuda_graph::half::{short}"),
        "Cond" | "TensorMap" | "Tag" => format!("::cuda_graph::kernel::{short}"),
        _ if VECTOR_TYPES.iter().any(|v| v.rust == short) => {
            format!("::cuda_graph::vector::{short}")
        }
        _ if FP8_TYPES.iter().any(|v| v.rust == short) => {
            format!("::cuda_graph::fp8::{short}")
        }
        _ => short.to_owned(),
    }
}

/// The C spelling of a Rust scalar type, for prototypes written from Rust declarations.
pub fn c_of(rust: &str) -> Option<&'static str> {
    Some(match rust {
        "f32" => "float",
        "f64" => "double",
        "i32" => "int",
        "u32" => "unsigned int",
        "i16" => "short",
        "u16" => "unsigned short",
        "i8" => "signed char",
        "u8" => "unsigned char",
        "i64" => "long long",
        "u64" => "unsigned long long",
        "usize" => "size_t",
        "isize" => "ptrdiff_t",
        "bool" => "bool",
        "Cond" | ":: cuda_graph :: kernel :: Cond" => "cudaGraphConditionalHandle",
        "TensorMap" | ":: cuda_graph :: kernel :: TensorMap" => "CUtensorMap",
        "f16" => "__half",
        "bf16" => "__nv_bfloat16",
        other => {
            return VECTOR_TYPES
                .iter()
                .chain(FP8_TYPES)
                .find(|v| v.rust == other)
                .map(|v| v.c)
        }
    })
}
