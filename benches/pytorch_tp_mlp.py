"""A Megatron-style tensor-parallel MLP step in PyTorch, one process per GPU over NCCL: rank r
holds rows r*S..(r+1)*S of W1 and b1 and the same columns of W2 (S = INTER / gpus), computes
p = gelu_tanh(x @ W1_r.T + b1_r) @ W2_r.T, all-reduces p and returns y = x + b2 + p.
A step: write the new input into pinned host memory, copy it to the device, run the step, wait.
Measured two ways in one run: plain eager calls (pytorch_eager) and one torch.cuda.graph replay
with the H2D copy and the all_reduce captured (pytorch_graph). Every rank runs the same steps;
median_us is the slowest rank's median. Checks step 0 against a float64 NumPy forward pass of the
full, unsharded model (at most 8 rows); writes $OUT/pytorch_tp_mlp.json (else
docs/bench/raw/pytorch_tp_mlp.json).
Run: python3 benches/pytorch_tp_mlp.py [--gpus N] [--batches 1,8,32,128]"""
import os

for key, value in [("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                   ("NVSHMEM_DISABLE_NVLS", "1")]:
    os.environ.setdefault(key, value)

import argparse, json, socket, time
import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

HIDDEN, INTER = 4096, 16384
WARMUP, STEPS = 20, 200
MAX_ABS_ERR, GRAPH_EAGER_TOL = 1e-3, 1e-5


def weight(which, n, fan_in):
    i = np.arange(n, dtype=np.uint64)
    h = (i * np.uint64(2654435761) + np.uint64(which * 97)) % np.uint64(1000)
    return ((h.astype(np.float32) / np.float32(1000.0) - np.float32(0.5)) * np.float32(2.0)
            / np.float32(np.sqrt(np.float32(fan_in)))).astype(np.float32)


def inputs(step, n):
    i = np.arange(n, dtype=np.uint64)
    v = (i * np.uint64(31) + np.uint64(step * 17)) % np.uint64(101)
    return (v.astype(np.float32) / np.float32(101.0) - np.float32(0.25)).astype(np.float32)


def gelu_tanh(a):
    return 0.5 * a * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (a + 0.044715 * a ** 3)))


def worker(rank, world, port, batches):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda", rank)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, device_id=dev)

    w1 = weight(0, INTER * HIDDEN, HIDDEN).reshape(INTER, HIDDEN)
    b1 = weight(1, INTER, HIDDEN)
    w2 = weight(2, HIDDEN * INTER, INTER).reshape(HIDDEN, INTER)
    b2 = weight(3, HIDDEN, INTER)
    shard = slice(rank * (INTER // world), (rank + 1) * (INTER // world))

    def to_dev(a):
        return torch.from_numpy(np.ascontiguousarray(a)).to(dev)

    w1_r, b1_r, w2_r, b2_d = to_dev(w1[shard]), to_dev(b1[shard]), to_dev(w2[:, shard]), to_dev(b2)
    if rank == 0:
        w1_64, b1_64, w2_64, b2_64 = (a.astype(np.float64) for a in (w1, b1, w2, b2))
    del w1, w2

    def step(x):
        p = F.linear(F.gelu(F.linear(x, w1_r, b1_r), approximate="tanh"), w2_r)
        dist.all_reduce(p)
        return x + b2_d + p

    def rank_max(v):
        t = torch.tensor([v], dtype=torch.float64, device=dev)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.item()

    rows, gpu = [], torch.cuda.get_device_name(0)
    for batch in batches:
        xs = [inputs(s, batch * HIDDEN).reshape(batch, HIDDEN) for s in range(2)]
        pinned = torch.empty(batch, HIDDEN).pin_memory()
        pinned_np = pinned.numpy()

        pinned_np[...] = xs[0]
        y_eager = step(pinned.to(dev, non_blocking=True)).cpu().numpy()
        err = 0.0
        if rank == 0:
            picked = np.unique(np.linspace(0, batch - 1, min(batch, 8)).round().astype(int))
            x64 = xs[0][picked].astype(np.float64)
            want = x64 + b2_64 + gelu_tanh(x64 @ w1_64.T + b1_64) @ w2_64.T
            err = float(np.abs(y_eager[picked].astype(np.float64) - want).max())
        err = rank_max(err)
        if err > MAX_ABS_ERR:
            raise RuntimeError(f"batch {batch}: max abs error {err:.3e} vs float64 > {MAX_ABS_ERR}")

        static_x = torch.empty(batch, HIDDEN, device=dev)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                static_x.copy_(pinned, non_blocking=True)
                step(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_x.copy_(pinned, non_blocking=True)
            static_y = step(static_x)
        graph.replay()
        torch.cuda.synchronize()
        diff = rank_max(float(np.abs(static_y.cpu().numpy() - y_eager).max()))
        if diff > GRAPH_EAGER_TOL:
            raise RuntimeError(f"batch {batch}: graph differs from eager by {diff:.3e}")
        agreement = "bit-identical" if diff == 0 else f"within {diff:.1e}"

        def run_eager():
            step(pinned.to(dev, non_blocking=True))

        for impl, run in [("pytorch_eager", run_eager), ("pytorch_graph", graph.replay)]:
            times = []
            for s in range(WARMUP + STEPS):
                t = time.perf_counter()
                pinned_np[...] = xs[s % 2]
                run()
                torch.cuda.synchronize()
                times.append((time.perf_counter() - t) * 1e6)
            own = float(np.median(times[WARMUP:]))
            slowest = rank_max(own)
            if rank == 0:
                print(f"{batch:>5} {world:>4}  {impl:<14} {slowest:>10.1f} {own:>10.1f}"
                      f"  {err:.1e}  graph vs eager {agreement}")
            rows.append({"case": "tp_mlp_step", "impl": impl, "batch": batch, "gpus": world,
                         "median_us": slowest, "rank0_median_us": own, "gpu": gpu,
                         "max_abs_err": err, "graph_vs_eager_max_diff": diff,
                         "torch": torch.__version__})
        del graph, static_y

    if rank == 0:
        out = os.environ.get("OUT")
        path = os.path.join(out, "pytorch_tp_mlp.json") if out else os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "docs", "bench", "raw",
            "pytorch_tp_mlp.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)
        print("wrote", path, flush=True)
    # destroy_process_group can hang at exit on some NCCL versions once graphs captured its
    # collectives; the results are written, so every rank leaves here after a barrier.
    dist.barrier()
    torch.cuda.synchronize()
    os._exit(0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    parser.add_argument("--batches", default="1,8,32,128")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    if args.gpus < 1 or INTER % args.gpus:
        raise SystemExit(f"--gpus must be >= 1 and divide {INTER}, got {args.gpus}")
    print(f"tp_mlp_step: HIDDEN {HIDDEN}, INTER {INTER}, float32 (TF32 off), {args.gpus} GPU(s), "
          f"median of {STEPS} steps after {WARMUP}; median_us = slowest rank", flush=True)
    print(f"{'batch':>5} {'gpus':>4}  {'impl':<14} {'median_us':>10} {'rank0_us':>10}  max_err",
          flush=True)
    mp.spawn(worker, args=(args.gpus, free_port(), batches), nprocs=args.gpus, join=True)
