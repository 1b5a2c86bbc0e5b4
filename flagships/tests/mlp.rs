//! The MLP flagship (`src/mlp.rs`) on a GPU: `MlpVec` for small batches; cuBLASLt products
//! with fused bias and ReLU captured as nodes, a new input per step from pinned memory, hidden activations in
//! temporaries; agrees with a CPU forward pass and with the same work as stream launches; a
//! captured node re-captures in place; a product refuses short operands. Also
//! `Graph::add_gemm` (cuBLAS, runtime API) and the errors of captured nodes.

use cuda_graph_flagships::harness::Gpu;
use cuda_graph_flagships::mlp;

use cuda_graph::cudarc::cublas::CudaBlas;
use cuda_graph::cudarc::driver::CudaSlice;
use cuda_graph::matmul::MatmulError;
use cuda_graph::prelude::*;
use cuda_graph::{
    error::{BuildError, CaptureError},
    Graph,
};
use mlp::{DeviceWeights, Mlp, Weights, IN, OUT};

fn max_rel(got: &[f32], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-6);
    got.iter()
        .zip(want)
        .map(|(&g, w)| (g as f64 - w).abs() / scale)
        .fold(0.0, f64::max)
}

/// `MlpVec` (one weight-streaming kernel a layer, the input read from pinned host memory,
/// programmatic edges) agrees with the CPU at every batch it takes, step after step, every
/// output written (poisoned with NaN first).
#[test]
fn mlp_vec_matches_the_cpu() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let module = mlp::compile(&gpu.ctx).unwrap();
    let wt = Weights::new();
    let dw = DeviceWeights::upload(&gpu.stream, &wt);
    for batch in [1u32, 3, mlp::VEC_BATCH] {
        let n_in = (batch * IN) as usize;
        // SAFETY: f32 is valid for any bits; the slice is written before it is read.
        let mut pinned = unsafe { gpu.ctx.alloc_pinned::<f32>(n_in) }.unwrap();
        let from = pinned.as_ptr().unwrap() as u64;
        let mut x = gpu.stream.alloc_zeros::<f32>(n_in).unwrap();
        let mut y = gpu
            .stream
            .clone_htod(&vec![f32::NAN; (batch * OUT) as usize])
            .unwrap();
        let mut exec =
            mlp::MlpVec::build(&module, mlp::vec_inputs(from, &mut x, &dw, &mut y, batch))
                .unwrap()
                .instantiate()
                .unwrap();
        for step in 0..3u32 {
            let xs: Vec<f32> = (0..n_in).map(|i| mlp::input(step + batch, i)).collect();
            pinned.as_mut_slice().unwrap().copy_from_slice(&xs);
            exec.launch(&gpu.stream).unwrap();
            exec.synchronize().unwrap();
            let got = gpu.read(exec.y().unwrap());
            assert!(
                got.iter().all(|v| v.is_finite()),
                "batch {batch}: unwritten"
            );
            let err = max_rel(&got, &mlp::reference(&wt, &xs, batch as usize));
            assert!(err < 1e-4, "batch {batch}, step {step}: {err}");
        }
    }
}

/// `MlpSplit` (TF32 products of split operands, split kernels between them) is as accurate
/// as `f32` arithmetic: within 1e-4 of the float64 forward pass, every output written.
#[test]
fn mlp_split_matches_the_cpu() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let capture = gpu.ctx.new_stream().unwrap();
    let module = mlp::compile(&gpu.ctx).unwrap();
    let wt = Weights::new();
    let sw = mlp::DeviceWeights::upload_split(&gpu.stream, &wt);
    for batch in [32u32, 256] {
        let plans = mlp::split_plans(&capture, batch).unwrap();
        let layers = [0, 1, 2].map(|l| mlp::layer(&plans[l]));
        let n_in = (batch * IN) as usize;
        // SAFETY: f32 is valid for any bits; the slice is written before it is read.
        let mut pinned = unsafe { gpu.ctx.alloc_pinned::<f32>(n_in) }.unwrap();
        let from = pinned.as_ptr().unwrap() as u64;
        let mut ws = gpu.stream.alloc_zeros::<u8>(mlp::LT_WORKSPACE).unwrap();
        let mut y = gpu
            .stream
            .clone_htod(&vec![f32::NAN; (batch * OUT) as usize])
            .unwrap();
        let mut exec = mlp::MlpSplit::build(
            &module,
            mlp::split_inputs(from, &sw, &mut y, &mut ws, batch, &capture, &layers),
        )
        .unwrap()
        .instantiate()
        .unwrap();
        for step in 0..2u32 {
            let xs: Vec<f32> = (0..n_in).map(|i| mlp::input(step + 5, i)).collect();
            pinned.as_mut_slice().unwrap().copy_from_slice(&xs);
            exec.launch(&gpu.stream).unwrap();
            exec.synchronize().unwrap();
            let got = gpu.read(exec.y().unwrap());
            assert!(
                got.iter().all(|v| v.is_finite()),
                "batch {batch}: unwritten"
            );
            let err = max_rel(&got, &mlp::reference(&wt, &xs, batch as usize));
            assert!(err < 1e-4, "batch {batch}, step {step}: {err}");
        }
    }
}

