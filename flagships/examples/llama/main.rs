//! Greedy decoding of a Llama checkpoint (the Hugging Face directory format: `config.json` and
//! safetensors), printing ids as the host receives them: by default the whole generation in
//! one launch of the generation graph (prefill, then a WHILE loop of decode steps; tokens read
//! from mapped host memory while it runs), or with `--mode step` one launch of the step graph
//! per token.
//!
//! ```text
//! cargo run --release -p cuda-graph-flagships --example llama -- <dir> --prompt-ids 1,2,3 --max-new 128
//! ```
//!
//! Options: `--mode loop|step|tp|tp-loop` (`tp`: the step graph split over `--gpus N` GPUs of
//! this machine, all of them by default, tensor parallel with NCCL all-reduces as nodes: one
//! launch a token on every GPU; `tp-loop`: the generation graph split the same way, one launch
//! a generation on every GPU); `--position counter|setter` (step mode: how the position
//! advances; counter by default), `--max-ctx N` (cache length, 4096 by default),
//! `--ignore-eos`, `--quiet`, `--json PATH` (the new ids and timings as JSON),
//! `--teacher-ids a,b,.. --logits PATH` (the logits of every step over the given ids, f32
//! little-endian, one row of `vocab` per id; in loop mode one generation of one token after
//! each prefix of the ids), `--last-logits PATH` (loop mode: the
//! logits of the generation's last step, one row), `--bench REPS` (times the generation REPS
//! times in each mode of `--bench-modes loop,counter,setter` and writes the results into the
//! JSON; `--disable node,..` leaves those nodes of the decode loop out of the timed loop-mode
//! generations, to see what each costs inside the graph: the tokens are then wrong). Without a
//! directory it says how to make one, then decodes a small random model it
//! writes itself, both ways, and checks it against the float64 reference.
#![deny(warnings)]

mod tp;

use std::process::ExitCode;
use std::sync::Arc;

use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::half::bf16;
use cuda_graph_flagships::harness::median;
use cuda_graph_flagships::llama::checkpoint::{Checkpoint, MemTensors};
use cuda_graph_flagships::llama::config::{DType, LlamaConfig};
use cuda_graph_flagships::llama::decoder::{
    Decoder, Element, Position, Shape, State, Steps, Weights,
};
use cuda_graph_flagships::llama::reference::Reference;
use cuda_graph_flagships::llama::{Generator, Prefill};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

#[derive(Default)]
struct Args {
    dir: Option<String>,
    prompt: Vec<u32>,
    max_new: usize,
    max_ctx: usize,
    position: Option<Position>,
    step: bool,
    tp: bool,
    gpus: Option<usize>,
    ignore_eos: bool,
    quiet: bool,
    json: Option<String>,
    teacher: Option<Vec<u32>>,
    logits: Option<String>,
    last_logits: Option<String>,
    bench: usize,
    bench_modes: Vec<String>,
    disable: Vec<String>,
}

fn ids(s: &str) -> Res<Vec<u32>> {
    Ok(s.split(',')
        .filter(|t| !t.trim().is_empty())
        .map(|t| t.trim().parse::<u32>())
        .collect::<Result<_, _>>()?)
}

