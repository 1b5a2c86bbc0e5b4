//! A 3-layer MLP inference step (`cuda_graph_flagships::mlp`): the `cuda_graph!` graph (cuBLASLt
//! products with fused bias and ReLU captured as nodes, each with the fastest algorithm timed
//! for its batch; a new input from pinned memory each step; `MlpVec`, weight-streaming kernels
//! with programmatic edges, up to its largest batch) against the same work as stream
//! launches without a graph, interleaved step by step. PyTorch's
//! `torch.cuda.graph` of the same shapes and weights is `benches/pytorch_mlp.py`. A step is:
//! write the new input into pinned memory, run, wait.
//!
//! Results go to `$OUT/mlp.json` on the device machine, else `docs/bench/raw/mlp.json`.

use cuda_graph_flagships::harness::{self, median, Gpu};
use cuda_graph_flagships::mlp;

use std::time::{Duration, Instant};

use mlp::{DeviceWeights, Mlp, Weights, IN, OUT};

/// How long each batch's implementations run before any step is kept, and the steps kept.
const WARM_UP: Duration = Duration::from_millis(200);
const STEPS: usize = 280;

fn main() {
    if !harness::bench_requested() {
        return;
    }
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let ctx = gpu.ctx.clone();
    let gpu_name = gpu.name.clone();
    let stream = ctx.new_stream().unwrap();
    let capture = ctx.new_stream().unwrap();
    let module = mlp::compile(&ctx).unwrap();
    let wt = Weights::new();
    let dw = DeviceWeights::upload(&stream, &wt);
    let sw = mlp::DeviceWeights::upload_split(&stream, &wt);
    let mut rows = Vec::new();
    println!(
        "| batch | cuda-graph step | stream launches | stream / cuda-graph | Mlp (f32 products) |"
    );
    println!("|---|---|---|---|---|");
    for batch in [1u32, 32, 256] {
        let n_in = (batch * IN) as usize;
        let inputs: Vec<Vec<f32>> = (0..2)
            .map(|s| (0..n_in).map(|i| mlp::input(s, i)).collect())
            .collect();
        // SAFETY: f32 is valid for any bits; written before read.
        let mut pinned = unsafe { ctx.alloc_pinned::<f32>(n_in) }.unwrap();
        let mut pinned2 = unsafe { ctx.alloc_pinned::<f32>(n_in) }.unwrap();
        let mut x = stream.alloc_zeros::<f32>(n_in).unwrap();
        let mut y = stream.alloc_zeros::<f32>((batch * OUT) as usize).unwrap();
        let plans = mlp::plans(&capture, batch).unwrap();
        let mut ws = stream.alloc_zeros::<u8>(mlp::LT_WORKSPACE).unwrap();
        let mut ws_stream = stream.alloc_zeros::<u8>(mlp::LT_WORKSPACE).unwrap();
        let layers = [0, 1, 2].map(|l| mlp::layer(&plans[l]));
        let mut exec = Mlp::build(
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
        .unwrap()
        .instantiate()
        .unwrap();
        for (l, p) in plans.iter().enumerate() {
            let c = p.config();
            println!(
                "batch {batch}, layer {}: cuBLASLt algorithm {} tile {} stages {} split {}: {:.1} µs a product",
                l + 1,
                c.id,
                c.tile,
                c.stages,
                c.split,
                p.tuned_us().unwrap_or(f32::NAN)
            );
        }
        // Up to `VEC_BATCH` rows, `MlpVec` too (its input read from `pinned3`).
        // SAFETY: f32 is valid for any bits; written before read.
        let mut pinned3 = unsafe { ctx.alloc_pinned::<f32>(n_in) }.unwrap();
        let from = pinned3.as_ptr().unwrap() as u64;
        let mut xv = stream.alloc_zeros::<f32>(n_in).unwrap();
        let mut yv = stream.alloc_zeros::<f32>((batch * OUT) as usize).unwrap();
        let mut vec_exec = (batch <= mlp::VEC_BATCH).then(|| {
            mlp::MlpVec::build(&module, mlp::vec_inputs(from, &mut xv, &dw, &mut yv, batch))
                .unwrap()
                .instantiate()
                .unwrap()
        });
        let mut tv = Vec::new();
        // Above `VEC_BATCH` rows, `MlpSplit` too (TF32 products on split operands).
        let splits = (batch > mlp::VEC_BATCH).then(|| mlp::split_plans(&capture, batch).unwrap());
        if let Some(p) = &splits {
            for (l, p) in p.iter().enumerate() {
                let c = p.config();
                println!(
                    "batch {batch}, split layer {}: cuBLASLt algorithm {} tile {} stages {} split {}: {:.1} µs a product",
                    l + 1, c.id, c.tile, c.stages, c.split, p.tuned_us().unwrap_or(f32::NAN)
                );
            }
        }
        // SAFETY: f32 is valid for any bits; written before read.
        let mut pinned4 = unsafe { ctx.alloc_pinned::<f32>(n_in) }.unwrap();
        let from4 = pinned4.as_ptr().unwrap() as u64;
        let mut y4 = stream.alloc_zeros::<f32>((batch * OUT) as usize).unwrap();
        let mut ws4 = stream.alloc_zeros::<u8>(mlp::LT_WORKSPACE).unwrap();
        let split_layers = splits
            .as_ref()
            .map(|p| [0, 1, 2].map(|l| mlp::layer(&p[l])));
        let mut split_exec = split_layers.as_ref().map(|layers| {
            mlp::MlpSplit::build(
                &module,
                mlp::split_inputs(from4, &sw, &mut y4, &mut ws4, batch, &capture, layers),
            )
            .unwrap()
            .instantiate()
            .unwrap()
        });
        let mut tsp = Vec::new();
        let mut xs = stream.alloc_zeros::<f32>(n_in).unwrap();
        let mut h = [
            stream
                .alloc_zeros::<f32>((batch * mlp::H1) as usize)
                .unwrap(),
            stream
                .alloc_zeros::<f32>((batch * mlp::H2) as usize)
                .unwrap(),
        ];
        let mut ys = stream.alloc_zeros::<f32>((batch * OUT) as usize).unwrap();
        let (mut tg, mut ts) = (Vec::new(), Vec::new());
        // Steps for WARM_UP (and at least 20) before any is kept, so that the GPU's clocks have
        // left the idle state whatever ran before; then STEPS are kept. The last step takes
        // the second input, which the checks below compare against.
        let warm = Instant::now();
        let (mut step, mut kept) = (0usize, 0usize);
        while kept < STEPS || step % 2 == 1 {
            let keep = step >= 20 && warm.elapsed() >= WARM_UP && kept < STEPS;
            let input = &inputs[step % 2];
            let t = Instant::now();
            exec.x_host_mut().unwrap().copy_from_slice(input);
            exec.launch(&stream).unwrap();
            exec.synchronize().unwrap();
            let g = t.elapsed().as_secs_f64() * 1e6;
            let t = Instant::now();
            let host = pinned2.as_mut_slice().unwrap();
            host.copy_from_slice(input);
            mlp::stream_step(
                &stream,
                &plans,
                &dw,
                host,
                &mut xs,
                &mut h,
                &mut ys,
                &mut ws_stream,
            )
            .unwrap();
            stream.synchronize().unwrap();
            let s = t.elapsed().as_secs_f64() * 1e6;
            if let Some(v) = split_exec.as_mut() {
                let t = Instant::now();
                pinned4.as_mut_slice().unwrap().copy_from_slice(input);
                v.launch(&stream).unwrap();
                v.synchronize().unwrap();
                if keep {
                    tsp.push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
            if let Some(v) = vec_exec.as_mut() {
                let t = Instant::now();
                pinned3.as_mut_slice().unwrap().copy_from_slice(input);
                v.launch(&stream).unwrap();
                v.synchronize().unwrap();
                if keep {
                    tv.push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
            if keep {
                tg.push(g);
                ts.push(s);
                kept += 1;
            }
            step += 1;
        }
        // Where a step goes: the host's write alone, the graph alone (launch and wait), and the
        // device time of each part (events around the copy and each product, stream order).
        let (mut tw, mut tl) = (Vec::new(), Vec::new());
        let mut parts: [Vec<f64>; 4] = Default::default();
        let ev = Some(cuda_graph::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        for step in 0..200usize {
            let input = &inputs[step % 2];
            let t = Instant::now();
            exec.x_host_mut().unwrap().copy_from_slice(input);
            tw.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            exec.launch(&stream).unwrap();
            exec.synchronize().unwrap();
            tl.push(t.elapsed().as_secs_f64() * 1e6);
            let host = pinned2.as_slice().unwrap();
            let e0 = stream.record_event(ev).unwrap();
            stream.memcpy_htod(host, &mut xs).unwrap();
            let e1 = stream.record_event(ev).unwrap();
            let [h1, h2] = &mut h;
            plans[0]
                .issue(&stream, &dw.w[0], &xs, Some(&dw.b[0]), h1, &mut ws_stream)
                .unwrap();
            let e2 = stream.record_event(ev).unwrap();
            plans[1]
                .issue(&stream, &dw.w[1], &*h1, Some(&dw.b[1]), h2, &mut ws_stream)
                .unwrap();
            let e3 = stream.record_event(ev).unwrap();
            plans[2]
                .issue(
                    &stream,
                    &dw.w[2],
                    &*h2,
                    Some(&dw.b[2]),
                    &mut ys,
                    &mut ws_stream,
                )
                .unwrap();
            let e4 = stream.record_event(ev).unwrap();
            e4.synchronize().unwrap();
            for (p, (a, b)) in
                parts
                    .iter_mut()
                    .zip([(&e0, &e1), (&e1, &e2), (&e2, &e3), (&e3, &e4)])
            {
                p.push(a.elapsed_ms(b).unwrap() as f64 * 1e3);
            }
        }
        // Device time of each graph's launch (events around it on the stream).
        let (mut dg, mut dv) = (Vec::new(), Vec::new());
        let mut dsp = Vec::new();
        for _ in 0..100 {
            if let Some(v) = split_exec.as_mut() {
                let e0 = stream.record_event(ev).unwrap();
                v.launch(&stream).unwrap();
                let e1 = stream.record_event(ev).unwrap();
                e1.synchronize().unwrap();
                dsp.push(e0.elapsed_ms(&e1).unwrap() as f64 * 1e3);
            }
            let e0 = stream.record_event(ev).unwrap();
            exec.launch(&stream).unwrap();
            let e1 = stream.record_event(ev).unwrap();
            e1.synchronize().unwrap();
            dg.push(e0.elapsed_ms(&e1).unwrap() as f64 * 1e3);
            if let Some(v) = vec_exec.as_mut() {
                let e0 = stream.record_event(ev).unwrap();
                v.launch(&stream).unwrap();
                let e1 = stream.record_event(ev).unwrap();
                e1.synchronize().unwrap();
                dv.push(e0.elapsed_ms(&e1).unwrap() as f64 * 1e3);
            }
        }
        exec.synchronize().unwrap();
        if let Some(v) = vec_exec.as_mut() {
            v.synchronize().unwrap();
            println!(
                "batch {batch}: device time of a launch: Mlp {:.1} µs, MlpVec {:.1} µs",
                median(dg),
                median(dv)
            );
        } else {
            println!(
                "batch {batch}: device time of a launch: Mlp {:.1} µs",
                median(dg)
            );
        }
        if !dsp.is_empty() {
            println!(
                "batch {batch}: device time of a launch: MlpSplit {:.1} µs",
                median(dsp)
            );
        }
        let [pc, p1, p2, p3] = parts.map(median);
        println!(
            "batch {batch}: host write {:.1} µs, graph launch+wait {:.1} µs; device: copy {pc:.1}, layer 1 {p1:.1}, layer 2 {p2:.1}, layer 3 {p3:.1} µs",
            median(tw),
            median(tl)
        );
        // Both compute the last input's output.
        let (a, b) = (
            stream.clone_dtoh(exec.y().unwrap()).unwrap(),
            stream.clone_dtoh(&ys).unwrap(),
        );
        let diff = a
            .iter()
            .zip(&b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0f32, f32::max);
        assert!(
            diff < 1e-4,
            "batch {batch}: graph and stream differ by {diff}"
        );
        // And both agree with the float64 forward pass.
        let want = mlp::reference(&wt, &inputs[1], batch as usize);
        let scale = want.iter().fold(1e-6f64, |m, v| m.max(v.abs()));
        let off = |got: &[f32]| {
            got.iter()
                .zip(&want)
                .map(|(&g, w)| (g as f64 - w).abs() / scale)
                .fold(0.0, f64::max)
        };
        let err = off(&a);
        assert!(
            err < 1e-4,
            "batch {batch}: {err} from the float64 forward pass"
        );
        // The graph for the batch (`MlpVec` or `MlpSplit`) agrees with the float64 pass too.
        let best = vec_exec
            .as_ref()
            .map(|v| v.y().unwrap())
            .or(split_exec.as_ref().map(|v| v.y().unwrap()));
        if let Some(y) = best {
            let err = off(&stream.clone_dtoh(y).unwrap());
            assert!(
                err < 1e-4,
                "batch {batch}: {err} from the float64 forward pass"
            );
        }
        // The graph for the batch (`MlpVec` or `MlpSplit`), and `Mlp` (f32 arithmetic) beside it.
        let (f32s, s) = (median(tg), median(ts));
        let g = match (tv.is_empty(), tsp.is_empty()) {
            (false, _) => median(tv),
            (true, false) => median(tsp),
            (true, true) => f32s,
        };
        println!(
            "| {batch} | {g:.1} µs | {s:.1} µs | {:.2}x | {f32s:.1} µs |",
            s / g
        );
        let imps = [
            ("cuda_graph", g),
            ("cudarc_stream", s),
            ("cuda_graph_f32", f32s),
        ];
        for (imp, us) in imps {
            rows.push(format!(
                "  {{\"case\": \"mlp_step\", \"shape\": \"batch{batch}\", \"nodes\": {batch}, \"impl\": \"{imp}\", \"via\": \"write pinned input + run + wait, 280 steps after 200 ms of warm-up\", \"median_us\": {us:.3}, \"gpu\": \"{gpu_name}\"}}"
            ));
        }
    }
    let json = format!("[\n{}\n]\n", rows.join(",\n"));
    harness::write_json("mlp.json", &json);
}