cuda_graph! {
    /// `MlpSplit`'s two split kernels alone: the input read from pinned host memory at `from`,
    /// and the same input from device memory.
    graph Splits {
        source "kernels/mlp.cu";
        kernel take_split3(from: u64, x3: &mut [f32], k: u32, n: u32);
        kernel split3(x: &[f32], x3: &mut [f32], k: u32, n: u32);
        buffer x: f32;
        buffer mut from_host: f32;
        buffer mut from_device: f32;
        param from: u64;
        param k: u32;
        param n: u32;

        host = take_split3<<<2, 256>>>(from, from_host, k, n);
        device = split3<<<2, 256>>>(x, from_device, k, n);
    }
}

/// Both split kernels write every column of `k` values as `[big; small; big]`, bit for bit
/// what the host's `tf32` gives (`small = v - big`; halfway cases to even), over more values
/// than their grid covers in one pass; the input read from pinned host memory gives the same bits as from the device.
#[test]
fn split_kernels_match_the_host_split() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let (k, n) = (IN as usize, 5usize);
    let mut x: Vec<f32> = (0..k * n)
        .map(|i| mlp::input(3, i) * (1.0 + i as f32 * 1e-3) + 1e-7 * i as f32)
        .collect();
    // Halfway cases: to even, down (1.0 + 2^-11) and up, of both signs.
    for (i, bits) in [0x3f80_1000u32, 0x3f80_3000, 0xbf80_1000, 0xbf80_3000]
        .into_iter()
        .enumerate()
    {
        x[7 * i + 1] = f32::from_bits(bits);
    }
    let mut want = Vec::with_capacity(3 * k * n);
    for col in x.chunks(k) {
        let big: Vec<f32> = col.iter().map(|&v| mlp::tf32(v)).collect();
        want.extend_from_slice(&big);
        want.extend(col.iter().zip(&big).map(|(v, b)| v - b));
        want.extend_from_slice(&big);
    }
    // SAFETY: f32 is valid for any bits; the slice is written before the launch reads it.
    let mut pinned = unsafe { gpu.ctx.alloc_pinned::<f32>(k * n) }.unwrap();
    pinned.as_mut_slice().unwrap().copy_from_slice(&x);
    let xd = gpu.stream.clone_htod(&x).unwrap();
    let poison = vec![f32::NAN; 3 * k * n];
    let mut a = gpu.stream.clone_htod(&poison).unwrap();
    let mut b = gpu.stream.clone_htod(&poison).unwrap();
    let mut exec = Splits::build_from_source(
        &gpu.ctx,
        SplitsInputs {
            x: &xd,
            from_host: &mut a,
            from_device: &mut b,
            from: pinned.as_ptr().unwrap() as u64,
            k: k as u32,
            n: n as u32,
        },
    )
    .unwrap()
    .instantiate()
    .unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();
    for (which, got) in [
        ("from host memory", gpu.read(exec.from_host().unwrap())),
        ("from device memory", gpu.read(exec.from_device().unwrap())),
    ] {
        let bad = got
            .iter()
            .zip(&want)
            .position(|(g, w)| g.to_bits() != w.to_bits());
        assert_eq!(bad, None, "{which}: first differing value");
    }
    // The split is exact: big + small gives the input back.
    assert!(want
        .chunks(3 * k)
        .zip(x.chunks(k))
        .all(|(w, c)| (0..k).all(|i| w[i] + w[k + i] == c[i])));
}

