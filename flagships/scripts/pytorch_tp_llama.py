#!/usr/bin/env python3
"""A tensor-parallel Llama decode loop in PyTorch, the peer of the Rust decoder's `--mode tp`
and `--mode tp-loop` (`flagships/examples/llama`): one process per GPU over NCCL
(`torch.distributed`), written the way gpt-fast splits a model (Megatron's split: each rank
holds heads/n query heads, kv_heads/n KV heads with their cache, their columns of the output
projection, ffn/n of the MLP's gate and up rows and those columns of the down projection; the
embedding, norms and head whole), with an all-reduce after the output and down projections.

One decode step (batch 1: norm, projections, rotary embedding, the cache write, attention
over the static cache masked past the position, SwiGLU, the greedy argmax) is captured once
in a `torch.cuda.graph` with its two all-reduces a layer; the token and the position stay on
the device and the graph advances them, so a generation is one replay a token and one sync at
the end. The prompt goes through the same graph token by token before the clock starts.
Numbers are the slowest rank's: new tokens over the time of the timed replays.

    python3 flagships/scripts/pytorch_tp_llama.py --dir CKPT [--gpus N] [--new 128]
        [--reps 3] [--out rows.json] [--ids ids.json]

Checks rank 0's greedy ids against transformers' `generate` on the same checkpoint (reported:
the first step where they differ; bf16 rounds differently in places). Rows
{"case": "decode_tp", "impl": "pytorch_tp_graph", "gpus", "tokens_per_s", ...}.
"""
import os

