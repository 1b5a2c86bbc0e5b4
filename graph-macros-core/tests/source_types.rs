//! The source check on parameter types real CUDA code passes beyond scalars and pointers:
//! structs named by a `#[repr(C)]` Rust type (their size and alignment checked where the reader
//! knows the C layout), arrays of device addresses (`float**`), tensor maps (`CUtensorMap`),
//! empty tag types (`std::bool_constant<B>`), enumerators as template arguments, and kernels of
//! more than 24 parameters. Each graph goes through the whole front end (`check_in`), as the
//! macro runs it.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack, and runs in CI.

use std::path::PathBuf;

use cuda_graph_macros_core::csrc::{parse, CType};
use cuda_graph_macros_core::model::Graph;
use cuda_graph_macros_core::{check_in, validate::Dirs};

mod common;

/// A directory of its own for `name`'s files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cg-source-types-{}-{name}", std::process::id()));
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

/// The checked graph of `graph` (its items) with `file.cu` holding `cu`.
fn checked(test: &str, cu: &str, graph: &str) -> Graph {
    let d = dir(test);
    std::fs::write(d.join("file.cu"), cu).expect("write");
    let src = format!("graph G {{ source \"file.cu\"; {graph} }}");
    let dirs = Dirs {
        manifest: Some(d),
        call: None,
    };
    let (mut graphs, _) = check_in(src.parse().expect("tokens"), &dirs).expect("parses");
    graphs.remove(0)
}

/// Each layout check of kernel `k`: (Rust type, size, alignment).
fn layout_checks(g: &Graph, k: usize) -> Vec<(String, usize, Option<usize>)> {
    g.kernels[k]
        .sizes
        .iter()
        .map(|l| {
            let t = quote::ToTokens::to_token_stream(&l.ty).to_string();
            (t, l.size, l.align)
        })
        .collect()
}

const STRUCTS: &str = r#"
struct Params { float scale; int n; double bias; };
struct __align__(16) Wide { float x; };
struct Loose { char c; } __attribute__((aligned(8)));
namespace a { struct Twice { int x; }; }
namespace b { struct Twice { double x; }; }
template <typename T> struct Box { T v; int n; };
template <> struct Box<double> { double v; double w; };
struct Holder { float& r; };
extern "C" __global__ void by_value(Params p, Wide w, float* y) {}
extern "C" __global__ void by_pointer(const Params* ps, float* y) {}
extern "C" __global__ void unknown(Loose l, a::Twice t, Box<double> bx, Holder h) {}
extern "C" __global__ void twice(Twice t) {}
"#;

#[test]
fn a_struct_the_file_lays_out_is_checked_for_size_and_alignment() {
    let g = checked(
        "struct-layout",
        STRUCTS,
        "kernel by_value(p: P, w: W, y: &mut [f32]); kernel by_pointer(ps: &[P], y: &mut [f32]);",
    );
    assert_eq!(
        layout_checks(&g, 0),
        [
            ("P".to_owned(), 16, Some(8)),
            ("W".to_owned(), 16, Some(16))
        ]
    );
    assert_eq!(layout_checks(&g, 1), [("P".to_owned(), 16, Some(8))]);
    assert!(g.kernels[0].sizes[0]
        .msg
        .contains("16 bytes and 8-byte aligned"));
}

#[test]
fn a_layout_the_reader_cannot_know_claims_nothing() {
    // An attribute after the body, a name two namespaces define differently, a template's
    // specialization, a reference member: no size is claimed for any of them.
    let g = checked(
        "struct-unknown",
        STRUCTS,
        "kernel unknown(l: L, t: T, bx: B, h: H); kernel twice(t: T);",
    );
    assert!(
        layout_checks(&g, 0).is_empty(),
        "{:?}",
        layout_checks(&g, 0)
    );
    assert!(
        layout_checks(&g, 1).is_empty(),
        "{:?}",
        layout_checks(&g, 1)
    );
    let src = parse(STRUCTS);
    let unknown = &src
        .kernels
        .iter()
        .find(|k| k.name == "unknown")
        .unwrap()
        .params;
    assert_eq!(unknown[2].ty, CType::Other("Box<double>".to_owned()));
}

