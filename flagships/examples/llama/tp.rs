//! `--mode tp` and `--mode tp-loop`: the model split over the GPUs of this machine.

use std::time::Duration;

use cuda_graph::comm::Communicator;
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph_flagships::harness::median;
use cuda_graph_flagships::llama::checkpoint::Checkpoint;
use cuda_graph_flagships::llama::decoder::{Shape, Steps};
use cuda_graph_flagships::llama::tp::{Rank, TpDecoder};
use cuda_graph_flagships::llama::tp_loop::{TpGenElement, TpGenerator};
use cuda_graph_flagships::llama::Prefill;

use crate::{show, watched, write_f32, Args, Res};

/// `--mode tp` or `tp-loop`: the step graph (one launch a token) or the generation graph (one
/// launch a generation) split over `--gpus` GPUs (all by default), one rank a GPU, driven by
/// this process.
pub fn run<T: TpGenElement>(ckpt: &Checkpoint, args: &Args) -> Res<()> {
    // NVLink multicast stays off (a machine with several GPUs).
    for (k, v) in [("NCCL_NVLS_ENABLE", "0"), ("NVSHMEM_DISABLE_NVLS", "1")] {
        if std::env::var_os(k).is_none() {
            std::env::set_var(k, v);
        }
    }
    let cfg = &ckpt.config;
    let found = CudaContext::device_count()?.max(1) as usize;
    let n = args.gpus.unwrap_or(found);
    if n == 0 || n > found {
        return Err(format!("--gpus {n}: this machine has {found} GPU(s)").into());
    }
    let ctxs = (0..n)
        .map(cuda_graph::context)
        .collect::<Result<Vec<_>, _>>()?;
    for ctx in &ctxs {
        // Every rank's buffers are used on its one stream (the communicator's stream only
        // captures): cudarc's events between streams, recorded and waited on around every
        // launch for every buffer, would only add driver calls to each step.
        // SAFETY: no buffer of these contexts is used on two streams.
        unsafe { ctx.disable_event_tracking() };
    }
    let shape = Shape::new(cfg, args.max_ctx)?;
    let mut ranks = Communicator::local(&ctxs, Duration::from_secs(120))?
        .into_iter()
        .map(|c| Rank::<T>::new(c, cfg, ckpt, &shape))
        .collect::<Result<Vec<_>, _>>()?;
    let mut json = serde_json::json!({
        "gpu": ctxs[0].name().unwrap_or_default(),
        "gpus": n,
        "model": { "layers": cfg.num_hidden_layers, "hidden": cfg.hidden_size, "vocab": cfg.vocab_size, "dtype": format!("{}", T::DTYPE) },
        "bytes_per_token": cfg.bytes_per_token(T::DTYPE),
        "prompt_ids": args.prompt,
    });
    if !args.step {
        run_loop(&shape, &mut ranks, ckpt, args, &mut json)?;
        if let Some(path) = &args.json {
            std::fs::write(path, serde_json::to_string_pretty(&json)?)?;
        }
        return Ok(());
    }
    let mut dec = TpDecoder::new(&shape, &mut ranks)?;
    if let (Some(teacher), Some(path)) = (&args.teacher, &args.logits) {
        let logits = dec.teacher_forced(teacher)?;
        write_f32(path, &logits)?;
        return Ok(());
    }
    if args.bench > 0 {
        dec.timed(&args.prompt, args.max_new)?;
        let mut rates = Vec::new();
        let mut ids = Vec::new();
        for _ in 0..args.bench {
            let (got, t) = dec.timed(&args.prompt, args.max_new)?;
            rates.push(t.tokens_per_s);
            ids = got;
        }
        let best = rates.iter().cloned().fold(0.0, f64::max);
        if !args.quiet {
            println!(
                "tp ({n} GPU(s)): {best:.1} tokens/s (best of {})",
                args.bench
            );
        }
        json["tokens_per_s_tp"] = best.into();
        json["tokens_per_s_median_tp"] = median(rates).into();
        json["ids_tp"] = ids.into();
    } else {
        let eos = cfg.eos_token_ids.clone();
        let t0 = std::time::Instant::now();
        let out = dec.generate(&args.prompt, args.max_new, |t| {
            show(args, t);
            args.ignore_eos || !eos.contains(&t)
        })?;
        let secs = t0.elapsed().as_secs_f64();
        let rate = out.len() as f64 / secs;
        if !args.quiet {
            println!(
                "\n{} tokens on {n} GPU(s) in {secs:.3} s: {rate:.1} tokens/s (with the prompt and a wait per token)",
                out.len()
            );
        }
        json["ids"] = out.into();
        json["tokens_per_s"] = rate.into();
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&json)?)?;
    }
    Ok(())
}

/// `--mode tp-loop`: one launch of every rank's generation graph a generation; the teacher-
/// forced logits (one generation of one token after each prefix), the last step's logits,
/// or `--bench` timings (`tokens_per_s_tp_loop`, `ttft_ms_tp_loop`, `inter_token_us_tp_loop`).
fn run_loop<T: TpGenElement>(
    shape: &Shape,
    ranks: &mut [Rank<T>],
    ckpt: &Checkpoint,
    args: &Args,
    json: &mut serde_json::Value,
) -> Res<()> {
    let world = ranks.len();
    let local = shape.shard(world)?;
    let longest = args.teacher.as_ref().map_or(args.prompt.len(), |t| t.len());
    let mut prefills = ranks
        .iter()
        .map(|r| Prefill::<T>::new(&r.stream, &local, longest))
        .collect::<Result<Vec<_>, _>>()?;
    let ends = ckpt.config.eos_token_ids.clone();
    let mut gen = TpGenerator::new(shape, ranks, &mut prefills, &ends)?;
    gen.stop_at_end_ids(!args.ignore_eos);
    if let (Some(teacher), Some(path)) = (&args.teacher, &args.logits) {
        let logits = gen.teacher_forced(teacher)?;
        write_f32(path, &logits)?;
        return Ok(());
    }
    if args.bench > 0 {
        gen.timed(&args.prompt, args.max_new)?;
        let (mut rates, mut ttft, mut itl, mut ids) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..args.bench {
            let (got, t) = gen.timed(&args.prompt, args.max_new)?;
            rates.push(t.tokens_per_s);
            ttft.push(t.ttft_ms);
            itl.push(t.inter_token_us);
            ids = got;
        }
        let best = rates.iter().cloned().fold(0.0, f64::max);
        if !args.quiet {
            println!(
                "tp-loop ({world} GPU(s)): {best:.1} tokens/s (best of {})",
                args.bench
            );
        }
        json["tokens_per_s_tp_loop"] = best.into();
        json["tokens_per_s_median_tp_loop"] = median(rates).into();
        json["ttft_ms_tp_loop"] = median(ttft).into();
        json["inter_token_us_tp_loop"] = median(itl).into();
        json["ids_tp_loop"] = ids.into();
        return Ok(());
    }
    let (out, ttft, itl) = watched(args, |on| {
        Ok(gen.generate(&args.prompt, args.max_new, on)?)
    })?;
    if !args.quiet {
        println!(
            "\n{} tokens in one launch on {world} GPU(s): first after {ttft:.2} ms, then one every {itl:.1} us",
            out.len()
        );
    }
    if let Some(path) = &args.last_logits {
        write_f32(path, &gen.logits()?)?;
    }
    json["ids"] = out.into();
    json["ttft_ms"] = ttft.into();
    json["inter_token_us"] = itl.into();
    Ok(())
}
