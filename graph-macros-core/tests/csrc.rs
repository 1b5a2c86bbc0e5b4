//! The CUDA C declaration reader: realistic files (every `extern "C" __global__` kernel found,
//! with its parameters), and random or mangled input (never a panic).
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use cuda_graph_macros_core::csrc::{parse, parse_file, CType, Linkage};
use proptest::prelude::*;

/// A file shaped like real kernel sources: a license header, includes, macros, device helpers,
/// templates, attributes, `extern "C"` blocks, `#if 0`, comments inside parameter lists.
const REALISTIC: &str = r#"
/*
 * Some license text { with braces } and "quotes".
 */
#include <cuda_runtime.h>
#include "common.cuh"

#define BLOCK 256
#define RESTRICT __restrict__
#define KERNEL extern "C" __global__
#define IDX(i, j, ld) ((i) * (ld) + (j))

#ifndef COMMON_GUARD
#define COMMON_GUARD
#endif

static __device__ __forceinline__ float sq(float v) { return v * v; }

template <typename T, int N>
__global__ void fill_t(T* out, T v) { out[threadIdx.x] = v; }

extern "C" __global__ void __launch_bounds__(BLOCK) saxpy(
    float a,                       // the scale
    const float* RESTRICT x,       /* read */
    float* __restrict__ y,
    unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = a * x[i] + y[i]; const char* s = "}{"; (void)s; }
}

extern "C" {

__global__ void gemv(const double *A, const double *x, double *y, int m, int n) {
    // { unbalanced in a comment
}

__global__ __launch_bounds__(128, 2)
void count(unsigned long long* counter, size_t len, bool flag = false) { }

}

KERNEL void via_macro(int32_t a, uint64_t b, const int8_t c[], long long d) {}

#if 0
extern "C" __global__ void dead(float* z) {}
#endif

#if __CUDA_ARCH__ >= 800
extern "C" __global__ void maybe(float* z) {}
#endif

__global__ void mangled(float* z) {}

extern "C" __global__ void takes_struct(Params p, const float2* v, float** pp, void* raw);
"#;

#[test]
fn every_extern_c_kernel_of_a_realistic_file_is_found() {
    let src = parse(REALISTIC);
    let names: Vec<(&str, Linkage)> = src
        .kernels
        .iter()
        .map(|k| (k.name.as_str(), k.linkage))
        .collect();
    assert_eq!(
        names,
        vec![
            ("fill_t", Linkage::Template),
            ("saxpy", Linkage::C),
            ("gemv", Linkage::C),
            ("count", Linkage::C),
            ("via_macro", Linkage::C),
            ("maybe", Linkage::C),
            ("mangled", Linkage::Cpp),
            ("takes_struct", Linkage::C),
        ]
    );
    // `common.cuh` cannot be read (no file to look beside).
    assert_eq!(src.notes.len(), 1, "{:?}", src.notes);

    let saxpy = &src.kernels[1];
    assert_eq!(saxpy.line, 22);
    assert_eq!(
        saxpy.decl,
        "extern \"C\" __global__ void __launch_bounds__(256) saxpy(float a, const float* __restrict__ x, float* __restrict__ y, unsigned n)"
    );
    let tys: Vec<&CType> = saxpy.params.iter().map(|p| &p.ty).collect();
    assert_eq!(
        tys,
        vec![
            &CType::Scalar {
                c: "float".into(),
                rust: "f32"
            },
            &CType::Pointer {
                pointee: "float".into(),
                rust: Some("f32"),
                constant: true
            },
            &CType::Pointer {
                pointee: "float".into(),
                rust: Some("f32"),
                constant: false
            },
            &CType::Scalar {
                c: "unsigned int".into(),
                rust: "u32"
            },
        ]
    );
    let names: Vec<Option<&str>> = saxpy.params.iter().map(|p| p.name.as_deref()).collect();
    assert_eq!(names, vec![Some("a"), Some("x"), Some("y"), Some("n")]);

    let count = &src.kernels[3];
    let tys: Vec<&CType> = count.params.iter().map(|p| &p.ty).collect();
    assert_eq!(
        tys,
        vec![
            &CType::Pointer {
                pointee: "unsigned long long".into(),
                rust: Some("u64"),
                constant: false
            },
            &CType::Scalar {
                c: "size_t".into(),
                rust: "usize"
            },
            &CType::Scalar {
                c: "bool".into(),
                rust: "bool"
            },
        ]
    );
    let via = &src.kernels[4];
    let rust: Vec<String> = via.params.iter().map(|p| format!("{:?}", p.ty)).collect();
    assert!(
        rust[0].contains("\"i32\"") && rust[1].contains("\"u64\""),
        "{rust:?}"
    );
    assert!(matches!(
        &via.params[2].ty,
        CType::Pointer {
            rust: Some("i8"),
            constant: true,
            ..
        }
    ));
    assert!(matches!(
        &via.params[3].ty,
        CType::Scalar { rust: "i64", .. }
    ));
    assert_eq!(
        src.kernels[5].conditional.as_deref(),
        Some("#if __CUDA_ARCH__ >= 800")
    );
    let st = &src.kernels[7];
    assert!(matches!(&st.params[0].ty, CType::Other(t) if t == "Params"));
    assert!(matches!(
        &st.params[1].ty,
        CType::Pointer {
            rust: Some("Float2"),
            constant: true,
            ..
        }
    ));
    // `float**`: an array of device addresses.
    assert!(matches!(
        &st.params[2].ty,
        CType::Addresses {
            rust: Some("f32"),
            constant: false,
            ..
        }
    ));
    assert!(matches!(
        &st.params[3].ty,
        CType::Pointer {
            rust: None,
            constant: false,
            ..
        }
    ));
}