#[test]
fn pragma_pack_leaves_the_layouts_after_it_unknown() {
    let cu = "struct A { char c; int n; };\n#pragma pack(push, 1)\nstruct B { char c; int n; };\n#pragma pack(pop)\nextern \"C\" __global__ void k(A a, B b) {}\n";
    let g = checked("pack", cu, "kernel k(a: RA, b: RB);");
    assert_eq!(layout_checks(&g, 0), [("RA".to_owned(), 8, Some(4))]);
}

#[test]
fn a_user_type_for_a_known_c_type_is_checked_too() {
    // `&[MyFloat]` for `float*` and `MyHalf2` for `__half2`: the C type's layout.
    let cu = "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(float* y, __half2 h) {}\n";
    let g = checked("user-known", cu, "kernel k(y: &mut [MyFloat], h: MyHalf2);");
    assert_eq!(
        layout_checks(&g, 0),
        [
            ("MyFloat".to_owned(), 4, Some(4)),
            ("MyHalf2".to_owned(), 4, Some(4))
        ]
    );
}

const ADDRESSES: &str = r#"
extern "C" __global__ void gather(const float* const* xs, float** ys, void* const* raw,
                                  const int** ids, float* out[], int n) {}
struct Item { int a; };
extern "C" __global__ void items(Item** items) {}
"#;

#[test]
fn pointers_to_pointers_are_buffers_of_device_addresses() {
    let src = parse(ADDRESSES);
    let p = &src.kernels[0].params;
    let addresses = |k: usize| match &p[k].ty {
        CType::Addresses {
            rust,
            constant,
            inner_const,
            ..
        } => (*rust, *constant, *inner_const),
        other => panic!("{other:?}"),
    };
    assert_eq!(addresses(0), (Some("f32"), true, true));
    assert_eq!(addresses(1), (Some("f32"), false, false));
    assert_eq!(addresses(2), (None, true, false));
    assert_eq!(addresses(3), (Some("i32"), false, true));
    assert_eq!(addresses(4), (Some("f32"), false, false));
    // Taken from the file, and written out.
    assert!(errors("addr-derive", ADDRESSES, "kernel gather;").is_empty());
    assert!(errors(
        "addr-list",
        ADDRESSES,
        "kernel gather(xs: &[Addr<f32>], ys: &mut [Addr<f32>], raw: &[Addr<Void>], ids: &mut [Addr<i32>], out: &mut [Addr<f32>], n: i32);"
    )
    .is_empty());
}

#[test]
fn a_wrong_array_of_addresses_says_what_to_write() {
    let e = errors(
        "addr-elem",
        ADDRESSES,
        "kernel gather(xs: &[u64], ys: &mut [Addr<f32>], raw: &[Addr<Void>], ids: &mut [Addr<i32>], out: &mut [Addr<f32>], n: i32);",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("write `xs: &[Addr<f32>]`"), "{}", e[0]);
    let e = errors(
        "addr-access",
        ADDRESSES,
        "kernel gather(xs: &mut [Addr<f32>], ys: &mut [Addr<f64>], raw: &[Addr<Void>], ids: &mut [Addr<i32>], out: &mut [Addr<f32>], n: i32);",
    );
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        e[0].contains("the kernel cannot write a `const` array of addresses"),
        "{}",
        e[0]
    );
    assert!(e[1].contains("an array of addresses of `f64`"), "{}", e[1]);
    // Addresses of a struct: the user names its type, and the suggestion says so.
    let e = errors("addr-struct", ADDRESSES, "kernel items;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("`kernel items(items: &mut [Addr<Item>]);`"),
        "{}",
        e[0]
    );
    let g = checked(
        "addr-struct-list",
        ADDRESSES,
        "kernel items(items: &mut [Addr<MyItem>]);",
    );
    assert_eq!(layout_checks(&g, 0), [("MyItem".to_owned(), 4, Some(4))]);
}

const TMA_AND_TAGS: &str = r#"
#include <cuda.h>
#include <type_traits>
template <typename T, bool Atomic>
__global__ void reduce(T* out, const T* in, int n, std::bool_constant<Atomic>) {}
extern "C" __global__ void load(const __grid_constant__ CUtensorMap map, CUtensorMap* maps,
                                ::std::integral_constant<int, 4> four, std::true_type yes) {}
