#!/usr/bin/env python3
"""Hugging Face transformers beside the Rust Llama decoder (`flagships/examples/llama.rs`).

Runs on a GPU machine with torch and transformers and no network (nothing is downloaded:
checkpoints are random models made here and saved with `save_pretrained`).

  make    --shape tiny|1b|test2 --dtype f32|bf16 --out DIR [--seed 0]
  compare --dir DIR --bin PATH [--prompt-ids 1,2,..] [--max-new 128] [--out result.json]
          [--modes step,loop,tp,tp-loop]
  bench   --dir DIR --bin PATH [--new 128] [--reps 3] [--compare-json r.json] [--out rows.json]
  tp-bench --dir DIR --bin PATH [--new 128] [--reps 5] [--out rows.json]
  all     --shapes tiny:f32,tiny:bf16 --bin PATH --work DIR --out-dir DIR [--skip-bench]
          [--skip-trace]

`compare` checks the Rust binary against transformers on the same checkpoint, in each of its
modes (`--mode step`, one launch a token; `--mode loop`, one launch a generation; `--mode tp`,
the step split over every GPU of the machine, tensor parallel; `--mode tp-loop`, the generation
split the same way): greedy ids of
`max_new` tokens after the prompt, and teacher-forced logits at every step (the full sequence
through transformers in one forward; through the binary one step at a time, or in loop mode one
generation of one token after each prefix, its prefill included). Thresholds (the issue's):
f32, ids identical (compared up to the first step where transformers' top-2 margin is below
1e-4, reported) and every row's largest logit error within 2e-3 of its largest |logit|; bf16,
top-1 agreement of the teacher-forced rows of the new tokens at least 97% and the mean |logit
error| at most 2% of the logits' standard deviation (per row, averaged). A row whose largest
transformers logit is shared by several tokens (bf16 logits can tie exactly) agrees when the
binary picks any of them; the strict agreement is reported beside it, with every row that
differs. Then the prefill alone: the logits after prompts of 1, 8 and 512 tokens (loop mode,
and tp-loop mode when compared, one new token) against transformers' last row, under the same
thresholds.

`bench` times, batch 1, an 8-token prompt and `new` tokens, in one process: the copy
bandwidth (bytes read and written over time, a 1 GiB device-to-device copy), the checkpoint's
bytes read per token and the floor they give, and four rows:
  hf_eager        `generate` with the default dynamic cache: new tokens / time of the whole
                  call (its prefill included);
  hf_compile      `generate(cache_implementation="static")`, which compiles its step; the same
                  measure, after one warm-up call that compiles;
  pytorch_graph   a gpt-fast-style loop: a StaticCache, the prompt through one eager forward,
                  then a one-token step (greedy argmax inside) under
                  torch.compile(mode="reduce-overhead"), cudagraph_mark_step_begin() before
                  each step, the token kept on the device, one sync at the end: steps / time of
                  the decode steps;
  cuda_graph_step the Rust binary's `--bench` (its steps launched back to back, one wait at the
                  end): new tokens / time from the first new token's step to the last token;
  cuda_graph_loop the binary's loop mode, one launch a generation: tokens after the first over
                  the time between the first and the last reaching the host (`ttft_ms`: from the
                  call to the first token at the host, prefill included).
With `--context N` (in `all`: `--long`, the 1B shape), the prompt is N - new tokens, so the new
tokens take positions N - new .. N: rows `pytorch_graph` and `cuda_graph_loop` with `context`.
Rows: {"case": "decode", "impl", "model", "dtype", "batch": 1, "tokens_per_s", ...}; `all`
adds the comparison as rows `decode_check` (per mode) and `decode_prefill_check`.
"""
import argparse
import inspect
import json
import os
import shutil
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402

