//! A 3-layer MLP inference step (`cuda_graph_flagships::mlp`): the `cuda_graph!` graph (cuBLASLt
//! products with fused bias and ReLU captured as nodes, each with the fastest algorithm timed
//! for its batch; a new input from pinned memory each step) against the same work as stream
//! launches without a graph, interleaved step by step. PyTorch's
//! `torch.cuda.graph` of the same shapes and weights is `benches/pytorch_mlp.py`. A step is:
//! write the new input into pinned memory, run, wait.
//!
//! Results go to `$OUT/mlp.json` on the device machine, else `docs/bench/raw/mlp.json`.

use cuda_graph_flagships::harness::{self, median, Gpu};
use cuda_graph_flagships::mlp;

use std::time::Instant;

use mlp::{DeviceWeights, Mlp, Weights, IN, OUT};

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
    let module = cuda_graph::compile(&ctx, mlp::SOURCE).unwrap();
    let wt = Weights::new();
    let dw = DeviceWeights::upload(&stream, &wt);
    let mut rows = Vec::new();
    println!("| batch | cuda-graph step | stream launches | stream / cuda-graph |");
    println!("|---|---|---|---|");
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
        for step in 0..300usize {
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
            if step >= 20 {
                tg.push(g);
                ts.push(s);
            }
        }
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
        let (g, s) = (median(tg), median(ts));
        println!("| {batch} | {g:.1} µs | {s:.1} µs | {:.2}x |", s / g);
        for (imp, us) in [("cuda_graph", g), ("cudarc_stream", s)] {
            rows.push(format!(
                "  {{\"case\": \"mlp_step\", \"shape\": \"batch{batch}\", \"nodes\": {batch}, \"impl\": \"{imp}\", \"via\": \"write pinned input + run + wait, 280 steps\", \"median_us\": {us:.3}, \"gpu\": \"{gpu_name}\"}}"
            ));
        }
    }
    let json = format!("[\n{}\n]\n", rows.join(",\n"));
    harness::write_json("mlp.json", &json);
}