/// Pieces of CUDA C, put together at random.
fn piece() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "extern",
        "\"C\"",
        "__global__",
        "void",
        "template",
        "<",
        ">",
        "typename",
        "T",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ";",
        ",",
        "*",
        "&",
        "=",
        "const",
        "__restrict__",
        "unsigned",
        "long",
        "int",
        "float",
        "k",
        "x",
        "y",
        "#if 0\n",
        "#endif\n",
        "#else\n",
        "#ifdef X\n",
        "#define K extern \"C\" __global__\n",
        "#define F(a) a\n",
        "#define G(a, b) a##b\n",
        "#define S(a) #a\n",
        "#define R R\n",
        "#define V(...) __VA_ARGS__\n",
        "#if defined(K) && (1 + 2 * 3 > 4) || !X\n",
        "#elif 1 / 0\n",
        "#include \"x.cuh\"\n",
        "namespace",
        "namespace a {",
        "struct P { int a; float b[4]; };",
        "K",
        "F",
        "G",
        "S",
        "R",
        "V",
        "/*",
        "*/",
        "//",
        "\n",
        "\"",
        "'",
        "\\",
        "__launch_bounds__",
        "1",
        "...",
        "é",
        "::",
    ])
    .prop_map(str::to_owned)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_pieces_never_panic(pieces in prop::collection::vec(piece(), 0..80)) {
        let text = pieces.join(" ");
        let _ = parse(&text);
    }

    #[test]
    fn random_text_never_panics(text in ".{0,400}") {
        let _ = parse(&text);
    }

    #[test]
    fn a_cut_realistic_file_never_panics(cut in 0usize..4000, insert in piece()) {
        let mut text = REALISTIC.to_owned();
        let at = cut % (text.len() + 1);
        let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text.insert_str(at, &insert);
        let _ = parse(&text);
        let _ = parse(&text[..at]);
    }
}

/// Every `.cu` file of this repository: each `extern "C" __global__` written in it is a kernel
/// the reader finds, with C linkage.
#[test]
fn every_kernel_of_the_repository_sources_is_found() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let files = [
        "tests/kernels/kernels.cu",
        "tests/kernels/faults.cu",
        "benches/kernels/bench.cu",
        "examples/kernels/saxpy.cu",
        "examples/kernels/diamond.cu",
        "ui-tests/macro/cu/kernels.cu",
    ];
    for f in files {
        let text = std::fs::read_to_string(format!("{root}/{f}")).unwrap();
        let written = text.matches("extern \"C\" __global__").count();
        let found = parse(&text)
            .kernels
            .iter()
            .filter(|k| k.linkage == Linkage::C)
            .count();
        assert!(written > 0, "{f}");
        assert_eq!(found, written, "{f}");
    }
}

