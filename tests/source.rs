//! Graphs whose kernels are checked against their CUDA source at compile time
//! (`source "tests/kernels/kernels.cu";`): built from that source with NVRTC
//! (`build_from_source`), they compute bit-identical results to the same graph built from a
//! module compiled by hand.

mod common;

use cuda_graph::cuda_graph;

cuda_graph! {
    /// Three steps on one buffer; `affine_at` takes its parameters from the source, `iota_at`
    /// is declared here and checked against it.
    graph FromSource {
        source "tests/kernels/kernels.cu";
        kernel affine_at;
        kernel iota_at(y: &mut [u32], offset: u32, count: u32, base: u32);
        buffer mut y: u32;
        param mul: u32;
        fill  = iota_at<<<4, 256>>>(y, 0, 1024, 7);
        scale = affine_at<<<4, 256>>>(y, 0, 1024, mul, 3);
        again = affine_at<<<4, 256>>>(y, 0, 1024, 5, mul);
        fill -> scale -> again;
    }
}

fn expected(mul: u32) -> Vec<u32> {
    (0..1024u32)
        .map(|i| {
            ((7 + i).wrapping_mul(mul).wrapping_add(3))
                .wrapping_mul(5)
                .wrapping_add(mul)
        })
        .collect()
}

#[test]
fn a_graph_built_from_its_source_matches_one_built_from_a_module() {
    let gpu = gpu_or_skip!();
    let (mut a, mut b) = (gpu.poisoned(1024), gpu.poisoned(1024));
    let from_source =
        FromSource::build_from_source(&gpu.ctx, FromSourceInputs { y: &mut a, mul: 11 }).unwrap();
    let by_hand = FromSource::build(&gpu.module, FromSourceInputs { y: &mut b, mul: 11 }).unwrap();
    let (mut ea, mut eb) = (
        from_source.instantiate().unwrap(),
        by_hand.instantiate().unwrap(),
    );
    ea.launch(&gpu.stream).unwrap();
    eb.launch(&gpu.stream).unwrap();
    let (ra, rb) = (gpu.read(ea.y().unwrap()), gpu.read(eb.y().unwrap()));
    assert_eq!(ra, rb);
    assert_eq!(ra, expected(11));
    // The parameters taken from the source give the node views their setters' names.
    ea.scale().unwrap().set_add(4).unwrap();
    ea.set_mul(2).unwrap();
    ea.launch(&gpu.stream).unwrap();
    let got = gpu.read(ea.y().unwrap());
    let want: Vec<u32> = (0..1024u32).map(|i| ((7 + i) * 2 + 4) * 5 + 2).collect();
    assert_eq!(got, want);
}

#[test]
fn the_source_is_compiled_once_per_context() {
    let gpu = gpu_or_skip!();
    let m1 = cuda_graph::compile_cached(&gpu.ctx, FromSource::SOURCE).unwrap();
    let m2 = cuda_graph::compile_cached(&gpu.ctx, FromSource::SOURCE).unwrap();
    assert!(std::sync::Arc::ptr_eq(&m1, &m2));
    assert!(m1.function("affine_at").is_ok());
}

#[test]
fn prototypes_are_written_from_the_declarations() {
    assert_eq!(
        FromSource::PROTOTYPES,
        "extern \"C\" __global__ void affine_at(unsigned int* y, unsigned int offset, unsigned int count, unsigned int mul, unsigned int add);\n\
         extern \"C\" __global__ void iota_at(unsigned int* y, unsigned int offset, unsigned int count, unsigned int base);\n"
    );
}

/// The graphs' sources compiled as `build_from_source` will, to machine code for sm_90 and
/// sm_80, with no GPU.
#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(&[("FromSource", FromSource::check_source)], &common::ARCHS);
}
