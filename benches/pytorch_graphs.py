"""The PyTorch side of the benchmark: the same chains and fan-outs, captured with
torch.cuda.graph, running the same CUDA C source as the Rust benchmark (a CuPy RawKernel
launched on torch's capture stream), so GPU work is equal and only the graph mechanics differ.

Changing one scalar the PyTorch way: the kernel reads it from a static tensor (`tiny_ptr`), the
step copies the new value into it and replays the graph. A fan-out is captured on one stream,
so it runs as a sequence (as with cudarc's capture).

Run on a GPU machine: `python3 benches/pytorch_graphs.py [OUT_DIR]`; writes pytorch.json.
"""

import json
import os
import statistics
import sys
import time

import cupy as cp
import torch

SIZES = [10, 100, 1000, 10000]
HERE = os.path.dirname(os.path.abspath(__file__))


def node(shape, i, n):
    if shape == "chain":
        return 0
    return 0 if i in (0, n - 1) else i * 32


def measure(once, n):
    reps, budget = (5 if n >= 10000 else 9), 0.25
    times, start = [], time.perf_counter()
    while len(times) < reps or (time.perf_counter() - start < budget and len(times) < 2000):
        times.append(once())
    return statistics.median(times) * 1e6, len(times)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "docs", "bench", "raw")
    src = open(os.path.join(HERE, "kernels", "bench.cu")).read()
    module = cp.RawModule(code=src)
    tiny_ptr = module.get_function("tiny_ptr")
    gpu = torch.cuda.get_device_name(0)
    rows = []

    def push(case, shape, n, m, note):
        print(f"{case:<18} {shape:<7} {n:>6} pytorch         {m[0]:>12.2f} us  ({m[1]} runs)", flush=True)
        rows.append({"case": case, "shape": shape, "nodes": n, "impl": "pytorch", "via": note,
                     "median_us": round(m[0], 3), "reps": m[1], "gpu": gpu})

    for shape in ("chain", "fanout"):
        for n in SIZES:
            y = torch.zeros(n * 32 + 32, device="cuda")
            a = torch.ones(1, device="cuda")
            y_cp, a_cp = cp.asarray(y), cp.asarray(a)

            def body():
                with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
                    for i in range(n):
                        tiny_ptr((1,), (32,), (y_cp, cp.uint32(node(shape, i, n)), a_cp))

            def capture():
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    body()
                return g

            # warm-up (torch's graph pool, CuPy's module load)
            torch.cuda.synchronize()
            capture().replay()
            torch.cuda.synchronize()

            def build_once():
                torch.cuda.synchronize()
                t = time.perf_counter()
                g = capture()
                d = time.perf_counter() - t
                del g
                return d

            push("build", shape, n, measure(build_once, n), "capture + instantiate")
            g = capture()
            g.replay()
            torch.cuda.synchronize()

            def launch_once():
                t = time.perf_counter()
                g.replay()
                torch.cuda.synchronize()
                return time.perf_counter() - t

            push("launch", shape, n, measure(launch_once, n), "replay")
            flip = [0]

            def change_once():
                flip[0] ^= 1
                t = time.perf_counter()
                a.fill_(0.5 if flip[0] else 1.0)
                g.replay()
                torch.cuda.synchronize()
                return time.perf_counter() - t

            push("change_one_scalar", shape, n, measure(change_once, n), "fill_ static tensor + replay")
            del g, y, a, y_cp, a_cp
            torch.cuda.empty_cache()

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "pytorch.json")
    with open(path, "w") as f:
        json.dump(rows, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main()