SHAPES = {
    "tiny": dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                 num_attention_heads=16, num_key_value_heads=4, head_dim=64, vocab_size=32000,
                 tie_word_embeddings=False, rope_theta=10000.0, rope_scaling=None,
                 max_position_embeddings=4096, rms_norm_eps=1e-5, bos_token_id=1, eos_token_id=2),
    "1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
               num_attention_heads=32, num_key_value_heads=8, head_dim=64, vocab_size=128256,
               tie_word_embeddings=True, rope_theta=500000.0,
               rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                             "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
               max_position_embeddings=131072, rms_norm_eps=1e-5, bos_token_id=128000,
               eos_token_id=[128001, 128008, 128009]),
    "test2": dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, head_dim=64, vocab_size=1024,
                  tie_word_embeddings=False, rope_theta=10000.0, rope_scaling=None,
                  max_position_embeddings=4096, rms_norm_eps=1e-5, bos_token_id=1, eos_token_id=2),
}
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
INIT_RANGE = {"tiny": 0.02, "1b": 0.015, "test2": 0.02}
PROMPT = [1, 306, 465, 278, 659, 310, 283, 338]


def log(*a):
    print(*a, flush=True)


def device():
    return "cuda" if torch.cuda.is_available() else "cpu"


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def llama_config(shape):
    from transformers import LlamaConfig
    kw = dict(SHAPES[shape])
    scaling = kw.pop("rope_scaling")
    theta = kw.pop("rope_theta")
    # transformers 5 names the rope settings `rope_parameters`; 4 took `rope_theta` and
    # `rope_scaling`. Either way the saved config.json holds what the Rust loader reads.
    if "rope_parameters" in inspect.signature(LlamaConfig.__init__).parameters:
        params = {"rope_type": "default", "rope_theta": theta}
        if scaling:
            params.update(scaling)
        kw["rope_parameters"] = params
    else:
        kw["rope_theta"] = theta
        if scaling:
            kw["rope_scaling"] = scaling
    return LlamaConfig(**kw)


def make(shape, dtype, out, seed=0):
    """A random model from a fixed seed, saved with save_pretrained (config.json and one
    model.safetensors). transformers draws every weight normal with std `initializer_range`
    and sets the norms to 1. The range is per shape (INIT_RANGE): large enough that greedy
    decoding is not a loop of two tokens, small enough that bf16 rounding alone (transformers
    in bf16 against itself in f32, measured on the CPU) keeps the teacher-forced top-1 above
    97% and the mean logit error under 2% of the logits' std: tiny at 0.02 gives 0.8% and
    98.4%, the 1B shape at 0.015 gives 1.25% and 100% (at 0.02, 2.0% and 95%). `compare`
    prints the fraction of steps with a top-2 margin under 1e-2 std for the model it checks."""
    from transformers import LlamaForCausalLM
    torch.manual_seed(seed)
    cfg = llama_config(shape)
    cfg.initializer_range = INIT_RANGE[shape]
    dev = device()
    with torch.device(dev):
        model = LlamaForCausalLM(cfg).to(DTYPES[dtype])
    model.generation_config.eos_token_id = None
    model.save_pretrained(out, safe_serialization=True)
    log(f"made {shape} {dtype} in {out}")
    return model


def load(d, dtype=None):
    from transformers import LlamaForCausalLM
    dt = dtype
    if dt is None:
        cfg = json.load(open(os.path.join(d, "config.json")))
        dt = DTYPES["bf16" if (cfg.get("dtype") or cfg.get("torch_dtype")) == "bfloat16" else "f32"]
    model = LlamaForCausalLM.from_pretrained(d, dtype=dt).to(device()).eval()
    # Random models: never stop at an end token (the Rust side runs with --ignore-eos).
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def dtype_name(model):
    return "bf16" if model.dtype == torch.bfloat16 else "f32"


def run(cmd):
    log("$", " ".join(str(c) for c in cmd)[:300])
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}")
    return p


def hf_greedy(model, prompt, new):
    ids = torch.tensor([prompt], device=device())
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=new, do_sample=False, eos_token_id=None,
                             pad_token_id=0)
    return out[0, len(prompt):].tolist()