/// Kernels the preprocessor leaves out are known, with the directive that removes them.
#[test]
fn kernels_the_preprocessor_removes_are_reported_with_their_directive() {
    let src = parse(
        r#"#define HAVE_FAST 1
#if 0
extern "C" __global__ void old(float* x) {}
#endif
#ifndef HAVE_FAST
extern "C" __global__ void slow(float* x) {}
#else
extern "C" __global__ void fast(float* x) {}
#endif
#if 1
extern "C" __global__ void kept(float* x) {}
#else
extern "C" __global__ void other(float* x) {}
#endif
#if 0
#ifdef ANYTHING
extern "C" __global__ void nested(float* x) {}
#endif
#endif
"#,
    );
    let live: Vec<&str> = src.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(live, ["fast", "kept"]);
    let removed: Vec<(&str, usize, &str)> = src
        .removed
        .iter()
        .map(|(k, why)| (k.name.as_str(), k.line, why.as_str()))
        .collect();
    assert_eq!(
        removed,
        [
            ("old", 3, "`#if 0` at line 2 leaves out what follows"),
            ("slow", 6, "`#ifndef HAVE_FAST` at line 5 leaves it out: `HAVE_FAST` is defined at line 1"),
            ("other", 13, "`#else` at line 12 leaves it out: the branch of `#if 1` at line 10 is the one kept"),
            ("nested", 17, "`#if 0` at line 15 leaves out what follows"),
        ]
    );
}

/// Function-like macros as people write them: `#` strings, `##` pastes, variadic arguments,
/// a macro that names itself (expanded once), macros in macro arguments.
#[test]
fn function_like_macros_are_expanded() {
    let src = parse(
        r#"#define KERNEL(name) extern "C" __global__ void name
#define PASTE(a, b) a##b
#define TYPED(T, name) __global__ void PASTE(name, _##T)(T* x, int n)
#define ARGS(...) (__VA_ARGS__)
#define LOOP LOOP
#define WRAP(x) x
KERNEL(plain)(float* y, unsigned n) { LOOP; }
TYPED(float, scale) {}
extern "C" __global__ void va ARGS(const double* a, double* b) {}
WRAP(extern "C" __global__ void wrapped(int k)) {}
"#,
    );
    let names: Vec<(&str, usize)> = src
        .kernels
        .iter()
        .map(|k| (k.name.as_str(), k.params.len()))
        .collect();
    assert_eq!(
        names,
        [("plain", 2), ("scale_float", 2), ("va", 2), ("wrapped", 1)]
    );
    assert_eq!(src.kernels[0].linkage, Linkage::C);
    assert_eq!(src.kernels[1].linkage, Linkage::Cpp);
    assert!(matches!(
        &src.kernels[2].params[0].ty,
        CType::Pointer {
            rust: Some("f64"),
            constant: true,
            ..
        }
    ));
}

/// `#if` expressions: arithmetic, comparisons, `defined`, the graph's defines, and what the
/// reader cannot know (`__CUDA_ARCH__`'s value).
#[test]
fn conditions_are_evaluated_or_marked_unknown() {
    let text = r#"#define VERSION 3
#if VERSION * 2 >= 6 && defined(VERSION)
extern "C" __global__ void a(int x) {}
#endif
#if (VERSION << 1) == 7 || !defined VERSION
extern "C" __global__ void b(int x) {}
#elif VERSION % 2
extern "C" __global__ void c(int x) {}
#endif
#if defined(FROM_GRAPH) && FROM_GRAPH > 10
extern "C" __global__ void d(int x) {}
#endif
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void e(int x) {}
#endif
#ifdef __CUDACC__
extern "C" __global__ void f(int x) {}
#endif
"#;
    let src = parse(text);
    let live: Vec<&str> = src.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(live, ["a", "c", "e", "f"]);
    assert_eq!(
        src.kernels[2].conditional.as_deref(),
        Some("#if __CUDA_ARCH__ >= 900")
    );
    let removed: Vec<&str> = src.removed.iter().map(|(k, _)| k.name.as_str()).collect();
    assert_eq!(removed, ["b", "d"]);
    let with = parse_file(text, None, &[("FROM_GRAPH".into(), "11".into())]);
    assert!(with.kernels.iter().any(|k| k.name == "d"));
    let low = parse_file(text, None, &[("FROM_GRAPH".into(), "2".into())]);
    assert!(low.removed.iter().any(|(k, _)| k.name == "d"));
}