fn parse() -> Res<Args> {
    let mut a = Args {
        prompt: vec![1, 2, 3, 4, 5, 6, 7, 8],
        max_new: 128,
        max_ctx: 4096,
        bench_modes: vec!["loop".into(), "counter".into(), "setter".into()],
        ..Args::default()
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--prompt-ids" => a.prompt = ids(&value("--prompt-ids")?)?,
            "--max-new" => a.max_new = value("--max-new")?.parse()?,
            "--max-ctx" => a.max_ctx = value("--max-ctx")?.parse()?,
            "--position" => {
                a.position = Some(match value("--position")?.as_str() {
                    "counter" => Position::Counter,
                    "setter" => Position::Setter,
                    other => {
                        return Err(format!("--position is counter or setter, not {other}").into())
                    }
                })
            }
            "--mode" => {
                (a.step, a.tp) = match value("--mode")?.as_str() {
                    "loop" => (false, false),
                    "step" => (true, false),
                    "tp" => (true, true),
                    "tp-loop" => (false, true),
                    other => {
                        return Err(
                            format!("--mode is loop, step, tp or tp-loop, not {other}").into()
                        )
                    }
                }
            }
            "--gpus" => a.gpus = Some(value("--gpus")?.parse()?),
            "--last-logits" => a.last_logits = Some(value("--last-logits")?),
            "--bench-modes" => {
                a.bench_modes = value("--bench-modes")?
                    .split(',')
                    .map(str::to_owned)
                    .collect();
                if let Some(m) = a
                    .bench_modes
                    .iter()
                    .find(|m| !["loop", "counter", "setter"].contains(&m.as_str()))
                {
                    return Err(
                        format!("--bench-modes takes loop, counter, setter, not {m}").into(),
                    );
                }
            }
            "--disable" => a.disable = value("--disable")?.split(',').map(str::to_owned).collect(),
            "--ignore-eos" => a.ignore_eos = true,
            "--quiet" => a.quiet = true,
            "--json" => a.json = Some(value("--json")?),
            "--teacher-ids" => a.teacher = Some(ids(&value("--teacher-ids")?)?),
            "--logits" => a.logits = Some(value("--logits")?),
            "--bench" => a.bench = value("--bench")?.parse()?,
            // `cargo bench` and the test runner pass these.
            "--bench-only" | "--nocapture" => {}
            s if s.starts_with("--") => return Err(format!("unknown option {s}").into()),
            s => a.dir = Some(s.to_owned()),
        }
    }
    if a.teacher.is_some() != a.logits.is_some() {
        return Err("--teacher-ids and --logits go together".into());
    }
    if a.last_logits.is_some() && a.step {
        return Err(
            "--last-logits is for --mode loop or tp-loop; use --teacher-ids with --logits in step mode".into(),
        );
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("llama: {e}");
            return ExitCode::from(2);
        }
    };
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("llama needs a CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match &args.dir {
        Some(dir) if args.tp => {
            Checkpoint::open(dir)
                .map_err(Into::into)
                .and_then(|ckpt| match ckpt.dtype() {
                    DType::F32 => tp::run::<f32>(&ckpt, &args),
                    DType::BF16 => tp::run::<bf16>(&ckpt, &args),
                    DType::F16 => {
                        Err("f16 checkpoints are not supported yet; convert to bf16 or f32".into())
                    }
                })
        }
        Some(dir) => {
            Checkpoint::open(dir)
                .map_err(Into::into)
                .and_then(|ckpt| match ckpt.dtype() {
                    DType::F32 => run::<f32>(&ctx, &ckpt, &args),
                    DType::BF16 => run::<bf16>(&ctx, &ckpt, &args),
                    DType::F16 => {
                        Err("f16 checkpoints are not supported yet; convert to bf16 or f32".into())
                    }
                })
        }
        None => demo(&ctx),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("llama: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run<T: Element>(ctx: &Arc<CudaContext>, ckpt: &Checkpoint, args: &Args) -> Res<()> {
    let cfg = &ckpt.config;
    let stream = ctx.default_stream();
    let shape = Shape::new(cfg, args.max_ctx)?;
    let weights = Weights::<T>::upload(&stream, cfg, ckpt, &shape)?;
    let mut state = State::<T>::new(&stream, &shape)?;
    let position = args.position.unwrap_or(Position::Counter);
    let mut json = serde_json::json!({
        "gpu": ctx.name().unwrap_or_default(),
        "model": { "layers": cfg.num_hidden_layers, "hidden": cfg.hidden_size, "vocab": cfg.vocab_size, "dtype": format!("{}", T::DTYPE) },
        "bytes_per_token": cfg.bytes_per_token(T::DTYPE),
        "prompt_ids": args.prompt,
    });
    if let (Some(teacher), Some(path)) = (&args.teacher, &args.logits) {
        let logits = if args.step {
            Decoder::new(ctx, &shape, &weights, &mut state, position)?.teacher_forced(teacher)?
        } else {
            let mut prefill = Prefill::<T>::new(&stream, &shape, teacher.len())?;
            let mut gen = Generator::new(ctx, &shape, &weights, &mut state, &mut prefill, &[])?;
            gen.teacher_forced(teacher)?
        };
        write_f32(path, &logits)?;
        if !args.quiet {
            println!(
                "wrote {} rows of {} logits to {path}",
                teacher.len(),
                cfg.vocab_size
            );
        }
        return Ok(());
    }
    if args.bench > 0 {
        for name in &args.bench_modes {
            bench(
                ctx, &shape, &weights, &mut state, args, name, position, &mut json,
            )?;
        }
    } else if args.step {
        let mut dec = Decoder::new(ctx, &shape, &weights, &mut state, position)?;
        let eos = cfg.eos_token_ids.clone();
        let t0 = std::time::Instant::now();
        let out = dec.generate(&args.prompt, args.max_new, |t| {
            show(args, t);
            args.ignore_eos || !eos.contains(&t)
        })?;
        let secs = t0.elapsed().as_secs_f64();
        let rate = out.len() as f64 / secs;
        if !args.quiet {
            println!("\n{} tokens in {secs:.3} s: {rate:.1} tokens/s (with the prompt and a wait per token)", out.len());
        }
        json["ids"] = out.into();
        json["tokens_per_s"] = rate.into();
    } else {
        let mut prefill = Prefill::<T>::new(&stream, &shape, args.prompt.len())?;
        let mut gen = Generator::new(
            ctx,
            &shape,
            &weights,
            &mut state,
            &mut prefill,
            &cfg.eos_token_ids,
        )?;
        gen.stop_at_end_ids(!args.ignore_eos);
        let (out, ttft, itl) = watched(args, |on| {
            Ok(gen.generate(&args.prompt, args.max_new, on)?)
        })?;
        if !args.quiet {
            println!(
                "\n{} tokens in one launch: first after {ttft:.2} ms, then one every {itl:.1} us ({:.1} tokens/s)",
                out.len(),
                if itl > 0.0 { 1e6 / itl } else { 0.0 }
            );
        }
        if let Some(path) = &args.last_logits {
            write_f32(path, &gen.logits()?)?;
        }
        json["ids"] = out.into();
        json["ttft_ms"] = ttft.into();
        json["inter_token_us"] = itl.into();
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&json)?)?;
    }
    Ok(())
}