def judge(dt, h, o, ours_ids, hf_ids, new):
    """The thresholds of the module docstring on logits rows `o` against transformers' `h`
    (the rows of the new tokens) and the greedy ids."""
    finite = bool(torch.isfinite(o).all())
    top2 = torch.topk(h, 2, dim=1).values
    margins = (top2[:, 0] - top2[:, 1]).tolist()
    std = h.std(dim=1)
    near = [i for i, m in enumerate(margins) if m < 1e-4]
    first_div = next((i for i, (a, b) in enumerate(zip(ours_ids, hf_ids)) if a != b), None)
    res = {"ids": ours_ids, "first_divergence": first_div, "near_ties": near,
           "ties_below_1e-2_std": sum(1 for m, s in zip(margins, std.tolist()) if m < 1e-2 * s) / len(margins),
           "finite": finite}
    err = (o - h).abs()
    res["max_rel_logit_err"] = float((err.max(dim=1).values / h.abs().max(dim=1).values).max())
    pick = o.argmax(dim=1)
    strict = pick == h.argmax(dim=1)
    # A row where transformers' largest logit is shared by several tokens (bf16 logits tie
    # exactly) has several top-1 tokens: picking any of them agrees with it.
    tied_ok = h.gather(1, pick.view(-1, 1)).view(-1) == h.max(dim=1).values
    res["top1_agreement_strict"] = float(strict.float().mean())
    res["top1_agreement"] = float((strict | tied_ok).float().mean())
    res["top1_disagreements"] = [
        {"step": i, "hf_margin": margins[i], "ours": int(pick[i]), "hf": int(h[i].argmax()),
         "hf_logit_of_ours": float(h[i, pick[i]]), "hf_max": float(h[i].max())}
        for i in range(len(margins)) if not bool(strict[i])]
    res["mean_err_over_std"] = float((err.mean(dim=1) / std).mean())
    if dt == "f32":
        upto = near[0] if near else new
        ids_ok = ours_ids[:upto] == hf_ids[:upto] and len(ours_ids) == new
        res["ids_compared_up_to"] = upto
        res["matches_hf"] = bool(finite and ids_ok and res["max_rel_logit_err"] <= 2e-3)
    else:
        res["matches_hf"] = bool(finite and res["top1_agreement"] >= 0.97
                                 and res["mean_err_over_std"] <= 0.02)
    return res


def read_logits(path, rows, vocab):
    raw = torch.frombuffer(bytearray(open(path, "rb").read()), dtype=torch.float32)
    if raw.numel() != rows * vocab:
        raise RuntimeError(f"{raw.numel()} logits from the binary, expected {rows} x {vocab}")
    return raw.view(rows, vocab)


def long_prompt(n, vocab):
    """A prompt of n tokens that walks the vocabulary (the long-context rows and the prefill
    check)."""
    return [(i * 7919 + 13) % vocab for i in range(n)]