/// The host's rounding to TF32 keeps 10 bits of mantissa, to nearest even, and leaves an
/// exact remainder.
#[test]
fn tf32_rounding_leaves_an_exact_remainder() {
    for v in [
        1.0f32,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        -0.3,
        123.456,
        1e-20,
    ] {
        let big = mlp::tf32(v);
        assert_eq!(big.to_bits() & 0x1fff, 0, "{v}");
        assert!((v - big).abs() <= v.abs() / 2048.0, "{v}");
        assert_eq!((big as f64) + ((v - big) as f64), v as f64, "{v}");
    }
    // Ties go to even: 1 + 1/2048 is halfway between 1 and 1 + 1/1024.
    assert_eq!(mlp::tf32(1.0 + 1.0 / 2048.0), 1.0);
    assert_eq!(mlp::tf32(1.0 + 3.0 / 2048.0), 1.0 + 2.0 / 1024.0);
}

#[test]
fn mlp_graph_matches_the_cpu_and_stream_launches() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let capture = gpu.ctx.new_stream().unwrap();
    let module = mlp::compile(&gpu.ctx).unwrap();
    let wt = Weights::new();
    let dw = DeviceWeights::upload(&gpu.stream, &wt);
    for batch in [1u32, 32, 256] {
        let plans = mlp::plans(&capture, batch).unwrap();
        let mut ws = gpu.stream.alloc_zeros::<u8>(mlp::LT_WORKSPACE).unwrap();
        let n_in = (batch * IN) as usize;
        // SAFETY: f32 is valid for any bits; the slice is written before it is read.
        let mut pinned = unsafe { gpu.ctx.alloc_pinned::<f32>(n_in) }.unwrap();
        let mut x = gpu.stream.alloc_zeros::<f32>(n_in).unwrap();
        let mut y = gpu
            .stream
            .clone_htod(&vec![f32::NAN; (batch * OUT) as usize])
            .unwrap();
        let layers = [0, 1, 2].map(|l| mlp::layer(&plans[l]));
        let graph = Mlp::build(
            &module,
            mlp::inputs(
                pinned.as_mut_slice().unwrap(),
                &mut x,
                &dw,
                &mut y,
                &mut ws,
                batch,
                &capture,
                &layers,
            ),
        )
        .unwrap();
        let mut exec = graph.instantiate().unwrap();
        assert_eq!(
            exec.temporary_bytes(),
            (batch * (mlp::H1 + mlp::H2)) as usize * 4
        );
        for step in 0..3u32 {
            let xs: Vec<f32> = (0..n_in).map(|i| mlp::input(step, i)).collect();
            exec.x_host_mut().unwrap().copy_from_slice(&xs);
            exec.launch(&gpu.stream).unwrap();
            exec.synchronize().unwrap();
            let got = gpu.read(exec.y().unwrap());
            let want = mlp::reference(&wt, &xs, batch as usize);
            let err = max_rel(&got, &want);
            assert!(err < 1e-4, "batch {batch}, step {step}: {err}");
        }
        // Re-captured in place (same shape): the same result.
        exec.g2().unwrap().recapture().unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
        let xs: Vec<f32> = (0..n_in).map(|i| mlp::input(2, i)).collect();
        assert!(
            max_rel(
                &gpu.read(exec.y().unwrap()),
                &mlp::reference(&wt, &xs, batch as usize)
            ) < 1e-4
        );

        // The same step as stream launches.
        let mut xs_dev = gpu.stream.alloc_zeros::<f32>(n_in).unwrap();
        let mut h = [
            gpu.stream
                .alloc_zeros::<f32>((batch * mlp::H1) as usize)
                .unwrap(),
            gpu.stream
                .alloc_zeros::<f32>((batch * mlp::H2) as usize)
                .unwrap(),
        ];
        let mut ys = gpu
            .stream
            .alloc_zeros::<f32>((batch * OUT) as usize)
            .unwrap();
        let mut ws2 = gpu.stream.alloc_zeros::<u8>(mlp::LT_WORKSPACE).unwrap();
        mlp::stream_step(
            &gpu.stream,
            &plans,
            &dw,
            &xs,
            &mut xs_dev,
            &mut h,
            &mut ys,
            &mut ws2,
        )
        .unwrap();
        let got = gpu.read(&ys);
        assert!(max_rel(&got, &mlp::reference(&wt, &xs, batch as usize)) < 1e-4);
        // A product refuses operands shorter than its shape, issuing nothing.
        let short = gpu.stream.alloc_zeros::<f32>(3).unwrap();
        let e = plans[0]
            .issue(
                &gpu.stream,
                &dw.w[0],
                &short,
                Some(&dw.b[0]),
                &mut h[0],
                &mut ws2,
            )
            .unwrap_err();
        assert!(
            matches!(e, MatmulError::TooShort { operand: "B", .. }),
            "{e}"
        );
        let e = plans[2]
            .issue(
                &gpu.stream,
                &dw.w[2],
                &h[1],
                None::<&CudaSlice<f32>>,
                &mut ys,
                &mut ws2,
            )
            .unwrap_err();
        assert!(matches!(e, MatmulError::Bias { .. }), "{e}");
        assert_eq!(gpu.read(&ys), got, "a refused product wrote nothing");
    }
}

