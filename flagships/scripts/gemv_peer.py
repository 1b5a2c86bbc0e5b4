"""The matrix-vector products of one decode step, batch 1, through cuBLAS (PyTorch's
`F.linear` on bf16: cuBLAS or cuBLASLt picks the kernel), timed the way the step graph runs
them: replayed from a CUDA graph, over enough copies of each weight that none is in L2 when
it is read. Prints one JSON row per product (microseconds per call, TB/s of weights read).

    python3 flagships/scripts/gemv_peer.py [--shape 1b|tiny] [--out rows.json]

Compare with the step graph's kernels measured by ncu in the same run (they also fuse the
RMSNorm, the rotary embedding, SwiGLU or the residual add).
"""
import argparse
import json

import torch
import torch.nn.functional as F

SHAPES = {
    # name: [(product, rows, cols)]
    "1b": [("qkv", 3072, 2048), ("o_proj", 2048, 2048), ("gate_up", 16384, 2048),
           ("down", 2048, 8192), ("head", 128256, 2048)],
    "tiny": [("qkv", 1536, 1024), ("o_proj", 1024, 1024), ("gate_up", 5632, 1024),
             ("down", 1024, 2816), ("head", 32000, 1024)],
}


def time_product(rows, cols, calls=64, reps=20):
    # Enough copies that their bytes are several times the L2 (50 MB on an H100).
    per = rows * cols * 2
    copies = max(2, -(-400_000_000 // per))
    w = [torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
    x = torch.randn(1, cols, device="cuda", dtype=torch.bfloat16)
    outs = [None] * calls
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(3):
            F.linear(x, w[i % copies])
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            outs[i] = F.linear(x, w[i % copies])
    g.replay()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b) * 1e3 / calls)
    ref = (x.float() @ w[(calls - 1) % copies].float().T)
    err = (outs[-1].float() - ref).abs().max().item()
    return best, per / (best * 1e-6) / 1e12, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=SHAPES, default="1b")
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    gpu = torch.cuda.get_device_name()
    for name, r, c in SHAPES[args.shape]:
        us, tbs, err = time_product(r, c)
        row = {"case": "gemv_peer", "model": args.shape, "product": name, "rows": r, "cols": c,
               "impl": "cublas_f_linear", "us_per_call": us, "tb_per_s": tbs, "max_err": err,
               "gpu": gpu}
        print(json.dumps(row))
        rows.append(row)
    if args.out:
        json.dump(rows, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