for key, value in [("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                   ("NVSHMEM_DISABLE_NVLS", "1")]:
    os.environ.setdefault(key, value)

import argparse
import json
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

PROMPT = [1, 306, 465, 278, 659, 310, 283, 338]


def rms(x, w, eps):
    v = x.float()
    v = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + eps)
    return w * v.to(w.dtype)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def worker(rank, world, port, args, q):
    from transformers import LlamaForCausalLM
    dev = torch.device("cuda", rank)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, device_id=dev)
    cfgj = json.load(open(os.path.join(args.dir, "config.json")))
    dt = torch.bfloat16 if (cfgj.get("dtype") or cfgj.get("torch_dtype")) == "bfloat16" else torch.float32
    model = LlamaForCausalLM.from_pretrained(args.dir, dtype=dt).eval()
    cfg = model.config
    heads, kv, e, ffn = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.hidden_size, cfg.intermediate_size
    hd = getattr(cfg, "head_dim", None) or e // heads
    eps = cfg.rms_norm_eps
    hl, kl, fl = heads // world, kv // world, ffn // world
    max_ctx = len(PROMPT) + args.new + 8
    sd = model.state_dict()

    def g(name):
        return sd[name].to(dev)

    layers = []
    for i in range(cfg.num_hidden_layers):
        p = f"model.layers.{i}."
        wq = sd[p + "self_attn.q_proj.weight"][rank * hl * hd:(rank + 1) * hl * hd]
        wk = sd[p + "self_attn.k_proj.weight"][rank * kl * hd:(rank + 1) * kl * hd]
        wv = sd[p + "self_attn.v_proj.weight"][rank * kl * hd:(rank + 1) * kl * hd]
        layers.append(dict(
            ln1=g(p + "input_layernorm.weight"), ln2=g(p + "post_attention_layernorm.weight"),
            wqkv=torch.cat([wq, wk, wv]).to(dev).contiguous(),
            wo=sd[p + "self_attn.o_proj.weight"][:, rank * hl * hd:(rank + 1) * hl * hd].to(dev).contiguous(),
            wgu=torch.cat([sd[p + "mlp.gate_proj.weight"][rank * fl:(rank + 1) * fl],
                           sd[p + "mlp.up_proj.weight"][rank * fl:(rank + 1) * fl]]).to(dev).contiguous(),
            wd=sd[p + "mlp.down_proj.weight"][:, rank * fl:(rank + 1) * fl].to(dev).contiguous(),
            k=torch.zeros(max_ctx, kl, hd, dtype=dt, device=dev),
            v=torch.zeros(max_ctx, kl, hd, dtype=dt, device=dev)))
    embed = g("model.embed_tokens.weight")
    head = sd["lm_head.weight"].to(dev) if "lm_head.weight" in sd else embed
    norm = g("model.norm.weight")
    # The rotary tables as transformers computes them (its scaling included).
    with torch.no_grad():
        pos_ids = torch.arange(max_ctx).view(1, -1)
        cos, sin = model.model.rotary_emb(torch.zeros(1, dtype=dt), pos_ids)
    cos, sin = cos[0].to(dev), sin[0].to(dev)
    hf_ids = None
    if rank == 0:
        with torch.no_grad():
            m = model.to(dev)
            out = m.generate(torch.tensor([PROMPT], device=dev), max_new_tokens=args.new,
                             do_sample=False, eos_token_id=None, pad_token_id=0)
            hf_ids = out[0, len(PROMPT):].tolist()
            del m
    del model, sd
    torch.cuda.empty_cache()

    tok = torch.zeros(1, dtype=torch.long, device=dev)
    pos = torch.zeros(1, dtype=torch.long, device=dev)
    prompt = torch.tensor(PROMPT, dtype=torch.long, device=dev)
    plen = torch.tensor(len(PROMPT), dtype=torch.long, device=dev)
    ids = torch.zeros(max_ctx, dtype=torch.long, device=dev)
    span = torch.arange(max_ctx, device=dev)
    group = hl // kl

    def step():
        x = embed[tok]
        c, s = cos[pos].view(1, 1, hd), sin[pos].view(1, 1, hd)
        keep = (span <= pos).view(1, 1, max_ctx)
        for L in layers:
            h = rms(x, L["ln1"], eps)
            qkv = F.linear(h, L["wqkv"])
            q = qkv[:, :hl * hd].view(1, hl, hd)
            k = qkv[:, hl * hd:(hl + kl) * hd].view(1, kl, hd)
            v = qkv[:, (hl + kl) * hd:].view(1, kl, hd)
            q = q * c + rotate_half(q) * s
            k = k * c + rotate_half(k) * s
            L["k"].index_copy_(0, pos, k)
            L["v"].index_copy_(0, pos, v)
            kk = L["k"].transpose(0, 1).repeat_interleave(group, dim=0)
            vv = L["v"].transpose(0, 1).repeat_interleave(group, dim=0)
            a = F.scaled_dot_product_attention(q.transpose(0, 1), kk, vv, attn_mask=keep)
            o = F.linear(a.transpose(0, 1).reshape(1, hl * hd), L["wo"])
            dist.all_reduce(o)
            x = x + o
            h = rms(x, L["ln2"], eps)
            gu = F.linear(h, L["wgu"])
            d = F.linear(F.silu(gu[:, :fl]) * gu[:, fl:], L["wd"])
            dist.all_reduce(d)
            x = x + d
        logits = F.linear(rms(x, norm, eps), head).float()
        nxt = logits.argmax(dim=-1)
        # Within the prompt the next token is the prompt's; after it, the pick.
        inside = (pos + 1) < plen
        follow = torch.where(inside, prompt[torch.clamp(pos + 1, max=len(PROMPT) - 1)], nxt)
        ids.index_copy_(0, pos + 1, follow)
        tok.copy_(follow)
        pos.add_(1)

    def reset():
        tok.fill_(PROMPT[0])
        pos.zero_()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):
        for _ in range(3):
            reset()
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        step()
    rates = []
    got = None
    for _ in range(args.reps + 1):
        reset()
        for _ in range(len(PROMPT) - 1):
            graph.replay()
        torch.cuda.synchronize()
        dist.barrier()
        t = time.perf_counter()
        for _ in range(args.new):
            graph.replay()
        torch.cuda.synchronize()
        rates.append(args.new / (time.perf_counter() - t))
        got = ids[len(PROMPT):len(PROMPT) + args.new].tolist()
    rates = rates[1:]
    mine = sorted(rates)[len(rates) // 2]
    t = torch.tensor([mine], dtype=torch.float64, device=dev)
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    if rank == 0:
        first = next((i for i, (a, b) in enumerate(zip(got, hf_ids)) if a != b), None)
        q.put({"case": "decode_tp", "impl": "pytorch_tp_graph", "gpus": world,
               "dtype": "bf16" if dt == torch.bfloat16 else "f32", "batch": 1,
               "prompt": len(PROMPT), "new": args.new, "tokens_per_s": float(t.item()),
               "tokens_per_s_rank0_median": mine, "ids": got,
               "hf_first_divergence": first, "gpu": torch.cuda.get_device_name(dev),
               "torch": torch.__version__,
               "via": "one process a GPU, NCCL all-reduces captured in one torch.cuda.graph "
                      "of the decode step, one replay a token"})
    dist.barrier()
    torch.cuda.synchronize()
    os._exit(0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--gpus", default=None, help="comma-separated GPU counts (default: 1 and all)")
    ap.add_argument("--new", type=int, default=128)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    n = torch.cuda.device_count()
    counts = [int(c) for c in args.gpus.split(",")] if args.gpus else sorted({1, n})
    ctx = mp.get_context("spawn")
    rows = []
    for world in counts:
        q = ctx.SimpleQueue()
        mp.start_processes(worker, args=(world, free_port(), args, q), nprocs=world, join=True,
                           start_method="spawn")
        row = q.get()
        row["model"] = os.path.basename(args.dir.rstrip("/")).split("-")[0]
        print(f"pytorch_tp_graph {world} GPU(s): {row['tokens_per_s']:.1f} tokens/s; ids first differ "
              f"from transformers' at {row['hf_first_divergence']}", flush=True)
        rows.append(row)
    if args.out:
        json.dump(rows, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
