//! The CUDA C declaration reader: realistic files (every `extern "C" __global__` kernel found,
//! with its parameters), and random or mangled input (never a panic).
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use cuda_graph_macros_core::csrc::{parse, CType, Linkage};
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

#ifdef USE_HALF
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
    assert_eq!(src.function_macros, vec!["IDX".to_owned()]);

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
        Some("#ifdef USE_HALF")
    );
    let st = &src.kernels[7];
    assert!(matches!(&st.params[0].ty, CType::Other(t) if t == "Params"));
    assert!(matches!(
        &st.params[1].ty,
        CType::Pointer {
            rust: None,
            constant: true,
            ..
        }
    ));
    assert!(matches!(&st.params[2].ty, CType::Other(_)));
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
        "K",
        "F",
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