#[test]
fn add_gemm_and_captured_node_errors() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let capture = gpu.ctx.new_stream().unwrap();
    let blas = CudaBlas::new(capture.clone()).unwrap();
    let wt = Weights::new();
    let dw = DeviceWeights::upload(&gpu.stream, &wt);
    let _workspace = mlp::warm_up(&capture, &blas, &dw);
    let xs: Vec<f32> = (0..IN as usize).map(|i| mlp::input(0, i)).collect();
    let x = gpu.upload(&xs);
    let mut h = gpu.upload(&vec![f32::NAN; mlp::H1 as usize]);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (xb, wb, hb) = (
        g.bind(&x).unwrap(),
        g.bind(&dw.w[0]).unwrap(),
        g.bind_mut(&mut h).unwrap(),
    );
    // Too short a buffer for the GEMM's sizes: refused before capture.
    let e = g
        .add_gemm(
            "short",
            &[],
            &blas,
            &capture,
            mlp::gemm_cfg(0, 2),
            wb,
            xb,
            hb,
        )
        .unwrap_err();
    assert!(matches!(e, BuildError::BufferTooShort { .. }), "{e}");
    // The legacy default stream cannot be captured.
    let e = g
        .add_captured("default", &[], &gpu.stream, &[], &[], |_| Ok(()))
        .unwrap_err();
    assert!(matches!(e, BuildError::CaptureStream { .. }), "{e}");
    // Work that reaches a buffer it did not declare.
    let e = g
        .add_captured("sneaky", &[], &capture, &[xb.into()], &[], move |cx| {
            cx.write(hb)?;
            Ok(())
        })
        .unwrap_err();
    assert!(
        matches!(e, BuildError::Capture(CaptureError::Undeclared { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("add it to the node's writes"), "{e}");
    assert_eq!(g.len(), 0);

    let gemm = g
        .add_gemm(
            "gemm",
            &[],
            &blas,
            &capture,
            mlp::gemm_cfg(0, 1),
            wb,
            xb,
            hb,
        )
        .unwrap();
    let mut exec = g.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(hb).unwrap());
    for (c, &v) in got.iter().enumerate() {
        let want: f64 = (0..IN as usize)
            .map(|k| wt.w[0][c * IN as usize + k] as f64 * xs[k] as f64)
            .sum();
        assert!((v as f64 - want).abs() < 1e-4, "row {c}: {v} vs {want}");
    }
    exec.node(gemm).unwrap().recapture().unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(gpu.read(exec.buffer(hb).unwrap()), got);
}

/// The graphs' source compiled as `build_from_source` will, to machine code, with no GPU
/// (sm_90: the kernels run `griddepcontrol` themselves).
#[test]
fn sources_compile_to_machine_code() {
    let graphs: &[cuda_graph::check::GraphCheck] = &[("Splits", Splits::check_source)];
    if let Err(e) = cuda_graph::check::graphs(graphs, &[cuda_graph::check::Arch::SM_90]) {
        panic!("{e}");
    }
}