/// `#include "..."` relative to the including file (nested, with `#pragma once`), kernels and
/// macros of headers, and a header that cannot be read named in a note.
#[test]
fn includes_are_read_beside_the_including_file() {
    let dir = std::env::temp_dir().join(format!("cg-csrc-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    std::fs::write(
        dir.join("sub/defs.cuh"),
        "#pragma once\n#include \"more.cuh\"\n#define KERNEL extern \"C\" __global__\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("sub/more.cuh"),
        "#pragma once\nstruct Pair { float a; double b; };\nKERNEL_IN_HEADER\n",
    )
    .expect("write");
    let main = "#define KERNEL_IN_HEADER extern \"C\" __global__ void in_header(int k) {}\n\
#include \"sub/defs.cuh\"\n#include \"sub/defs.cuh\"\n#include \"missing.cuh\"\n\
KERNEL void uses(const Pair* p) {}\n";
    let path = dir.join("main.cu");
    let src = parse_file(main, Some(&path), &[]);
    let names: Vec<&str> = src.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["in_header", "uses"]);
    assert_eq!(src.kernels[0].file.as_deref(), Some("more.cuh"));
    assert_eq!(src.kernels[0].line, 3);
    let inc: Vec<&str> = src.includes.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(inc, ["sub/defs.cuh", "more.cuh"]);
    assert_eq!(src.notes.len(), 1);
    assert!(src.notes[0].contains("missing.cuh"), "{:?}", src.notes);
    let pair = src.structs.iter().find(|s| s.name == "Pair").expect("Pair");
    assert_eq!(pair.layout, Some((16, 8)));
    std::fs::remove_dir_all(&dir).ok();
}

/// Namespaces, templates with defaults, and the layout of structs with arrays, vector types
/// and nested structs.
#[test]
fn namespaces_templates_and_struct_layouts() {
    let src = parse(
        r#"namespace outer { namespace inner {
template <typename T, int N = 4, bool FAST = true>
__global__ void k(T* x, const T* __restrict__ y) {}
} }
namespace a::b { __global__ void nested(float* x) {} }
typedef struct { char c; double d; int i; } Padded;
struct Vecs { float4 v; float3 w; };
struct Outer { Padded p; short s[3]; };
struct __align__(16) Aligned { float x; };
struct Unknown { Mystery m; };
"#,
    );
    let k = &src.kernels[0];
    assert_eq!(k.qualified(), "outer::inner::k");
    assert_eq!(
        k.template_header().as_deref(),
        Some("template <typename T, int N = 4, bool FAST = true>")
    );
    let inst = k.instantiate(&["double".into()]).expect("defaults");
    assert!(matches!(
        &inst[1].ty,
        CType::Pointer {
            rust: Some("f64"),
            constant: true,
            ..
        }
    ));
    assert!(k.instantiate(&[]).is_err());
    assert_eq!(src.kernels[1].qualified(), "a::b::nested");
    let layout = |n: &str| src.structs.iter().find(|s| s.name == n).expect(n).layout;
    assert_eq!(layout("Padded"), Some((24, 8)));
    assert_eq!(layout("Vecs"), Some((32, 16)));
    assert_eq!(layout("Outer"), Some((32, 8)));
    assert_eq!(layout("Aligned"), Some((16, 16)));
    assert_eq!(layout("Unknown"), None);
}

/// Aliases of plain types (`typedef`, `using`) are read through in parameter types; a
/// parameter named like one keeps its name.
#[test]
fn type_aliases_are_resolved_in_parameters() {
    let src = parse(
        r#"typedef unsigned int uint;
using index_t = int64_t;
typedef float real;
typedef real value_t;
extern "C" __global__ void k(const value_t* x, uint n, index_t stride, real* real_out) {}
"#,
    );
    let p = &src.kernels[0].params;
    assert!(matches!(
        &p[0].ty,
        CType::Pointer {
            rust: Some("f32"),
            constant: true,
            ..
        }
    ));
    assert!(matches!(&p[1].ty, CType::Scalar { rust: "u32", .. }));
    assert!(matches!(&p[2].ty, CType::Scalar { rust: "i64", .. }));
    assert_eq!(p[3].name.as_deref(), Some("real_out"));
    assert!(matches!(
        &p[3].ty,
        CType::Pointer {
            rust: Some("f32"),
            constant: false,
            ..
        }
    ));
}