/// Runs a generation that hands each token to the callback it is given (`generate`), printing
/// the tokens as they arrive; returns the ids, the time to the first token (ms, from the call)
/// and the mean time between tokens (µs), as the host saw them.
fn watched(
    args: &Args,
    generate: impl FnOnce(&mut dyn FnMut(u32) -> bool) -> Res<Vec<u32>>,
) -> Res<(Vec<u32>, f64, f64)> {
    let t0 = std::time::Instant::now();
    let (mut first, mut last, mut n) = (None, t0, 0usize);
    let out = generate(&mut |t| {
        show(args, t);
        let now = std::time::Instant::now();
        first.get_or_insert(now);
        last = now;
        n += 1;
        true
    })?;
    let ttft = first.map_or(0.0, |f| (f - t0).as_secs_f64() * 1e3);
    let itl = match first {
        Some(f) if n > 1 => (last - f).as_secs_f64() * 1e6 / (n - 1) as f64,
        _ => 0.0,
    };
    Ok((out, ttft, itl))
}

/// Writes floats to `path`, little-endian.
fn write_f32(path: &str, values: &[f32]) -> Res<()> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes)?;
    Ok(())
}

/// Prints a token as it arrives (unless quiet).
fn show(args: &Args, t: u32) {
    if !args.quiet {
        print!("{t} ");
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
    }
}

