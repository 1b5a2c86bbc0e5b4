//! The tensor-parallel MLP block (`cuda_graph_flagships::tp_mlp`): one step on every rank, at
//! world size 1 and, when more GPUs are present, at the largest world size that divides the
//! inner width, one process driving every GPU. PyTorch's `torch.distributed` peer is
//! `benches/pytorch_tp_mlp.py`. A step: write the new input into pinned memory on every rank,
//! run every rank, wait for all (`tp_mlp::run`: `TpMlpVec` up to a batch of 8, `TpMlp` above).
//!
//! Results go to `$OUT/tp_mlp.json` on the device machine, else `docs/bench/raw/tp_mlp.json`.

use std::time::Duration;

use cuda_graph::comm::Communicator;
use cuda_graph_flagships::harness::{self, Gpu};
use cuda_graph_flagships::tp_mlp::{self, RankSetup};

fn main() {
    if !harness::bench_requested() {
        return;
    }
    let Some(gpu) = Gpu::find() else {
        return;
    };
    for (k, v) in [("NCCL_NVLS_ENABLE", "0"), ("NVSHMEM_DISABLE_NVLS", "1")] {
        if std::env::var_os(k).is_none() {
            std::env::set_var(k, v);
        }
    }
    let found = cuda_graph::cudarc::driver::CudaContext::device_count().unwrap_or(1) as u32;
    let largest = (1..=found)
        .rev()
        .find(|&w| tp_mlp::INTER.is_multiple_of(w))
        .unwrap_or(1);
    let mut worlds = vec![1];
    if largest > 1 {
        worlds.push(largest);
    }
    let mut rows = Vec::new();
    println!(
        "| GPUs | batch | program | cuda-graph step | each rank's graph on its GPU | max error / max value |"
    );
    println!("|---|---|---|---|---|---|");
    for world in worlds {
        let ctxs: Vec<_> = (0..world as usize)
            .map(|i| cuda_graph::context(i).unwrap())
            .collect();
        for ctx in &ctxs {
            // Every rank's buffers are used on its one stream (the communicator's stream only
            // captures): cudarc's events between streams, recorded and waited on around every
            // launch for every buffer, would only add driver calls to each step.
            // SAFETY: no buffer of these contexts is used on two streams.
            unsafe { ctx.disable_event_tracking() };
        }
        let comms = Communicator::local(&ctxs, Duration::from_secs(60)).unwrap();
        let ranks: Vec<RankSetup> = comms.iter().map(|c| RankSetup::new(c).unwrap()).collect();
        for batch in [1u32, 8, 32, 128] {
            let out = tp_mlp::run(&ranks, &comms, batch, 220, 20, Duration::from_secs(60)).unwrap();
            // 220 steps: the last ran input 1.
            let err = tp_mlp::max_rel_error(&tp_mlp::inputs_of(1, batch), &out.outputs[0], batch);
            assert!(
                err < 1e-4,
                "{world} GPUs, batch {batch}: {err:e} off the float64 reference"
            );
            assert!(
                out.outputs.iter().all(|o| o == &out.outputs[0]),
                "the ranks disagree"
            );
            let device: Vec<String> = out.device_us.iter().map(|u| format!("{u:.1}")).collect();
            println!(
                "| {world} | {batch} | {} | {:.1} µs | {} µs | {err:.2e} |",
                out.program,
                out.median_us,
                device.join(" / ")
            );
            rows.push(format!(
                "  {{\"case\": \"tp_mlp_step\", \"impl\": \"cuda_graph\", \"program\": \"{}\", \"batch\": {batch}, \"gpus\": {world}, \"median_us\": {:.3}, \"device_us\": {:?}, \"max_rel_err\": {err:.3e}, \"via\": \"write pinned input + run every rank + wait all, 200 steps\", \"gpu\": \"{}\"}}",
                out.program, out.median_us, out.device_us, gpu.name
            ));
        }
    }
    harness::write_rows("tp_mlp.json", &rows);
}
