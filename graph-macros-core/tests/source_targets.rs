//! The source check on what real CUDA files do beyond one kernel per name: kernels declared
//! under `#if` on what only the build knows (`__CUDA_ARCH__`, `CUDA_VERSION`), overloads chosen
//! by the graph's parameter list, qualified names, and "did you mean" for a name a macro makes.
//! Each graph goes through the whole front end (`check_in`), as the macro runs it.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack, and runs in CI.

use std::path::PathBuf;

use cuda_graph_macros_core::csrc::parse_file;

mod common;

/// A directory of its own for `name`'s files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cg-source-targets-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The front end's errors for `graph` (its items) with `file.cu` holding `cu`, other than the
/// one every such graph has (its kernel is never launched).
fn errors(test: &str, cu: &str, graph: &str) -> Vec<String> {
    let d = dir(test);
    std::fs::write(d.join("file.cu"), cu).expect("write");
    common::declaration_errors(&format!("source \"file.cu\"; {graph}"), d)
}

const ARCH_AGREE: &str = r#"
#include <cuda_bf16.h>
#if __CUDA_ARCH__ >= 800
extern "C" __global__ void scale(__nv_bfloat16* y, float a, int n) { /* bf16 math */ }
#else
extern "C" __global__ void scale(__nv_bfloat16* y, float a, int n) { /* through float */ }
#endif
"#;

const ARCH_DISAGREE: &str = r#"
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
extern "C" __global__ void step(float* y, const float* x, int n) {}
#else
extern "C" __global__ void step(float* y, int n) {}
#endif
"#;

#[test]
fn branches_on_the_architecture_that_agree_are_one_kernel() {
    let src = parse_file(ARCH_AGREE, None, &[]);
    assert_eq!(src.kernels.len(), 1, "{:?}", src.kernels);
    assert_eq!(src.kernels[0].also.len(), 1);
    assert!(errors("agree", ARCH_AGREE, "kernel scale;").is_empty());
}