"#;

#[test]
fn tensor_maps_and_tag_types_are_known() {
    let src = parse(TMA_AND_TAGS);
    let load = &src.kernels[1].params;
    assert_eq!(
        load[0].ty,
        CType::Scalar {
            c: "CUtensorMap".to_owned(),
            rust: "TensorMap"
        }
    );
    assert!(matches!(
        load[1].ty,
        CType::Pointer {
            rust: Some("TensorMap"),
            constant: false,
            ..
        }
    ));
    assert!(
        matches!(&load[2].ty, CType::Scalar { rust: "Tag", c } if c == "std::integral_constant<int, 4>")
    );
    assert_eq!(load[3].name.as_deref(), Some("yes"));
    assert!(errors(
        "tma-derive",
        TMA_AND_TAGS,
        "kernel load; kernel reduce<f32, true>;"
    )
    .is_empty());
    assert!(errors(
        "tma-list",
        TMA_AND_TAGS,
        "kernel load(map: TensorMap, maps: &mut [TensorMap], four: Tag, yes: Tag); kernel reduce<f32, true>(out: &mut [f32], input: &[f32], n: i32, atomic: Tag);"
    )
    .is_empty());
    let e = errors(
        "tag-wrong",
        TMA_AND_TAGS,
        "kernel load(map: TensorMap, maps: &mut [TensorMap], four: i32, yes: Tag);",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("write `four: Tag`"), "{}", e[0]);
}

/// A tag type the file defines itself is no standard one: a struct by value.
#[test]
fn only_the_standard_tags_are_tags() {
    let src = parse("template <int N> struct constant {};\ntemplate <int N> __global__ void k(constant<N> c) {}\n");
    assert!(matches!(src.kernels[0].params[0].ty, CType::Other(_)));
}

const ENUMS: &str = r#"
namespace ops {
enum class ScaleMode : int { kNone = 0, kPerTensor = 1 << 2, kPerToken };
enum Order { BIG, LITTLE = BIG + 5 };
struct Cfg { enum class Kind { A, B }; };
template <typename T, ScaleMode MODE, Order ORDER, Cfg::Kind K>
__global__ void scale(T* y, int n) {}
}  // namespace ops
"#;

#[test]
fn enumerators_are_template_arguments_resolved_from_the_source() {
    let src = parse(ENUMS);
    let e = &src.enums;
    assert_eq!(e.len(), 3, "{e:?}");
    assert_eq!(e[0].qualified(), "ops::ScaleMode");
    assert_eq!(
        e[0].values,
        [
            ("kNone".to_owned(), Some(0)),
            ("kPerTensor".to_owned(), Some(4)),
            ("kPerToken".to_owned(), Some(5))
        ]
    );
    assert_eq!(e[1].values[1], ("LITTLE".to_owned(), Some(5)));
    assert_eq!(e[2].qualified(), "ops::Cfg::Kind");
    let g = checked(
        "enum-ok",
        ENUMS,
        "kernel scale<f32, ScaleMode::kPerToken, LITTLE, Cfg::Kind::B>;",
    );
    assert_eq!(
        g.kernels[0].load.as_deref(),
        Some("ops::scale<float, ops::ScaleMode::kPerToken, ops::Order::LITTLE, ops::Cfg::Kind::B>")
    );
    assert!(errors(
        "enum-qualified",
        ENUMS,
        "kernel scale<f32, ops::ScaleMode::kNone, Order::BIG, ops::Cfg::Kind::A>;"
    )
    .is_empty());
}