def compare(d, binary, prompt, new, out=None, tmp="/tmp", prefill_lens=(1, 8, 512),
            modes=("step", "loop", "tp", "tp-loop")):
    """The binary's modes against transformers: `step` (one launch a token), `loop` (one launch
    a generation, prefill included) and `tp` (the step split over every GPU here, tensor
    parallel), each with its greedy ids and teacher-forced logits under the same thresholds;
    then the prefill alone: the logits after prompts of `prefill_lens` tokens (one generation
    of one token) against transformers' last row."""
    model = load(d)
    dt = dtype_name(model)
    hf_ids = hf_greedy(model, prompt, new)
    seq = prompt + hf_ids
    with torch.no_grad():
        hf_logits = model(torch.tensor([seq], device=device())).logits[0].float().cpu()
    vocab = hf_logits.shape[1]
    rows = slice(len(prompt) - 1, len(prompt) - 1 + new)
    jpath, lpath = os.path.join(tmp, "cg_ids.json"), os.path.join(tmp, "cg_logits.bin")
    res = {"model": os.path.basename(d.rstrip("/")), "dtype": dt, "prompt": prompt, "new": new,
           "hf_ids": hf_ids, "modes": {}}
    for mode in modes:
        run([binary, d, "--mode", mode, "--prompt-ids", ",".join(map(str, prompt)), "--max-new", new,
             "--ignore-eos", "--json", jpath, "--quiet"])
        ours_ids = json.load(open(jpath))["ids"]
        run([binary, d, "--mode", mode, "--teacher-ids", ",".join(map(str, seq)), "--logits", lpath,
             "--quiet"])
        ours = read_logits(lpath, len(seq), vocab)
        r = judge(dt, hf_logits[rows], ours[rows], ours_ids, hf_ids, new)
        res["modes"][mode] = r
        log(f"compare {res['model']} {dt} {mode}: {'PASS' if r['matches_hf'] else 'FAIL'}; ids first differ at "
            f"{r['first_divergence']}; near ties (<1e-4) at {r['near_ties']}; max rel logit err {r['max_rel_logit_err']:.2e}; "
            f"top-1 {r['top1_agreement']:.4f} (strict {r['top1_agreement_strict']:.4f}); mean err/std {r['mean_err_over_std']:.4f}; "
            f"margins < 1e-2 std: {r['ties_below_1e-2_std']:.3f}")
    # The prefill: the logits after prompts of several lengths, all rows judged together, for
    # each mode that has one (one generation of one token).
    res["matches_hf"] = all(r["matches_hf"] for r in res["modes"].values())
    for pmode in [m for m in ("loop", "tp-loop") if m in modes] or ["loop"]:
        pre = prefill_check(model, d, binary, dt, vocab, lpath, prefill_lens, pmode)
        res["prefill" if pmode == "loop" else "prefill_" + pmode.replace("-", "_")] = pre
        res["matches_hf"] = res["matches_hf"] and pre["matches_hf"]
        log(f"compare {res['model']} {dt} prefill ({pmode}) {list(prefill_lens)}: "
            f"{'PASS' if pre['matches_hf'] else 'FAIL'}; top-1 {pre['top1']}; max rel err "
            f"{['%.2e' % e for e in pre['max_rel_logit_err']]}; err/std {['%.4f' % e for e in pre['err_over_std']]}")
    if out:
        json.dump(res, open(out, "w"), indent=1)
    del model
    torch.cuda.empty_cache() if torch.cuda.is_available() else None
    return res


def prefill_check(model, d, binary, dt, vocab, lpath, prefill_lens, mode):
    """The logits after prompts of `prefill_lens` tokens (the binary in `mode`, one generation
    of one token each) against transformers' last row, under the thresholds of `compare`."""
    hs, os_ = [], []
    for n in prefill_lens:
        p = long_prompt(n, vocab)
        run([binary, d, "--mode", mode, "--prompt-ids", ",".join(map(str, p)), "--max-new", 1,
             "--max-ctx", max(4096, n + 1), "--ignore-eos", "--last-logits", lpath, "--quiet"])
        os_.append(read_logits(lpath, 1, vocab))
        with torch.no_grad():
            hs.append(model(torch.tensor([p], device=device())).logits[0, -1:].float().cpu())
    h, o = torch.cat(hs), torch.cat(os_)
    pick = o.argmax(dim=1)
    agree = (pick == h.argmax(dim=1)) | (h.gather(1, pick.view(-1, 1)).view(-1) == h.max(dim=1).values)
    err = (o - h).abs()
    pre = {"mode": mode, "prompt_lens": list(prefill_lens), "top1": [bool(a) for a in agree],
           "max_rel_logit_err": [float(e) for e in err.max(dim=1).values / h.abs().max(dim=1).values],
           "err_over_std": [float(e) for e in err.mean(dim=1) / h.std(dim=1)]}
    if dt == "f32":
        pre["matches_hf"] = bool(torch.isfinite(o).all()) and max(pre["max_rel_logit_err"]) <= 2e-3
    else:
        pre["matches_hf"] = bool(torch.isfinite(o).all()) and all(pre["top1"]) and max(pre["err_over_std"]) <= 0.02
    return pre