/// Times `args.bench` generations (after a warm-up) in one mode: `loop` (one launch a
/// generation), `counter` or `setter` (one launch of the step graph a token), into `json`.
#[allow(clippy::too_many_arguments)]
fn bench<T: Element>(
    ctx: &Arc<CudaContext>,
    shape: &Shape,
    weights: &Weights<T>,
    state: &mut State<T>,
    args: &Args,
    name: &str,
    position: Position,
    json: &mut serde_json::Value,
) -> Res<()> {
    let (mut rates, mut host, mut ttft, mut itl) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut ids = Vec::new();
    if name == "loop" {
        let stream = ctx.default_stream();
        let mut prefill = Prefill::<T>::new(&stream, shape, args.prompt.len())?;
        let mut gen = Generator::new(ctx, shape, weights, state, &mut prefill, &[])?;
        for node in &args.disable {
            gen.disable(node)?;
        }
        gen.timed(&args.prompt, args.max_new)?;
        for _ in 0..args.bench {
            let (got, t) = gen.timed(&args.prompt, args.max_new)?;
            rates.push(t.tokens_per_s);
            ttft.push(t.ttft_ms);
            itl.push(t.inter_token_us);
            ids = got;
        }
        json["ttft_ms_loop"] = median(ttft).into();
        json["inter_token_us_loop"] = median(itl).into();
    } else {
        let mode = if name == "counter" {
            Position::Counter
        } else {
            Position::Setter
        };
        let mut dec = Decoder::new(ctx, shape, weights, state, mode)?;
        dec.timed(&args.prompt, args.max_new)?;
        for _ in 0..args.bench {
            let (got, t) = dec.timed(&args.prompt, args.max_new)?;
            rates.push(t.tokens_per_s);
            host.push(t.host_us_per_token);
            ids = got;
        }
        json[format!("host_us_per_token_{name}")] = median(host).into();
        if mode == position {
            json["tokens_per_s"] = rates.iter().cloned().fold(0.0, f64::max).into();
            json["tokens_per_s_median"] = median(rates.clone()).into();
            json["mode"] = name.into();
        }
    }
    let best = rates.iter().cloned().fold(0.0, f64::max);
    json[format!("tokens_per_s_{name}")] = best.into();
    json[format!("tokens_per_s_median_{name}")] = median(rates).into();
    json[format!("ids_{name}")] = ids.into();
    if !args.quiet {
        println!("{name}: {best:.1} tokens/s (best of {})", args.bench);
    }
    Ok(())
}

/// No directory: how to make one, then a small random model written and decoded here, checked
/// against the float64 reference.
fn demo(ctx: &Arc<CudaContext>) -> Res<()> {
    println!("usage: llama <checkpoint dir> [--prompt-ids 1,2,3] [--max-new 128]");
    println!("make a checkpoint directory with transformers (no download), for instance:");
    println!(
        "  python3 flagships/scripts/llama_hf.py make --shape tiny --dtype bf16 --out /tmp/tiny"
    );
    println!("now decoding a 2-layer random model written to a temporary directory instead");
    let cfg = LlamaConfig::from_json(
        r#"{"model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
            "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
            "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "vocab_size": 1000,
            "max_position_embeddings": 2048, "tie_word_embeddings": false, "dtype": "float32"}"#,
    )?;
    let dir = std::env::temp_dir().join(format!("cg-llama-demo-{}", std::process::id()));
    MemTensors::random(&cfg, DType::F32, 1)?.save(&cfg, &dir)?;
    let ckpt = Checkpoint::open(&dir)?;
    let prompt = [1u32, 2, 3, 4, 5, 6, 7, 8];
    let want = Reference::new(&ckpt.config, &ckpt, 64)?.greedy(&prompt, 32)?;
    let stream = ctx.default_stream();
    let shape = Shape::new(&ckpt.config, 256)?;
    let weights = Weights::<f32>::upload(&stream, &ckpt.config, &ckpt, &shape)?;
    let mut state = State::<f32>::new(&stream, &shape)?;
    {
        let mut dec = Decoder::new(ctx, &shape, &weights, &mut state, Position::Counter)?;
        print!("one launch a token:      ");
        let got = dec.generate(&prompt, 32, |t| {
            print!("{t} ");
            true
        })?;
        println!();
        if got != want {
            return Err(format!(
                "the step graph's ids {got:?} differ from the reference's {want:?}"
            )
            .into());
        }
    }
    let mut prefill = Prefill::<f32>::new(&stream, &shape, prompt.len())?;
    let mut gen = Generator::new(ctx, &shape, &weights, &mut state, &mut prefill, &[])?;
    print!("one launch a generation: ");
    let got = gen.generate(&prompt, 32, |t| {
        print!("{t} ");
        true
    })?;
    println!();
    let _ = std::fs::remove_dir_all(&dir);
    if got != want {
        return Err(format!(
            "the generation graph's ids {got:?} differ from the reference's {want:?}"
        )
        .into());
    }
    println!("32 ids both ways, the same as the float64 reference's");
    Ok(())
}
