//! The device API as the docs tell a kernel to use it, with no declaration in the kernel file
//! (`tests/kernels/device_api.cu`): half, bf16 and fp8 parameters, a programmatic edge whose
//! kernels wait and trigger through the runtime's calls, and a WHILE loop a kernel ends with
//! `cudaGraphSetConditional`. Built from the source and run on the GPU, exact values read back
//! into poisoned outputs; compiled to machine code for sm_90 and sm_80 without one.

mod common;

use cuda_graph::cuda_graph;
use cuda_graph::fp8::F8E4M3;
use cuda_graph::half::{bf16, f16};

cuda_graph! {
    /// y = a + b * s + c (programmatic edge) + the loop's count; out = y / 10 as a half.
    graph DeviceApi {
        source "tests/kernels/device_api.cu";
        kernel mix;
        kernel tick;
        kernel finish;
        buffer a: f16;
        buffer b: bf16;
        buffer c: F8E4M3;
        buffer mut y: f32;
        buffer mut count: u32;
        buffer mut out: f16;
        param s: bf16;
        param n: u32;
        param limit: u32;
        cond again = 1;

        zero = memset(count, 0);
        m = mix<<<n.div_ceil(256), 256>>>(a, b, c, s, y, n);
        run = while again {
            t = tick<<<1, 1>>>(count, limit, again);
        }
        fin = finish<<<n.div_ceil(256), 256>>>(y, count, out, n);
        #[programmatic]
        m -> fin;
        zero -> run -> fin;
    }
}

const N: usize = 1000;

/// What the graph computes, on the CPU: (y, out).
fn expected(s: f32, limit: u32) -> (Vec<f32>, Vec<f16>) {
    let y: Vec<f32> = (0..N)
        .map(|i| {
            let (a, b, c) = inputs(i);
            a.to_f32() + b.to_f32() * s + c.to_f32() + limit as f32
        })
        .collect();
    let out = y.iter().map(|&v| f16::from_f32(v * 0.1)).collect();
    (y, out)
}

/// Element `i` of a, b and c: small values every type holds exactly.
fn inputs(i: usize) -> (f16, bf16, F8E4M3) {
    (
        f16::from_f32((i % 7) as f32 - 3.0),
        bf16::from_f32((i % 5) as f32 * 0.5),
        F8E4M3::from_f32((i % 3) as f32),
    )
}

#[test]
fn the_device_api_needs_no_declaration_and_runs() {
    let gpu = gpu_or_skip!();
    let (a, b, c): (Vec<_>, Vec<_>, Vec<_>) = (0..N).map(inputs).fold(
        (Vec::new(), Vec::new(), Vec::new()),
        |(mut a, mut b, mut c), (x, y, z)| {
            a.push(x);
            b.push(y);
            c.push(z);
            (a, b, c)
        },
    );
    let (da, db, dc) = (gpu.upload(&a), gpu.upload(&b), gpu.upload(&c));
    let mut y = gpu.upload(&vec![f32::from_bits(0x7fc0_dead); N]);
    let mut count = gpu.upload(&[common::POISON]);
    let mut out = gpu.upload(&vec![f16::from_bits(0x7e01); N]);
    let graph = DeviceApi::build_from_source(
        &gpu.ctx,
        DeviceApiInputs {
            a: &da,
            b: &db,
            c: &dc,
            y: &mut y,
            count: &mut count,
            out: &mut out,
            s: bf16::from_f32(2.0),
            n: N as u32,
            limit: 5,
        },
    )
    .unwrap();
    assert!(DeviceApi::DOT.contains("\"m\" -> \"fin\" [style=bold, label=\"programmatic\"];"));
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let (ey, eout) = expected(2.0, 5);
    assert_eq!(gpu.read(exec.count().unwrap()), [5]);
    assert_eq!(gpu.read(exec.y().unwrap()), ey);
    assert_eq!(gpu.read(exec.out().unwrap()), eout);

    // The loop's end and the bf16 param, changed live.
    exec.set_limit(9).unwrap();
    exec.set_s(bf16::from_f32(-1.5)).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let (ey, eout) = expected(-1.5, 9);
    assert_eq!(gpu.read(exec.count().unwrap()), [9]);
    assert_eq!(gpu.read(exec.y().unwrap()), ey);
    assert_eq!(gpu.read(exec.out().unwrap()), eout);
}

#[test]
fn the_source_compiles_to_machine_code_without_a_gpu() {
    common::check_sources(&[("DeviceApi", DeviceApi::check_source)], &common::ARCHS);
}
