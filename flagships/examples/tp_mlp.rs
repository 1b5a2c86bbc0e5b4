//! A Megatron-style tensor-parallel MLP block (hidden 4096, inner 16384) over every GPU of this
//! machine, one rank a GPU driven by this process: each rank's graph is the same `cuda_graph!`
//! program (`cuda_graph_flagships::tp_mlp::TpMlp`) built on its device, with the shard sizes
//! from the world size; the partial outputs meet in an NCCL all-reduce captured in the graph.
//! Checked against a float64 CPU forward pass of the whole block at batches 1, 8, 32 and 128;
//! prints the median step (new input written, every rank run, all waited for).
//!
//! Run: `cargo run --release -p cuda-graph-flagships --example tp_mlp [-- --gpus N]` (exits 2
//! with a message when there is no GPU or no NCCL).
#![deny(warnings)]

use std::process::ExitCode;
use std::time::Duration;

use cuda_graph::comm::Communicator;
use cuda_graph_flagships::tp_mlp::{self, RankSetup, TpMlp};

fn main() -> ExitCode {
    // NVLink multicast stays off (a machine with several GPUs).
    for (k, v) in [("NCCL_NVLS_ENABLE", "0"), ("NVSHMEM_DISABLE_NVLS", "1")] {
        if std::env::var_os(k).is_none() {
            std::env::set_var(k, v);
        }
    }
    println!("{}", TpMlp::DOT);
    if let Err(e) = cuda_graph::gpu_available() {
        eprintln!("tp_mlp needs a CUDA GPU: {e}");
        return ExitCode::from(2);
    }
    // The driver is there (checked above), so counting the devices cannot fail to load it.
    let found = cuda_graph::cudarc::driver::CudaContext::device_count()
        .unwrap_or(1)
        .max(1) as usize;
    let args: Vec<String> = std::env::args().collect();
    let gpus = args
        .iter()
        .position(|a| a == "--gpus")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(found)
        .min(found);
    match run(gpus) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            if matches!(
                e,
                cuda_graph::Error::Comm(cuda_graph::error::CommError::NcclNotFound)
            ) {
                return ExitCode::from(2);
            }
            ExitCode::FAILURE
        }
    }
}

fn run(gpus: usize) -> Result<bool, cuda_graph::Error> {
    let ctxs = (0..gpus)
        .map(cuda_graph::context)
        .collect::<Result<Vec<_>, _>>()?;
    let comms = Communicator::local(&ctxs, Duration::from_secs(60))?;
    let ranks = comms
        .iter()
        .map(RankSetup::new)
        .collect::<Result<Vec<_>, _>>()?;
    println!(
        "{gpus} rank(s) on {}: hidden {}, inner {} ({} a rank), f32",
        ctxs[0].name().unwrap_or_default(),
        tp_mlp::HIDDEN,
        tp_mlp::INTER,
        tp_mlp::INTER / gpus as u32
    );
    println!("| batch | step (median) | max error / max value | ranks agree |");
    println!("|---|---|---|---|");
    let mut ok = true;
    for batch in [1u32, 8, 32, 128] {
        let out = tp_mlp::run(&ranks, &comms, batch, 60, 10, Duration::from_secs(60))?;
        let x = tp_mlp::inputs_of(1, batch);
        let err = tp_mlp::max_rel_error(&x, &out.outputs[0], batch);
        let agree = out.outputs.iter().all(|o| o == &out.outputs[0]);
        println!(
            "| {batch} | {:.1} µs | {err:.2e} | {agree} |",
            out.median_us
        );
        ok &= err < 1e-4 && agree;
    }
    if !ok {
        eprintln!("the block does not match the float64 reference (or the ranks disagree)");
    }
    Ok(ok)
}
