//! Kernels as people write them (`tests/kernels/real/`): C++ linkage in a namespace, templates
//! instantiated from the graph (`kernel rms = rmsnorm<f32, 128>(...)`), kernels declared
//! through function-like macros, an included header, `__half`/`__nv_bfloat16`, `float4`,
//! `void*`, structs by value and by pointer, kernels behind `#ifdef` enabled by the graph's
//! `define`. Built from source through NVRTC (`build_from_source`: name expressions, the
//! header passed in memory, the defines), run, and checked against float64 CPU references;
//! outputs are poisoned first.

mod common;

use cuda_graph::cudarc::driver::DeviceRepr;
use cuda_graph::half::{bf16, f16};
use cuda_graph::vector::Float4;
use cuda_graph::{cuda_graph, Module};

/// C `NormParams` (`tests/kernels/real/common.cuh`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct NormP {
    eps: f32,
    cols: i32,
}
// SAFETY: `#[repr(C)]` plain data, the C struct's layout (its size is checked by the macro).
unsafe impl DeviceRepr for NormP {}

/// C `ScaleParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ScaleP {
    alpha: f32,
    beta: f32,
    n: i32,
    stride: i32,
}
// SAFETY: as above.
unsafe impl DeviceRepr for ScaleP {}

const ROWS: usize = 4;
const COLS: usize = 200;
const N: usize = 1000;

cuda_graph! {
    /// Every kind of kernel of `norms.cu`, one node each, none ordered (no two touch the same
    /// buffer).
    graph RealNorms {
        source "tests/kernels/real/norms.cu";
        define ENABLE_BF16;
        kernel rms = rmsnorm<f32, 128>(out: &mut [f32], input: &[f32], weight: &[f32], p: NormP);
        kernel rms_h = rmsnorm<f16, 128>(out: &mut [f16], input: &[f16], weight: &[f32], p: NormP);
        kernel axpby(x: &[f32], y: &mut [f32], p: ScaleP);
        kernel scale_half;
        kernel relu_kernel;
        kernel copy4;
        kernel memcopy_bytes;
        kernel bf16_to_float;
        buffer x: f32;
        buffer w: f32;
        buffer mut rms_out: f32;
        buffer xh: f16;
        buffer mut rms_h_out: f16;
        buffer mut y: f32;
        buffer mut h: f16;
        buffer mut relu_out: f32;
        buffer v4: Float4;
        buffer mut v4_out: Float4;
        buffer raw: u32;
        buffer mut raw_out: u32;
        buffer bf: bf16;
        buffer mut bf_out: f32;
        param norm: NormP;
        param scale: ScaleP;
        param s: f32;
        n1 = rms<<<4, 128>>>(rms_out, x, w, norm);
        n2 = rms_h<<<4, 128>>>(rms_h_out, xh, w, norm);
        n3 = axpby<<<4, 256>>>(x, y, scale);
        n4 = scale_half<<<4, 256>>>(h, s, 1000);
        n5 = relu_kernel<<<4, 256>>>(x, relu_out, 800);
        n6 = copy4<<<1, 256>>>(v4, v4_out, 250);
        n7 = memcopy_bytes<<<4, 256>>>(raw, raw_out, 4000);
        n8 = bf16_to_float<<<4, 256>>>(bf, bf_out, 1000);
    }
}

cuda_graph! {
    /// `reduce.cu`: a template with a default block size, one behind `#ifdef USE_DOT`, a
    /// struct read through a pointer.
    graph RealReduce {
        source "tests/kernels/real/reduce.cu";
        define USE_DOT;
        kernel block_sum<f32>;
        kernel dot<128>;
        kernel scale_by_params(params: &[ScaleP], y: &mut [f32]);
        buffer a: f32;
        buffer b: f32;
        buffer mut sum: f32;
        buffer mut prod: f32;
        buffer params: ScaleP;
        buffer mut z: f32;
        clear_sum = memset(sum, 0.0f32);
        clear_prod = memset(prod, 0.0f32);
        total = block_sum<<<2, 256>>>(a, sum, 1000);
        inner = dot<<<2, 128>>>(a, b, prod, 1000);
        scaled = scale_by_params<<<4, 256>>>(params, z);
        clear_sum -> total;
        clear_prod -> inner;
    }
}

fn input(i: usize) -> f32 {
    ((i * 37 % 101) as f32 - 50.0) / 16.0
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs().max(1.0)
}

