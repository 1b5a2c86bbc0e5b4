//! Kernels the source check reads beyond one declaration per name, built and run: two
//! overloads of `ops::fill` chosen by the graphs' parameter lists and found in the module by
//! their name expressions (`static_cast<void (*)(float*, float, int)>(&ops::fill)`), and a
//! kernel declared alike in both branches of `#if __CUDA_ARCH__ >= 800`, built for the device
//! and, with `define __CUDA_ARCH__ = 800;`, for sm_80 whatever the device (it reports the
//! architecture it was compiled for). Outputs are poisoned first.

mod common;

use cuda_graph::cuda_graph;

const N: usize = 1000;

cuda_graph! {
    /// Both overloads, one node each.
    graph Overloads {
        source "tests/kernels/targets.cu";
        kernel fill_f = ops::fill(y: &mut [f32], v: f32, n: i32);
        kernel fill_i = ops::fill(y: &mut [i32], v: i32, n: i32);
        buffer mut yf: f32;
        buffer mut yi: i32;
        param vf: f32;
        param vi: i32;
        a = fill_f<<<4, 256>>>(yf, vf, 1000);
        b = fill_i<<<4, 256>>>(yi, vi, 1000);
    }

    /// The kernel of either branch, built for the device.
    graph ArchHere {
        source "tests/kernels/targets.cu";
        kernel arch_tag;
        buffer mut out: i32;
        tag = arch_tag<<<1, 32>>>(out);
    }

    /// The same, built for sm_80.
    graph Arch80 {
        source "tests/kernels/targets.cu";
        define __CUDA_ARCH__ = 800;
        kernel arch_tag;
        buffer mut out: i32;
        tag = arch_tag<<<1, 32>>>(out);
    }
}

#[test]
fn overloads_are_built_and_each_node_runs_its_own() {
    let gpu = gpu_or_skip!();
    let mut yf = gpu.upload(&vec![f32::from_bits(0x7fc0_dead); N]);
    let mut yi = gpu.upload(&vec![i32::MIN; N]);
    let g = Overloads::build_from_source(
        &gpu.ctx,
        OverloadsInputs {
            yf: &mut yf,
            yi: &mut yi,
            vf: 0.5,
            vi: 7,
        },
    )
    .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let f = gpu.read(exec.yf().unwrap());
    let i = gpu.read(exec.yi().unwrap());
    for k in 0..N {
        assert_eq!(f[k], 0.5 + k as f32, "yf[{k}]");
        assert_eq!(i[k], 14 + k as i32, "yi[{k}]");
    }
    let opts = Overloads::compile_options();
    let want = cuda_graph::kernel::Compile::new()
        .file_name(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/kernels/targets.cu"
        ))
        .name_expression("static_cast<void (*)(float*, float, int)>(&ops::fill)")
        .name_expression("static_cast<void (*)(int*, int, int)>(&ops::fill)");
    assert_eq!(opts, want);
}

#[test]
fn a_kernel_under_an_architecture_branch_builds_for_the_device_or_the_one_given() {
    let gpu = gpu_or_skip!();
    let (major, minor) = gpu.ctx.compute_capability().unwrap();
    let here = 100 * major + 10 * minor;
    let sign = |a: i32| if a >= 800 { a } else { -a };
    let mut out = gpu.upload(&[i32::MIN]);
    let g = ArchHere::build_from_source(&gpu.ctx, ArchHereInputs { out: &mut out }).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.out().unwrap())[0], sign(here));
    assert_eq!(
        Arch80::compile_options(),
        cuda_graph::kernel::Compile::new()
            .file_name(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/kernels/targets.cu"
            ))
            .arch(800)
    );
    if here < 800 {
        println!("the device is older than sm_80: the sm_80 build is not loaded here");
        return;
    }
    let mut out = gpu.upload(&[i32::MIN]);
    let g = Arch80::build_from_source(&gpu.ctx, Arch80Inputs { out: &mut out }).unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.out().unwrap())[0], 800);
}

/// The graphs' sources compiled as `build_from_source` will, to machine code for sm_90 and
/// sm_80, with no GPU.
#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(
        &[
            ("Overloads", Overloads::check_source),
            ("ArchHere", ArchHere::check_source),
            ("Arch80", Arch80::check_source),
        ],
        &common::ARCHS,
    );
}