#[test]
fn branches_that_disagree_are_an_error_naming_both_lines_and_the_macro() {
    let e = errors("disagree", ARCH_DISAGREE, "kernel step;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("(lines 3, 5)"), "{}", e[0]);
    assert!(e[0].contains("`__CUDA_ARCH__` decides"), "{}", e[0]);
    assert!(e[0].contains("define __CUDA_ARCH__ = 900;"), "{}", e[0]);
}

#[test]
fn the_architecture_the_graph_builds_for_picks_the_branch() {
    // sm_90: the first branch, with `x`; sm_80: the second, without.
    let e = errors(
        "arch90",
        ARCH_DISAGREE,
        "define __CUDA_ARCH__ = 900; kernel step(y: &mut [f32], x: &[f32], n: i32);",
    );
    assert!(e.is_empty(), "{e:?}");
    let e = errors(
        "arch80",
        ARCH_DISAGREE,
        "define __CUDA_ARCH__ = 800; kernel step(y: &mut [f32], x: &[f32], n: i32);",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    let src = parse_file(
        ARCH_DISAGREE,
        None,
        &[("__CUDA_ARCH__".to_owned(), "800".to_owned())],
    );
    assert_eq!(src.kernels.len(), 1);
    assert_eq!(src.kernels[0].params.len(), 2);
    assert_eq!(src.removed.len(), 1);
}

#[test]
fn the_toolkit_version_decides_and_what_follows_from_it_is_known() {
    let cu = r#"
#if __CUDACC_VER_MAJOR__ >= 12 && CUDART_VERSION >= 12000
extern "C" __global__ void k(float* y) {}
#else
extern "C" __global__ void k(double* y) {}
#endif
"#;
    let v12 = [("CUDA_VERSION".to_owned(), "12080".to_owned())];
    let src = parse_file(cu, None, &v12);
    assert_eq!(src.kernels.len(), 1);
    assert!(
        src.kernels[0].decl.contains("float"),
        "{}",
        src.kernels[0].decl
    );
    let e = errors("ver", cu, "kernel k;");
    assert!(e[0].contains("define CUDA_VERSION = 12080;"), "{e:?}");
    // What follows from the version is not given apart.
    let e = errors(
        "ver2",
        cu,
        "define __CUDACC_VER_MAJOR__ = 12; kernel k(y: &mut [f32]);",
    );
    assert!(
        e.iter()
            .any(|m| m.contains("write `define CUDA_VERSION = 12080;`")),
        "{e:?}"
    );
    let e = errors(
        "arch-bad",
        cu,
        "define __CUDA_ARCH__ = 9; kernel k(y: &mut [f32]);",
    );
    assert!(
        e.iter().any(|m| m.contains("major * 100 + minor * 10")),
        "{e:?}"
    );
}

const OVERLOADS: &str = r#"
namespace ops {
__global__ void fill(float* y, float v, int n) {}
__global__ void fill(int* y, int v, int n) {}
}
"#;

#[test]
fn an_overload_is_chosen_by_the_parameter_list_and_loaded_by_its_cast() {
    let e = errors(
        "over",
        OVERLOADS,
        "kernel fill(y: &mut [i32], v: i32, n: i32);",
    );
    assert!(e.is_empty(), "{e:?}");
    let e = errors("over-none", OVERLOADS, "kernel fill;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("is overloaded"), "{}", e[0]);
    assert!(
        e[0].contains("kernel fill(y: &mut [f32], v: f32, n: i32);"),
        "{}",
        e[0]
    );
    let e = errors(
        "over-bad",
        OVERLOADS,
        "kernel fill(y: &mut [f64], v: f64, n: i32);",
    );
    assert!(e[0].starts_with("none of the 2 overloads"), "{e:?}");
}

#[test]
fn qualified_names_pick_the_namespace() {
    let cu = r#"
namespace nn { template <typename T, int N> __global__ void rmsnorm(T* y, const T* x) {} }
namespace ref { template <typename T, int N> __global__ void rmsnorm(T* y, const T* x) {} }
"#;
    let e = errors(
        "qual",
        cu,
        "kernel norm = nn::rmsnorm<f32, 256>; kernel ref::rmsnorm<f32, 128>;",
    );
    assert!(e.is_empty(), "{e:?}");
    let e = errors("qual-both", cu, "kernel rmsnorm<f32, 256>;");
    assert!(
        e[0].contains("`kernel nn::rmsnorm<...>;` or `kernel ref::rmsnorm<...>;`"),
        "{e:?}"
    );
    let e = errors("qual-typo", cu, "kernel norm = nx::rmsnorm<f32, 256>;");
    assert!(e[0].contains("did you mean `nn::rmsnorm`"), "{e:?}");
}

#[test]
fn a_name_a_macro_makes_is_suggested() {
    let cu = r#"
#define UNARY(name, T, expr) extern "C" __global__ void name##_##T(T* y, int n) { }
UNARY(relu, float, 0)
UNARY(gelu, float, 0)
"#;
    let e = errors("macro-name", cu, "kernel relu;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("did you mean `relu_float`"), "{}", e[0]);
}

#[test]
fn aliases_of_other_scopes_and_template_parameters_stay_apart() {
    // An alias in a function body or a struct names a type only there; a template parameter is
    // itself even where an alias at file scope has its name.
    let cu = r#"
template <class T_> struct Holder { using T = T_; typedef T_ U; };
void host() { using V = double; }
typedef float V;
using T = int;
template <class T> __global__ void scale(T* x, V* y, int n) {}
"#;
    let src = parse_file(cu, None, &[]);
    let k = &src.kernels[0];
    assert_eq!(k.params[0].text, "T* x");
    assert!(
        k.params[1].text.starts_with("float"),
        "{}",
        k.params[1].text
    );
    let e = errors("alias-scope", cu, "kernel scale<f16>;");
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn std_qualified_scalars_and_the_short_unsigned_names_are_known() {
    let cu = r#"
#include <cstdint>
extern "C" __global__ void k(float* x, std::uint32_t n, ::size_t m, std::int64_t o, uint w, ushort h) {}
"#;
    let src = parse_file(cu, None, &[]);
    let rust: Vec<String> = src.kernels[0]
        .params
        .iter()
        .map(|p| format!("{:?}", p.ty))
        .collect();
    assert!(rust[1].contains("\"u32\""), "{rust:?}");
    assert!(rust[2].contains("\"usize\""), "{rust:?}");
    assert!(rust[3].contains("\"i64\""), "{rust:?}");
    assert!(rust[4].contains("\"u32\""), "{rust:?}");
    assert!(rust[5].contains("\"u16\""), "{rust:?}");
    assert!(errors("std", cu, "kernel k;").is_empty());
}

#[test]
fn a_template_header_before_an_architecture_branch_belongs_to_every_branch() {
    let cu = r#"
template <typename T>
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
__global__ void k(T* x, int n) { }
#else
__global__ void k(T* x, int) { }
#endif
"#;
    let src = parse_file(cu, None, &[]);
    assert_eq!(src.kernels.len(), 1, "{:?}", src.kernels);
    assert!(src.kernels[0].template.is_some());
    assert!(errors("tpl-branch", cu, "kernel k<f32>;").is_empty());
}

#[test]
fn a_prototype_without_names_through_an_alias_is_its_definition() {
    let cu = r#"
typedef float2 Complex;
__global__ void mul(float2*, const Complex*, int, float);
__global__ void mul(float2* a, const float2* b, int size, float scale) {}
"#;
    let src = parse_file(cu, None, &[]);
    assert_eq!(src.kernels.len(), 1, "{:?}", src.kernels);
    assert_eq!(src.kernels[0].also, vec![4]);
}