#[test]
fn real_world_kernels_build_from_source_and_compute_the_reference() {
    let gpu = gpu_or_skip!();
    let x: Vec<f32> = (0..ROWS * COLS).map(input).collect();
    let w: Vec<f32> = (0..COLS).map(|c| 0.5 + c as f32 / 100.0).collect();
    let xh: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
    let y0: Vec<f32> = (0..N).map(|i| input(i + 3)).collect();
    let h0: Vec<f16> = (0..N).map(|i| f16::from_f32(input(i + 5))).collect();
    let v4: Vec<Float4> = (0..250)
        .map(|i| Float4::new(i as f32, -(i as f32), 0.5, 2.0 * i as f32))
        .collect();
    let raw: Vec<u32> = (0..1000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let bf: Vec<bf16> = (0..N).map(|i| bf16::from_f32(input(i + 7))).collect();
    let norm = NormP {
        eps: 1e-5,
        cols: COLS as i32,
    };
    let scale = ScaleP {
        alpha: 1.5,
        beta: -0.25,
        n: 800,
        stride: 1,
    };
    let nan = f32::from_bits(0x7fc0_dead);
    let (dx, dw, dxh) = (gpu.upload(&x), gpu.upload(&w), gpu.upload(&xh));
    let mut rms_out = gpu.upload(&vec![nan; ROWS * COLS]);
    let mut rms_h_out = gpu.upload(&vec![f16::NAN; ROWS * COLS]);
    let mut dy = gpu.upload(&y0);
    let mut dh = gpu.upload(&h0);
    let mut relu_out = gpu.upload(&vec![nan; 800]);
    let dv4 = gpu.upload(&v4);
    let mut v4_out = gpu.upload(&vec![Float4::new(nan, nan, nan, nan); 250]);
    let draw = gpu.upload(&raw);
    let mut raw_out = gpu.poisoned(1000);
    let dbf = gpu.upload(&bf);
    let mut bf_out = gpu.upload(&vec![nan; N]);
    let g = RealNorms::build_from_source(
        &gpu.ctx,
        RealNormsInputs {
            x: &dx,
            w: &dw,
            rms_out: &mut rms_out,
            xh: &dxh,
            rms_h_out: &mut rms_h_out,
            y: &mut dy,
            h: &mut dh,
            relu_out: &mut relu_out,
            v4: &dv4,
            v4_out: &mut v4_out,
            raw: &draw,
            raw_out: &mut raw_out,
            bf: &dbf,
            bf_out: &mut bf_out,
            norm,
            scale,
            s: 0.75,
        },
    )
    .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();

    // RMSNorm, f32 and f16, against float64.
    let rows = |src: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; ROWS * COLS];
        for r in 0..ROWS {
            let row = &src[r * COLS..(r + 1) * COLS];
            let ms = row.iter().map(|v| v * v).sum::<f64>() / COLS as f64;
            let inv = 1.0 / (ms + 1e-5).sqrt();
            for c in 0..COLS {
                out[r * COLS + c] = row[c] * inv * w[c] as f64;
            }
        }
        out
    };
    let want = rows(&x.iter().map(|&v| v as f64).collect::<Vec<_>>());
    let got = gpu.read(exec.rms_out().unwrap());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(close(*g as f64, *w, 1e-5), "rmsnorm f32 [{k}]: {g} vs {w}");
    }
    let want_h = rows(&xh.iter().map(|v| v.to_f64()).collect::<Vec<_>>());
    let got_h = gpu.read(exec.rms_h_out().unwrap());
    for (k, (g, w)) in got_h.iter().zip(&want_h).enumerate() {
        assert!(close(g.to_f64(), *w, 2e-3), "rmsnorm f16 [{k}]: {g} vs {w}");
    }
    // axpby over the first 800 elements; the rest untouched.
    let got = gpu.read(exec.y().unwrap());
    for i in 0..N {
        let want = if i < 800 {
            1.5 * x[i] as f64 - 0.25 * y0[i] as f64
        } else {
            y0[i] as f64
        };
        assert!(
            close(got[i] as f64, want, 1e-6),
            "axpby [{i}]: {} vs {want}",
            got[i]
        );
    }
    // Half scale: the same rounding as the host's.
    let got = gpu.read(exec.h().unwrap());
    let want: Vec<f16> = h0
        .iter()
        .map(|v| f16::from_f32(v.to_f32() * 0.75))
        .collect();
    assert_eq!(got, want);
    let got = gpu.read(exec.relu_out().unwrap());
    let want: Vec<f32> = x[..800].iter().map(|&v| v.max(0.0)).collect();
    assert_eq!(got, want);
    assert_eq!(gpu.read(exec.v4_out().unwrap()), v4);
    assert_eq!(gpu.read(exec.raw_out().unwrap()), raw);
    let want: Vec<f32> = bf.iter().map(|v| v.to_f32()).collect();
    assert_eq!(gpu.read(exec.bf_out().unwrap()), want);

    // A typed edit of a struct param reaches the C++ kernel.
    exec.set_scale(ScaleP {
        alpha: 2.0,
        beta: 0.0,
        n: 10,
        stride: 1,
    })
    .unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.y().unwrap());
    assert_eq!(
        &got[..10],
        &x[..10].iter().map(|v| 2.0 * v).collect::<Vec<_>>()[..]
    );
}

