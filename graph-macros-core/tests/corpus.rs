//! Real-world-style CUDA sources (`tests/kernels/real/`: C++ linkage, namespaces, templates,
//! function-like macros, includes, half and vector types, structs) through the macro's front
//! end, one graph per kernel with `kernel NAME;` (taking the signature from the source), as a
//! user would write it. Every kernel is accepted or refused for a reason the test names.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use std::path::PathBuf;

use cuda_graph_macros_core::csrc::{parse_file, Linkage};

mod common;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels/real")
}

/// The front end's errors for a graph declaring `decl` from `file`, other than the one every
/// such graph has (its kernel is never launched).
fn errors(file: &str, decl: &str, extra: &str) -> Vec<String> {
    common::declaration_errors(&format!("source \"{file}\"; {extra} {decl}"), corpus())
}

#[test]
fn every_kernel_of_the_corpus_is_read_and_accepted_or_refused_for_a_named_reason() {
    let mut accepted = 0;
    let mut total = 0;
    let mut refused = Vec::new();
    for file in ["norms.cu", "reduce.cu"] {
        let path = corpus().join(file);
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let src = parse_file(&text, Some(&path), &[]);
        assert!(src.notes.is_empty(), "{file}: {:?}", src.notes);
        assert!(
            src.includes.iter().any(|(n, _)| n == "common.cuh"),
            "{file} includes common.cuh"
        );
        for k in &src.kernels {
            total += 1;
            // Templates get arguments: every type parameter `f32`, values their default
            // or 256.
            let decl = match &k.template {
                None => format!("kernel {};", k.name),
                Some(tps) => {
                    let args: Vec<String> = tps
                        .iter()
                        .map(|p| match &p.value {
                            None => "f32".to_owned(),
                            Some(_) => "256".to_owned(),
                        })
                        .collect();
                    format!("kernel {}<{}>;", k.name, args.join(", "))
                }
            };
            let errs = errors(file, &decl, "");
            if errs.is_empty() {
                accepted += 1;
            } else {
                refused.push((k.name.clone(), errs));
            }
        }
    }
    // Refused: the anonymous namespace's kernel (cannot be named), and the kernels taking a
    // struct (a Rust type must be named for it: `kernel k(p: MyParams)`).
    let names: Vec<&str> = refused.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["rmsnorm", "axpby", "scale_by_params", "hidden"],
        "{refused:#?}"
    );
    assert!(
        refused[3].1[0].contains("anonymous namespace"),
        "{refused:#?}"
    );
    assert!(refused[0].1[0].contains("p: NormParams"), "{refused:#?}");
    assert!(
        refused[2].1[0].contains("params: &[ScaleParams]"),
        "{refused:#?}"
    );
    assert_eq!((accepted, total), (6, 10));
}

#[test]
fn linkage_namespaces_templates_and_macro_kernels_are_read() {
    let path = corpus().join("norms.cu");
    let text = std::fs::read_to_string(&path).expect("corpus file");
    let src = parse_file(&text, Some(&path), &[]);
    let k = |n: &str| src.kernels.iter().find(|k| k.name == n).expect(n);
    let rms = k("rmsnorm");
    assert_eq!(rms.linkage, Linkage::Template);
    assert_eq!(rms.qualified(), "cg_real::rmsnorm");
    assert_eq!(
        rms.template_header().as_deref(),
        Some("template <typename T, int BLOCK>")
    );
    let inst = rms
        .instantiate(&["__half".into(), "128".into()])
        .expect("instance");
    assert_eq!(inst[0].text, "__half* __restrict__ out");
    assert_eq!(k("axpby").linkage, Linkage::Cpp);
    assert_eq!(k("relu_kernel").linkage, Linkage::Cpp);
    assert_eq!(k("relu_kernel").params.len(), 3);
    assert_eq!(k("square_kernel").qualified(), "square_kernel");
    assert_eq!(k("copy4").linkage, Linkage::C);
    // Behind `#if defined(ENABLE_BF16) && BLOCK_SIZE >= 128`: removed unless defined.
    assert!(src
        .removed
        .iter()
        .any(|(k, why)| k.name == "bf16_to_float" && why.contains("`ENABLE_BF16` is not defined")));
    let defined = parse_file(&text, Some(&path), &[("ENABLE_BF16".into(), String::new())]);
    assert!(defined.kernels.iter().any(|k| k.name == "bf16_to_float"));
    // The structs the header defines, laid out as C does.
    let st = |n: &str| src.structs.iter().find(|s| s.name == n).expect(n).layout;
    assert_eq!(st("ScaleParams"), Some((16, 4)));
    assert_eq!(st("NormParams"), Some((8, 4)));
}

#[test]
fn template_arguments_are_checked_against_the_template() {
    let e = errors("norms.cu", "kernel rmsnorm;", "");
    assert!(
        e[0].contains("is a template") && e[0].contains("template <typename T, int BLOCK>"),
        "{e:?}"
    );
    let e = errors("norms.cu", "kernel rmsnorm<256, f32>;", "");
    assert!(e.iter().any(|m| m.contains("takes a type")), "{e:?}");
    let e = errors("norms.cu", "kernel axpby<f32>;", "");
    assert!(e[0].contains("is not a template"), "{e:?}");
    let e = errors("reduce.cu", "kernel block_sum<f32, 128, 3>;", "");
    assert!(e[0].contains("remove this one"), "{e:?}");
    // A default fills a missing argument.
    assert!(errors("reduce.cu", "kernel block_sum<f16>;", "").is_empty());
    // A kernel behind `#ifdef USE_DOT` exists once the graph defines it.
    let e = errors("reduce.cu", "kernel dot<128>;", "");
    assert!(e[0].contains("`USE_DOT` is not defined"), "{e:?}");
    assert!(errors("reduce.cu", "kernel dot<128>;", "define USE_DOT;").is_empty());
}

#[test]
fn structs_and_untyped_pointers_take_rust_types() {
    // A struct by value with a Rust type named for it: accepted (its size is checked where
    // the expansion compiles).
    let ok = "kernel axpby(x: &[f32], y: &mut [f32], p: Scale);";
    assert!(errors("norms.cu", ok, "").is_empty());
    // `const void*`/`void*`: a buffer of any element type, with the access C declares.
    assert!(errors(
        "norms.cu",
        "kernel memcopy_bytes(src: &[u32], dst: &mut [u32], bytes: usize);",
        ""
    )
    .is_empty());
    let e = errors(
        "norms.cu",
        "kernel memcopy_bytes(src: &mut [u32], dst: &mut [u32], bytes: usize);",
        "",
    );
    assert!(e[0].contains("read-only"), "{e:?}");
    // Vector and half types by their crate names.
    assert!(errors(
        "norms.cu",
        "kernel copy4(src: &[Float4], dst: &mut [Float4], n4: i32);",
        ""
    )
    .is_empty());
    let e = errors(
        "norms.cu",
        "kernel copy4(src: &[Float2], dst: &mut [Float4], n4: i32);",
        "",
    );
    assert!(
        e[0].contains("`Float2`") && e[0].contains("`Float4`"),
        "{e:?}"
    );
    assert!(errors("norms.cu", "kernel scale_half;", "").is_empty());
}