#[test]
fn an_unknown_enumerator_or_a_number_for_an_enum_is_an_error_that_suggests() {
    let e = errors(
        "enum-typo",
        ENUMS,
        "kernel scale<f32, ScaleMode::kPerTensr, BIG, Cfg::Kind::A>;",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("`ScaleMode` has no enumerator `kPerTensr`"),
        "{}",
        e[0]
    );
    assert!(
        e[0].contains("did you mean `ScaleMode::kPerTensor`?"),
        "{}",
        e[0]
    );
    let e = errors(
        "enum-number",
        ENUMS,
        "kernel scale<f32, 1, BIG, Cfg::Kind::A>;",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("C++ converts no integer to an enum"),
        "{}",
        e[0]
    );
    assert!(e[0].contains("`ScaleMode::kNone`"), "{}", e[0]);
    // A scoped enum's enumerator needs its enum; another enum's name is no qualifier.
    let e = errors(
        "enum-bare",
        ENUMS,
        "kernel scale<f32, kNone, Order::BIG, Cfg::Kind::A>;",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    let e = errors(
        "enum-other",
        ENUMS,
        "kernel scale<f32, Order::kNone, BIG, Cfg::Kind::A>;",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("write `ScaleMode::kNone`"), "{}", e[0]);
    // An enum the reader does not see cannot be checked.
    let cu = "#include <cub/cub.cuh>\ntemplate <cub::BlockScanAlgorithm ALGO> __global__ void scan(int* y) {}\n";
    let e = errors("enum-unseen", cu, "kernel scan<cub::BLOCK_SCAN_RAKING>;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("its enumerators cannot be checked"),
        "{}",
        e[0]
    );
}

#[test]
fn kernels_of_up_to_40_parameters_are_taken() {
    let params = |n: usize| {
        (0..n)
            .map(|i| format!("float p{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cu = format!(
        "extern \"C\" __global__ void k33({}) {{}}\nextern \"C\" __global__ void k41({}) {{}}\n",
        params(33),
        params(41)
    );
    assert!(errors("args-33", &cu, "kernel k33;").is_empty());
    let e = errors("args-41", &cu, "kernel k41;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("takes at most 40 arguments"), "{}", e[0]);
}

#[test]
fn the_suggested_declaration_keeps_the_template_arguments() {
    let cu = "struct P { int a; };\ntemplate <typename T, int N> __global__ void k(T* y, P p) {}\n";
    let e = errors("suggest-targs", cu, "kernel k<f32, 4>;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("e.g. `kernel k<f32, 4>(y: &mut [f32], p: P);`"),
        "{}",
        e[0]
    );
    assert!(errors(
        "suggest-targs-ok",
        cu,
        "kernel k<f32, 4>(y: &mut [f32], p: P);"
    )
    .is_empty());
}

const EARLY: &str = r#"
extern "C" __global__ void produce(float* y) {
  cudaTriggerProgrammaticLaunchCompletion();
  y[threadIdx.x] = 1.0f;
}
extern "C" __global__ void rows(const float* const* xs, float* z) {
  const float* row = xs[blockIdx.x];
  cudaGridDependencySynchronize();
  z[threadIdx.x] = row[threadIdx.x];
}
extern "C" __global__ void plain(const float* x, float* z) {
  float v = x[threadIdx.x];
  cudaGridDependencySynchronize();
  z[threadIdx.x] = v;
}
"#;

/// Addresses read before the wait reach memory the graph does not track: no programmatic edge,
/// even from a read-only buffer of them (a read-only buffer of values may).
#[test]
fn addresses_used_before_the_wait_refuse_a_programmatic_edge() {
    let graph = |k: &str, arg: &str| {
        format!(
            "kernel produce; kernel {k}; buffer mut y: f32; buffer {arg}; buffer mut z: f32; a = produce<<<1, 32>>>(y); b = {k}<<<1, 32>>>(x, z); #[programmatic] a -> b;"
        )
    };
    let e = errors("early-addr", EARLY, &graph("rows", "x: Addr<f32>"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("addresses of memory the graph does not track"),
        "{}",
        e[0]
    );
    assert!(errors("early-plain", EARLY, &graph("plain", "x: f32")).is_empty());
}

#[test]
fn fields_the_reader_cannot_count_or_size_leave_the_layout_unknown() {
    // A field under an `#if` the reader cannot evaluate (either branch could be the struct),
    // an extent that is an expression, a tensor map (its alignment is the toolkit's): no
    // layout. A default member initializer changes nothing (`k` is 4 bytes, not a pointer).
    let cu = r#"
struct Cond {
#if __CUDA_ARCH__ >= 800
  double a;
#else
  float a;
#endif
};
struct Sum { float v[4 + 1]; };
struct Product { int a[2 * 3]; };
struct Map { CUtensorMap m; int n; };
struct Init { int k = 2 * 3; float f; };
extern "C" __global__ void k(Cond c, Sum s, Product p, Map m, Init i) {}
"#;
    let g = checked(
        "fields-unknown",
        cu,
        "kernel k(c: RC, s: RS, p: RP, m: RM, i: RI);",
    );
    assert_eq!(layout_checks(&g, 0), [("RI".to_owned(), 8, Some(4))]);
}

/// The programmatic-edge graph of `rows` (reads its weights `w` before its wait) after
/// `produce`, beside `extra` (more items).
fn programmatic(test: &str, extra: &str) -> Vec<String> {
    let cu = r#"
extern "C" __global__ void produce(float* y, int n) {
  cudaTriggerProgrammaticLaunchCompletion();
  if (threadIdx.x < n) y[threadIdx.x] = 1.0f;
}
extern "C" __global__ void rows(const float* w, const float* y, float* z, int n) {
  float wi = threadIdx.x < n ? w[threadIdx.x] : 0.0f;
  cudaGridDependencySynchronize();
  if (threadIdx.x < n) z[threadIdx.x] = wi * y[threadIdx.x];
}
extern "C" __global__ void scatter(float* const* outs, int n) {
  if (threadIdx.x < n) outs[0][threadIdx.x] = 2.0f;
}
extern "C" __global__ void store(const __grid_constant__ CUtensorMap map) {}
"#;
    let d = dir(test);
    std::fs::write(d.join("file.cu"), cu).expect("write");
    let src = format!(
        "graph G {{ source \"file.cu\"; kernel produce; kernel rows; buffer mut y: f32; buffer w: f32; buffer mut z: f32; {extra} a = produce<<<1, 32>>>(y, 32); b = rows<<<1, 32>>>(w, y, z, 32); #[programmatic] a -> b; }}"
    );
    let dirs = Dirs {
        manifest: Some(d),
        call: None,
    };
    let (_, errs) = check_in(src.parse().expect("tokens"), &dirs).expect("parses");
    errs.messages()
}

#[test]
fn untracked_writes_forbid_reads_before_a_wait() {
    // Alone, `rows` may read its read-only weights before it waits.
    assert!(programmatic("pdl-alone", "").is_empty());
    // Beside a kernel that writes through an array of addresses, or takes a tensor map (whose
    // stores the graph cannot see), `w` could be what it writes: the edge is refused.
    for (test, extra, what) in [
        (
            "pdl-addresses",
            "kernel scatter; buffer outs: Addr<f32>; c = scatter<<<1, 32>>>(outs, 32);",
            "may write through `outs` (a buffer of device addresses)",
        ),
        (
            "pdl-tensor-map",
            "kernel store; param map: TensorMap; c = store<<<1, 1>>>(map);",
            "may write through `map` (a tensor map)",
        ),
    ] {
        let errs = programmatic(test, extra);
        assert!(
            errs.iter().any(|e| e.contains(what)
                && e.contains("`w`, declared without `mut`")
                && e.contains("move the wait above that use")),
            "{test}: {errs:?}"
        );
    }
}

#[test]
fn a_bare_enumerator_of_an_enum_class_is_named_through_it() {
    let cu = "namespace ops { enum class Mode { kA, kB }; template <Mode M> __global__ void f(int* o) {} }\n";
    let errs = errors("enum-class-bare", cu, "kernel f = ops::f<kB>;");
    assert!(
        errs.iter()
            .any(|e| e.contains("`ops::Mode` is an `enum class`")
                && e.contains("write `Mode::kB`")
                && !e.contains("``")),
        "{errs:?}"
    );
}

#[test]
fn prototypes_spell_arrays_of_addresses_as_c_does() {
    let cu = "extern \"C\" __global__ void g(const float* const* xs, float** ys, int n) {}\n";
    let g = checked(
        "prototypes-addresses",
        cu,
        "kernel g; buffer xs: Addr<f32>; buffer mut ys: Addr<f32>; a = g<<<1, 32>>>(xs, ys, 32);",
    );
    // `PROTOTYPES` in the expansion, a string literal.
    let text = cuda_graph_macros_core::expand::graph(&g).to_string();
    assert!(
        text.contains("float* const* xs") && text.contains("float** ys"),
        "{text}"
    );
}