#[test]
fn templates_with_defaults_and_defines_from_the_graph() {
    let gpu = gpu_or_skip!();
    let a: Vec<f32> = (0..N).map(input).collect();
    let b: Vec<f32> = (0..N).map(|i| input(i + 11)).collect();
    let p = ScaleP {
        alpha: 3.0,
        beta: 1.0,
        n: 600,
        stride: 1,
    };
    let (da, db, dp) = (gpu.upload(&a), gpu.upload(&b), gpu.upload(&[p]));
    let nan = f32::from_bits(0x7fc0_dead);
    let (mut sum, mut prod) = (gpu.upload(&[nan]), gpu.upload(&[nan]));
    let z0: Vec<f32> = (0..N).map(|i| input(i + 2)).collect();
    let mut z = gpu.upload(&z0);
    let g = RealReduce::build_from_source(
        &gpu.ctx,
        RealReduceInputs {
            a: &da,
            b: &db,
            sum: &mut sum,
            prod: &mut prod,
            params: &dp,
            z: &mut z,
        },
    )
    .unwrap();
    let mut exec = g.instantiate().unwrap();
    for _ in 0..2 {
        exec.launch(&gpu.stream).unwrap();
    }
    let want_sum: f64 = a.iter().map(|&v| v as f64).sum();
    let want_dot: f64 = a.iter().zip(&b).map(|(&x, &y)| x as f64 * y as f64).sum();
    let got_sum = gpu.read(exec.sum().unwrap())[0] as f64;
    let got_dot = gpu.read(exec.prod().unwrap())[0] as f64;
    assert!(close(got_sum, want_sum, 1e-5), "{got_sum} vs {want_sum}");
    assert!(close(got_dot, want_dot, 1e-5), "{got_dot} vs {want_dot}");
    // Applied twice (two launches).
    let got = gpu.read(exec.z().unwrap());
    for i in 0..N {
        let want = if i < 600 {
            3.0 * (3.0 * z0[i] as f64 + 1.0) + 1.0
        } else {
            z0[i] as f64
        };
        assert!(
            close(got[i] as f64, want, 1e-6),
            "z[{i}]: {} vs {want}",
            got[i]
        );
    }
}

/// A module built without name expressions finds a C++ kernel by its qualified name (the one
/// entry of that name); the template instance by the expression it was compiled with.
#[test]
fn cpp_kernels_are_found_by_qualified_name_and_name_expression() {
    let gpu = gpu_or_skip!();
    let opts = RealNorms::compile_options();
    let m: Module = cuda_graph::compile_with(&gpu.ctx, RealNorms::SOURCE, &opts).unwrap();
    assert!(m.function("cg_real::rmsnorm<__half, 128>").is_ok());
    assert!(m.function("cg_real::axpby").is_ok());
    assert!(m.function("relu_kernel").is_ok());
    // Without name expressions: the qualified name of a non-template kernel still finds it.
    let plain = cuda_graph::kernel::Compile::new()
        .header("common.cuh", include_str!("kernels/real/common.cuh"));
    let m = cuda_graph::compile_with(&gpu.ctx, RealNorms::SOURCE, &plain).unwrap();
    let k = m.function("cg_real::axpby").unwrap();
    assert_eq!(k.param_sizes(), Some(&[8, 8, 16][..]));
    assert!(m.function("cg_real::scale_half").is_ok());
    match m.function("cg_real::nothing") {
        Err(cuda_graph::error::ModuleError::NoKernel { .. }) => {}
        other => panic!("{:?}", other.map(|k| k.name().to_owned())),
    }
}

#[test]
fn compile_options_carry_headers_defines_and_name_expressions() {
    let opts = RealNorms::compile_options();
    let want = cuda_graph::kernel::Compile::new()
        .file_name(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/kernels/real/norms.cu"
        ))
        .header("common.cuh", include_str!("kernels/real/common.cuh"))
        .define("ENABLE_BF16", "")
        .name_expression("cg_real::rmsnorm<float, 128>")
        .name_expression("cg_real::rmsnorm<__half, 128>")
        .name_expression("cg_real::axpby")
        .name_expression("cg_real::scale_half")
        .name_expression("relu_kernel")
        .name_expression("bf16_to_float");
    assert_eq!(opts, want);
    assert!(RealNorms::PROTOTYPES.contains("// cg_real::rmsnorm<float, 128>: a template instance"));
}

/// The graphs' sources compiled as `build_from_source` will, to machine code for sm_90 and
/// sm_80, with no GPU.
#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(
        &[
            ("RealNorms", RealNorms::check_source),
            ("RealReduce", RealReduce::check_source),
        ],
        &common::ARCHS,
    );
}
