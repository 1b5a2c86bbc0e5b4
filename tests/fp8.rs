//! fp8 buffers and by-value arguments (`cuda_graph::fp8`): a kernel that takes
//! `const __nv_fp8_e4m3*`, `__nv_fp8_e5m2*` and a by-value `__nv_fp8_e4m3`, checked against its
//! source by the macro, built from it with NVRTC (`<cuda_fp8.h>` from the toolkit), run once;
//! its float products must be the host's exactly and its e5m2 conversions
//! `F8E5M2::from_f32`'s bit for bit. Outputs are poisoned first.

mod common;

use cuda_graph::cuda_graph;
use cuda_graph::fp8::{F8E4M3, F8E5M2};

const N: usize = 1024;

cuda_graph! {
    /// The same kernel on the same input with two scales: a small one (products in e5m2's
    /// subnormals) and a large one (products beyond e5m2's largest finite value: saturated).
    graph Fp8Scale {
        source "tests/kernels/fp8.cu";
        kernel fp8_scale(x: &[F8E4M3], y: &mut [F8E5M2], f: &mut [f32], s: F8E4M3, n: i32);
        buffer x: F8E4M3;
        buffer mut y_lo: F8E5M2;
        buffer mut f_lo: f32;
        buffer mut y_hi: F8E5M2;
        buffer mut f_hi: f32;
        param s_lo: F8E4M3;
        param s_hi: F8E4M3;
        lo = fp8_scale<<<4, 256>>>(x, y_lo, f_lo, s_lo, 1024);
        hi = fp8_scale<<<4, 256>>>(x, y_hi, f_hi, s_hi, 1024);
    }
}

/// Every e4m3 code but the two NaNs, positive and negative, in a scrambled order.
fn inputs() -> Vec<F8E4M3> {
    (0..N)
        .map(|i| {
            let b = ((i * 37 + 11) % 256) as u8;
            F8E4M3::from_bits(if b & 0x7F == 0x7F { 0x3A } else { b })
        })
        .collect()
}

/// Checks one scale's outputs against the host: the product exactly (bits), its e5m2
/// conversion bit for bit.
fn check(x: &[F8E4M3], s: F8E4M3, f: &[f32], y: &[F8E5M2], what: &str) {
    let mut saturated = 0;
    for (i, ((&xi, &fi), &yi)) in x.iter().zip(f).zip(y).enumerate() {
        let want = xi.to_f32() * s.to_f32();
        assert_eq!(
            fi.to_bits(),
            want.to_bits(),
            "{what}: f[{i}] = {fi} for {xi:?} * {s:?}, want {want}"
        );
        let want_y = F8E5M2::from_f32(want);
        assert_eq!(
            yi.to_bits(),
            want_y.to_bits(),
            "{what}: y[{i}] = {yi:?} for {want}, want {want_y:?}"
        );
        saturated += usize::from(want.abs() > 57344.0);
    }
    println!("{what}: {} elements match, {saturated} saturated", x.len());
}

#[test]
fn fp8_buffers_and_arguments_match_the_host_conversions() {
    let gpu = gpu_or_skip!();
    let host = inputs();
    let x = gpu.upload(&host);
    let poison_f = f32::from_bits(common::POISON);
    // 0x7F is a NaN, which no output here is (no input is a NaN).
    let poison_y = F8E5M2::from_bits(0x7F);
    let (mut y_lo, mut y_hi) = (
        gpu.upload(&vec![poison_y; N]),
        gpu.upload(&vec![poison_y; N]),
    );
    let (mut f_lo, mut f_hi) = (
        gpu.upload(&vec![poison_f; N]),
        gpu.upload(&vec![poison_f; N]),
    );
    // 2^-6 takes the smallest products to 2^-15, among e5m2's subnormals; 160 takes the
    // largest to 71680, beyond its 57344.
    let (s_lo, s_hi) = (F8E4M3::from_f32(2f32.powi(-6)), F8E4M3::from_f32(160.0));
    assert_eq!((s_lo.to_f32(), s_hi.to_f32()), (2f32.powi(-6), 160.0));
    let g = Fp8Scale::build_from_source(
        &gpu.ctx,
        Fp8ScaleInputs {
            x: &x,
            y_lo: &mut y_lo,
            f_lo: &mut f_lo,
            y_hi: &mut y_hi,
            f_hi: &mut f_hi,
            s_lo,
            s_hi,
        },
    )
    .unwrap();
    let mut e = g.instantiate().unwrap();
    e.launch(&gpu.stream).unwrap();
    check(
        &host,
        s_lo,
        &gpu.read(e.f_lo().unwrap()),
        &gpu.read(e.y_lo().unwrap()),
        "small scale",
    );
    check(
        &host,
        s_hi,
        &gpu.read(e.f_hi().unwrap()),
        &gpu.read(e.y_hi().unwrap()),
        "large scale",
    );
    let f_hi: Vec<f32> = gpu.read(e.f_hi().unwrap());
    assert!(f_hi.iter().any(|v| v.abs() > 57344.0), "nothing saturated");
    let f_lo: Vec<f32> = gpu.read(e.f_lo().unwrap());
    assert!(
        f_lo.iter().any(|v| *v != 0.0 && v.abs() < 2f32.powi(-14)),
        "no e5m2 subnormal"
    );
}

/// The prototype written from the declaration spells the fp8 types as `cuda_fp8.h` does.
#[test]
fn fp8_prototypes_name_the_c_types() {
    assert_eq!(
        Fp8Scale::PROTOTYPES,
        "extern \"C\" __global__ void fp8_scale(const __nv_fp8_e4m3* x, __nv_fp8_e5m2* y, float* f, __nv_fp8_e4m3 s, int n);\n"
    );
}

/// The graphs' sources compiled as `build_from_source` will, to machine code for sm_90 and
/// sm_80, with no GPU.
#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(&[("Fp8Scale", Fp8Scale::check_source)], &common::ARCHS);
}