def copy_bandwidth():
    n = 1 << 30
    a = torch.empty(n // 4, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    a.fill_(1.0)
    for _ in range(3):
        b.copy_(a)
    times = []
    for _ in range(10):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        b.copy_(a)
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    times.sort()
    del a, b
    return 2 * n / times[len(times) // 2] / 1e9


def bytes_per_token(cfg, size, gpus=1):
    """Weight bytes one GPU reads a token when the layers are split over `gpus` (the head, the
    norms and the embedding row are read whole on every GPU)."""
    e, f, l, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    hd = cfg.get("head_dim") or e // cfg["num_attention_heads"]
    q, kv = cfg["num_attention_heads"] * hd, cfg["num_key_value_heads"] * hd
    split = e * (q + 2 * kv) + q * e + 3 * e * f
    return size * (l * (2 * e + split // gpus) + e + v * e + e)


def timed(fn, reps):
    out = []
    for _ in range(reps):
        sync()
        t = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t)
    return out


def bench(d, binary, new=128, reps=3, compare_json=None, out=None, tmp="/tmp", context=None):
    """The rows of the module docstring; with `context`, a prompt of `context - new` tokens
    (the long-context rows: positions context - new .. context), the PyTorch loop and the
    binary's loop mode only."""
    from transformers import StaticCache
    cfg = json.load(open(os.path.join(d, "config.json")))
    model = load(d)
    dt = dtype_name(model)
    name = os.path.basename(d.rstrip("/")).split("-")[0]
    dev = device()
    gbps = copy_bandwidth() if dev == "cuda" else float("nan")
    bpt = bytes_per_token(cfg, 2 if dt == "bf16" else 4)
    floor = gbps * 1e9 / bpt
    gpu = torch.cuda.get_device_name() if dev == "cuda" else "cpu"
    matches = json.load(open(compare_json))["matches_hf"] if compare_json else None
    prompt = PROMPT if context is None else long_prompt(context - new, cfg["vocab_size"])
    base = {"case": "decode", "model": name, "dtype": dt, "batch": 1, "prompt": len(prompt),
            "new": new, "floor_tokens_per_s": floor, "copy_gbps": gbps, "bytes_per_token": bpt,
            "gpu": gpu, "matches_hf": matches}
    if context is not None:
        base["context"] = context
    rows = []
    ids = torch.tensor([prompt], device=dev)

    def row(impl, rates, **extra):
        r = dict(base, impl=impl, tokens_per_s=max(rates), tokens_per_s_median=sorted(rates)[len(rates) // 2])
        r.update(extra)
        rows.append(r)
        log(f"{impl:16s} {r['tokens_per_s']:9.1f} tokens/s  ({r['tokens_per_s'] / floor:.1%} of the floor)")

    def guarded(what, f):
        t = time.perf_counter()
        try:
            f()
        except Exception as e:  # one failing row does not stop the others
            log(f"{what} failed: {type(e).__name__}: {e}")
        log(f"[{what}: {time.perf_counter() - t:.1f} s]")

    def eager():
        gen = lambda: model.generate(ids, max_new_tokens=new, do_sample=False, pad_token_id=0)
        with torch.no_grad():
            gen()
            row("hf_eager", [new / t for t in timed(gen, reps)])

    def compiled():
        gen = lambda: model.generate(ids, max_new_tokens=new, do_sample=False, pad_token_id=0,
                                     cache_implementation="static")
        with torch.no_grad():
            gen()
            row("hf_compile", [new / t for t in timed(gen, reps)])

    def loop():
        cache = StaticCache(config=model.config, max_cache_len=len(prompt) + new + 8)

        def step(tok, pos):
            o = model(tok.view(1, 1), past_key_values=cache, cache_position=pos,
                      position_ids=pos.view(1, 1), use_cache=True)
            return o.logits[:, -1, :].argmax(dim=-1)

        try:
            step_c = torch.compile(step, mode="reduce-overhead", fullgraph=True)
        except Exception:
            step_c = torch.compile(step, mode="reduce-overhead")

        def generate():
            cache.reset()
            p = len(prompt)
            with torch.no_grad():
                sync()
                t0 = time.perf_counter()
                o = model(ids, past_key_values=cache, cache_position=torch.arange(p, device=dev),
                          use_cache=True)
                tok = o.logits[:, -1, :].argmax(dim=-1)
                sync()
                t = time.perf_counter()
                toks = [tok]
                for i in range(new - 1):
                    torch.compiler.cudagraph_mark_step_begin()
                    tok = step_c(tok, torch.tensor([p + i], device=dev)).clone()
                    toks.append(tok)
                sync()
                return (new - 1) / (time.perf_counter() - t), torch.cat(toks).tolist(), (t - t0) * 1e3

        generate()
        generate()
        results = [generate() for _ in range(reps)]
        row("pytorch_graph", [r for r, _, _ in results],
            ttft_ms=sorted(f for _, _, f in results)[len(results) // 2])

    if context is None:
        guarded("hf_eager", eager)
        guarded("hf_compile", compiled)
    guarded("pytorch_graph", loop)
    del model
    if dev == "cuda":
        torch.cuda.empty_cache()

    def ours():
        jpath = os.path.join(tmp, "cg_bench.json")
        modes = "loop" if context is not None else "loop,counter,setter"
        run([binary, d, "--prompt-ids", ",".join(map(str, prompt)), "--max-new", new,
             "--max-ctx", max(4096, len(prompt) + new), "--ignore-eos", "--bench", max(reps, 5),
             "--bench-modes", modes, "--json", jpath, "--quiet"])
        j = json.load(open(jpath))
        row("cuda_graph_loop", [j["tokens_per_s_loop"]], ttft_ms=j["ttft_ms_loop"],
            inter_token_us=j["inter_token_us_loop"],
            tokens_per_s_median=j["tokens_per_s_median_loop"])
        if context is None:
            extra = {k: v for k, v in j.items()
                     if k.startswith(("tokens_per_s_", "host_us")) and not k.endswith("_loop")}
            extra["mode"] = j.get("mode")
            row("cuda_graph_step", [j["tokens_per_s"]], **extra)

    guarded("cuda_graph", ours)
    by = {r["impl"]: r["tokens_per_s"] for r in rows}
    for impl in ("cuda_graph_loop", "cuda_graph_step"):
        if impl in by and "pytorch_graph" in by:
            log(f"{name} {dt}{'' if context is None else f' context {context}'}: {impl} / pytorch_graph = "
                f"{by[impl] / by['pytorch_graph']:.2f}x; floor {floor:.0f} tokens/s ({gbps:.0f} GB/s, "
                f"{bpt / 1e9:.3f} GB a token)")
    if out:
        json.dump(rows, open(out, "w"), indent=1)
    return rows


def trace(shape, tmp="/tmp"):
    """Where the time of a step goes: `step_trace.cu` (the step graph's kernels built by stream
    capture with random bf16 weights, block 0 of each kernel stamping the global timer as its
    wait returns) built with nvcc and run for `shape`, and a build without that hook for the
    step's own time; one `decode_trace` row, or none when nvcc is missing."""
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "step_trace.cu")
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc is None:
        log("no nvcc: no trace")
        return []
    # The traced build (the breakdown) and one without the hook (the step's own time: the hook
    # costs the step about 1.5% on an H100).
    outs = {}
    kernels = os.path.join(here, "..", "src", "llama")
    sources = [src] + [os.path.join(kernels, f) for f in os.listdir(kernels) if f.endswith((".cu", ".cuh"))]
    for name, flags in (("untraced", ["-DSTEP_TRACE_OFF"]), ("traced", [])):
        exe = os.path.join(tmp, f"step_trace_{name}")
        # Built again when a source is newer than the binary (an edited kernel is measured).
        if not os.path.exists(exe) or max(map(os.path.getmtime, sources)) > os.path.getmtime(exe):
            run([nvcc, "-O3", "-std=c++17", "-arch=sm_90", *flags, "-I", kernels, src, "-o", exe])
        out = os.path.join(tmp, f"trace-{shape}-{name}.json")
        run([exe, "--shape", shape, "--json", out])
        outs[name] = json.load(open(out))
    row = outs["traced"]
    row.update(case="decode_trace", model=shape, dtype="bf16",
               untraced_tokens_per_s=outs["untraced"]["tokens_per_s"],
               untraced_us_per_step=outs["untraced"]["us_per_step"])
    return [row]


def check_rows(shape, res):
    """The comparison as result rows: `decode_check` per mode, `decode_prefill_check`."""
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"
    keep = ["matches_hf", "first_divergence", "near_ties", "max_rel_logit_err", "top1_agreement",
            "top1_agreement_strict", "mean_err_over_std", "top1_disagreements", "ids_compared_up_to"]
    out = []
    for mode, r in res["modes"].items():
        row = {"case": "decode_check", "mode": mode, "model": shape, "dtype": res["dtype"], "gpu": gpu,
               "prompt": len(res["prompt"]), "new": res["new"]}
        row.update({k: r[k] for k in keep if k in r})
        out.append(row)
    for key in ("prefill", "prefill_tp_loop"):
        if key in res:
            out.append(dict({"case": "decode_prefill_check", "model": shape, "dtype": res["dtype"],
                             "gpu": gpu}, **res[key]))
    return out


def tp_bench(d, binary, new=128, reps=5, out=None, tmp="/tmp"):
    """The model split over 1, 2, ... GPUs of this machine (every count that divides its heads):
    tokens/s of the tensor-parallel step (`--mode tp`, one launch a token on every GPU, back to
    back) and generation (`--mode tp-loop`, one launch a generation), beside the single-GPU
    generation graph, batch 1, an 8-token prompt and `new` tokens. The floor at n GPUs is n
    times one GPU's (each reads 1/n of the bytes). Rows {"case": "decode_tp", "impl", "gpus",
    "tokens_per_s", ...}."""
    cfg = json.load(open(os.path.join(d, "config.json")))
    name = os.path.basename(d.rstrip("/")).split("-")[0]
    model = load(d)
    dt = dtype_name(model)
    size = 2 if dt == "bf16" else 4
    del model
    torch.cuda.empty_cache()
    gbps = copy_bandwidth()
    gpu = torch.cuda.get_device_name()
    prompt = PROMPT
    rows = []
    jpath = os.path.join(tmp, "cg_tp_bench.json")

    def row(impl, gpus, rate, **extra):
        per = bytes_per_token(cfg, size, gpus)
        fl = gbps * 1e9 / per
        r = {"case": "decode_tp", "impl": impl, "model": name, "dtype": dt, "batch": 1,
             "gpus": gpus, "prompt": len(prompt), "new": new, "tokens_per_s": rate,
             "floor_tokens_per_s": fl, "of_floor": rate / fl, "copy_gbps": gbps,
             "bytes_per_token_per_gpu": per, "gpu": gpu}
        r.update(extra)
        rows.append(r)
        log(f"tp {name} {dt} {impl:18s} {gpus} GPU(s): {rate:9.1f} tokens/s ({rate / fl:.1%} of the "
            f"floor {fl:.0f} at {per / 1e9:.3f} GB a GPU a token)")

    common = ["--prompt-ids", ",".join(map(str, prompt)), "--max-new", new, "--ignore-eos",
              "--bench", reps, "--json", jpath, "--quiet"]
    run([binary, d, *common, "--bench-modes", "loop"])
    j = json.load(open(jpath))
    row("cuda_graph_loop", 1, j["tokens_per_s_loop"], ttft_ms=j["ttft_ms_loop"],
        inter_token_us=j["inter_token_us_loop"], ids=j["ids_loop"])
    heads, kv = cfg["num_attention_heads"], cfg.get("num_key_value_heads", cfg["num_attention_heads"])
    for g in range(1, torch.cuda.device_count() + 1):
        if heads % g or kv % g or cfg["intermediate_size"] % (8 * g):
            continue
        run([binary, d, "--mode", "tp", "--gpus", g, *common])
        j = json.load(open(jpath))
        row("cuda_graph_tp_step", g, j["tokens_per_s_tp"], ids=j["ids_tp"])
        run([binary, d, "--mode", "tp-loop", "--gpus", g, *common])
        j = json.load(open(jpath))
        row("cuda_graph_tp_loop", g, j["tokens_per_s_tp_loop"], ttft_ms=j["ttft_ms_tp_loop"],
            inter_token_us=j["inter_token_us_tp_loop"], ids=j["ids_tp_loop"])
    if out:
        json.dump(rows, open(out, "w"), indent=1)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--shape", choices=SHAPES, required=True)
    m.add_argument("--dtype", choices=DTYPES, required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("compare")
    c.add_argument("--dir", required=True)
    c.add_argument("--bin", required=True)
    c.add_argument("--prompt-ids", default=",".join(map(str, PROMPT)))
    c.add_argument("--max-new", type=int, default=128)
    c.add_argument("--out")
    c.add_argument("--modes", default="step,loop,tp,tp-loop")
    b = sub.add_parser("bench")
    b.add_argument("--dir", required=True)
    b.add_argument("--bin", required=True)
    b.add_argument("--new", type=int, default=128)
    b.add_argument("--reps", type=int, default=3)
    b.add_argument("--compare-json")
    b.add_argument("--context", type=int)
    b.add_argument("--out")
    t = sub.add_parser("tp-bench")
    t.add_argument("--dir", required=True)
    t.add_argument("--bin", required=True)
    t.add_argument("--new", type=int, default=128)
    t.add_argument("--reps", type=int, default=5)
    t.add_argument("--out")
    a = sub.add_parser("all")
    a.add_argument("--shapes", default="tiny:f32,tiny:bf16,1b:bf16")
    a.add_argument("--bin", required=True)
    a.add_argument("--work", default="/tmp/ckpts")
    a.add_argument("--out-dir", required=True)
    a.add_argument("--reps", type=int, default=3)
    a.add_argument("--skip-bench", action="store_true")
    a.add_argument("--long", default="1b:bf16", help="shapes with a long-context row (context 4096)")
    a.add_argument("--skip-trace", action="store_true", help="no step_trace.cu rows (it needs nvcc)")
    args = ap.parse_args()
    if args.cmd == "make":
        make(args.shape, args.dtype, args.out, args.seed)
    elif args.cmd == "compare":
        r = compare(args.dir, args.bin, [int(t) for t in args.prompt_ids.split(",")], args.max_new, args.out,
                    modes=tuple(args.modes.split(",")))
        sys.exit(0 if r["matches_hf"] else 1)
    elif args.cmd == "tp-bench":
        tp_bench(args.dir, args.bin, args.new, args.reps, args.out)
    elif args.cmd == "bench":
        bench(args.dir, args.bin, args.new, args.reps, args.compare_json, args.out, context=args.context)
    else:
        os.makedirs(args.out_dir, exist_ok=True)
        rows, ok = [], True
        for spec in args.shapes.split(","):
            shape, dt = spec.split(":")
            d = os.path.join(args.work, f"{shape}-{dt}")
            t = time.perf_counter()
            try:
                if not os.path.exists(os.path.join(d, "config.json")):
                    make(shape, dt, d)
                    torch.cuda.empty_cache()
                cj = os.path.join(args.out_dir, f"compare-{shape}-{dt}.json")
                r = compare(d, args.bin, PROMPT, 128, cj)
                ok &= r["matches_hf"]
                rows += check_rows(shape, r)
                if not args.skip_bench:
                    rows += bench(d, args.bin, 128, args.reps, cj)
                    if spec in args.long.split(","):
                        rows += bench(d, args.bin, 128, args.reps, cj, context=4096)
                    if dt == "bf16" and not args.skip_trace:
                        rows += trace(shape)
            except Exception as e:
                ok = False
                log(f"{spec} failed: {type(e).__name__}: {e}")
            log(f"[{spec}: {time.perf_counter() - t:.1f} s]")
            json.dump(rows, open(os.path.join(args.out_dir, "rows.json"), "w"), indent=1)
        log("summary:")
        for r in rows:
            if r["case"] != "decode":
                continue
            log(f"  {r['model']:5s} {r['dtype']:5s} {r.get('context', ''):5} {r['impl']:16s} {r['tokens_per_s']:9.1f} tokens/s "
                f"{r['tokens_per_s'] / r['floor_tokens_per_s']:6.1%} of floor  matches_hf={r['matches_hf']}")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
