"""The MLP step of benches/mlp.rs in PyTorch: the same shapes, weights and inputs (the formulas
of flagships/src/mlp.rs), captured with torch.cuda.graph (the input copied from pinned host
memory inside the graph). A step: write the new input into pinned memory, replay, wait.
Checks the output against a float64 NumPy forward pass; writes $OUT/pytorch_mlp.json (else
docs/bench/raw/pytorch_mlp.json)."""
import json, os, time
import numpy as np
import torch

IN, H1, H2, OUT = 512, 1024, 1024, 256
DIMS = [(IN, H1), (H1, H2), (H2, OUT)]
torch.backends.cuda.matmul.allow_tf32 = False


def weight(which, n, fan_in):
    i = np.arange(n, dtype=np.uint64)
    h = (i * np.uint64(2654435761) + np.uint64(which * 97)) % np.uint64(1000)
    return ((h.astype(np.float32) / np.float32(1000.0) - np.float32(0.5)) * np.float32(2.0)
            / np.float32(np.sqrt(np.float32(fan_in)))).astype(np.float32)


def inputs(step, n):
    i = np.arange(n, dtype=np.uint64)
    v = (i * np.uint64(31) + np.uint64(step * 17)) % np.uint64(101)
    return (v.astype(np.float32) / np.float32(101.0) - np.float32(0.25)).astype(np.float32)


ws = [weight(2 * l, i * o, i).reshape(o, i) for l, (i, o) in enumerate(DIMS)]
bs = [weight(2 * l + 1, o, i) for l, (i, o) in enumerate(DIMS)]


def reference(x):
    a = x.astype(np.float64)
    for l in range(3):
        a = a @ ws[l].astype(np.float64).T + bs[l].astype(np.float64)
        if l < 2:
            a = np.maximum(a, 0.0)
    return a


dev = torch.device("cuda")
W = [torch.from_numpy(w).to(dev) for w in ws]
B = [torch.from_numpy(b).to(dev) for b in bs]


def model(x):
    h = torch.relu(torch.nn.functional.linear(x, W[0], B[0]))
    h = torch.relu(torch.nn.functional.linear(h, W[1], B[1]))
    return torch.nn.functional.linear(h, W[2], B[2])


rows = []
gpu = torch.cuda.get_device_name(0)
for batch in [1, 32, 256]:
    xs = [torch.from_numpy(inputs(s, batch * IN).reshape(batch, IN)) for s in range(2)]
    pinned = torch.empty(batch, IN).pin_memory()
    static_x = torch.empty(batch, IN, device=dev)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            static_x.copy_(pinned, non_blocking=True)
            model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_x.copy_(pinned, non_blocking=True)
        static_y = model(static_x)
    times = {"pytorch_graph": [], "pytorch_eager": []}
    # Steps for 200 ms (and at least 20) before any is kept, as benches/mlp.rs does, so that
    # the GPU's clocks have left the idle state; then 280 are kept.
    warm = time.perf_counter()
    step = 0
    while len(times["pytorch_graph"]) < 280:
        x = xs[step % 2]
        t = time.perf_counter()
        pinned.copy_(x)
        g.replay()
        torch.cuda.synchronize()
        tg = (time.perf_counter() - t) * 1e6
        t = time.perf_counter()
        pinned.copy_(x)
        y_eager = model(pinned.to(dev, non_blocking=True))
        torch.cuda.synchronize()
        te = (time.perf_counter() - t) * 1e6
        if step >= 20 and time.perf_counter() - warm >= 0.2:
            times["pytorch_graph"].append(tg)
            times["pytorch_eager"].append(te)
        step += 1
    # Where a step goes: the host's write alone, the replay alone (launch and wait).
    tw, tr = [], []
    for step in range(200):
        x = xs[step % 2]
        t = time.perf_counter()
        pinned.copy_(x)
        tw.append((time.perf_counter() - t) * 1e6)
        t = time.perf_counter()
        g.replay()
        torch.cuda.synchronize()
        tr.append((time.perf_counter() - t) * 1e6)
    print(f"batch {batch}: host write {np.median(tw):.1f} us, replay+wait {np.median(tr):.1f} us")
    last = xs[199 % 2].numpy()
    want = reference(last)
    scale = max(np.abs(want).max(), 1e-6)
    err = np.abs(static_y.cpu().numpy().astype(np.float64) - want).max() / scale
    assert err < 1e-4, f"batch {batch}: relative error {err}"
    for imp, v in times.items():
        med = float(np.median(v))
        print(f"batch {batch}: {imp} {med:.1f} us (max rel error vs float64 {err:.1e})")
        rows.append({"case": "mlp_step", "shape": f"batch{batch}", "nodes": batch, "impl": imp,
                     "via": "write pinned input + replay + wait, 280 steps after 200 ms of warm-up", "median_us": med,
                     "max_rel_error": float(err), "gpu": gpu, "torch": torch.__version__})
out = os.environ.get("OUT")
path = os.path.join(out, "pytorch_mlp.json") if out else os.path.join(
    os.path.dirname(__file__), "..", "docs", "bench", "raw", "pytorch_mlp.json")
with open(path, "w") as f:
    json.dump(rows, f, indent=1)
print("wrote", path)