/// `cuda_fp8.h`'s types read as the Rust types of `cuda_graph::fp8`, checked like `__half`:
/// pointers give the element type, by-value parameters the scalar, the storage typedefs the
/// unsigned integers they are; the reader needs no header for them.
#[test]
fn fp8_types_are_read_as_the_crates_types() {
    let src = parse(
        r#"#include <cuda_fp8.h>
using fp8 = __nv_fp8_e4m3;
extern "C" __global__ void quant(const __nv_fp8_e4m3* x, __nv_fp8_e5m2* y,
                                 __nv_fp8x4_e4m3* q, __nv_fp8_e4m3 s,
                                 __nv_fp8_storage_t* raw, const fp8* __restrict__ z,
                                 __nv_fp8x2_e5m2 pair, const __nv_fp8_e8m0* scales,
                                 __nv_fp8x2_storage_t* raw2, __nv_fp8x4_storage_t raw4) {}
"#,
    );
    let k = &src.kernels[0];
    let names: Vec<Option<&str>> = k.params.iter().map(|p| p.name.as_deref()).collect();
    assert_eq!(
        names,
        ["x", "y", "q", "s", "raw", "z", "pair", "scales", "raw2", "raw4"].map(Some)
    );
    let ptr = |c: &str, rust: &'static str, constant: bool| CType::Pointer {
        pointee: c.into(),
        rust: Some(rust),
        constant,
    };
    let tys: Vec<&CType> = k.params.iter().map(|p| &p.ty).collect();
    assert_eq!(
        tys,
        vec![
            &ptr("__nv_fp8_e4m3", "F8E4M3", true),
            &ptr("__nv_fp8_e5m2", "F8E5M2", false),
            &ptr("__nv_fp8x4_e4m3", "F8E4M3x4", false),
            &CType::Scalar {
                c: "__nv_fp8_e4m3".into(),
                rust: "F8E4M3"
            },
            &ptr("__nv_fp8_storage_t", "u8", false),
            &ptr("__nv_fp8_e4m3", "F8E4M3", true),
            &CType::Scalar {
                c: "__nv_fp8x2_e5m2".into(),
                rust: "F8E5M2x2"
            },
            &ptr("__nv_fp8_e8m0", "F8E8M0", true),
            &ptr("__nv_fp8x2_storage_t", "u16", false),
            &CType::Scalar {
                c: "__nv_fp8x4_storage_t".into(),
                rust: "u32"
            },
        ]
    );
    // The paths generated code names them by, and the C spelling of prototypes.
    use cuda_graph_macros_core::csrc::{c_of, rust_path};
    assert_eq!(rust_path("F8E4M3"), "::cuda_graph::fp8::F8E4M3");
    assert_eq!(rust_path("F8E5M2x4"), "::cuda_graph::fp8::F8E5M2x4");
    assert_eq!(rust_path("F8E8M0"), "::cuda_graph::fp8::F8E8M0");
    assert_eq!(c_of("F8E4M3"), Some("__nv_fp8_e4m3"));
    assert_eq!(c_of("F8E5M2x2"), Some("__nv_fp8x2_e5m2"));
    assert_eq!(c_of("F8E8M0x4"), Some("__nv_fp8x4_e8m0"));
}

/// A struct with fp8 fields has a known layout (1-, 2- and 4-byte types, aligned as CUDA's).
#[test]
fn fp8_fields_have_cudas_layout() {
    let src = parse(
        r#"struct Scaled { __nv_fp8_e4m3 a; __nv_fp8x2_e5m2 b; __nv_fp8x4_e4m3 c; __nv_fp8_e8m0 s; };
struct Raw { __nv_fp8_storage_t a; __nv_fp8x4_storage_t b; };
"#,
    );
    let layout = |n: &str| {
        src.structs
            .iter()
            .find(|s| s.name == n)
            .and_then(|s| s.layout)
    };
    // a at 0, b at 2, c at 4, s at 8: 9 bytes, padded to 12.
    assert_eq!(layout("Scaled"), Some((12, 4)));
    assert_eq!(layout("Raw"), Some((8, 4)));
}
