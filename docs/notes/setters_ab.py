#!/usr/bin/env python3
# A/B of builds of `benches/graphs` on the setters alone, on a GPU machine: for each label,
# `.devrun/LABEL/graphs` (a stripped bench binary) runs the benchmark's setter measurement the
# way its own child processes do (CUDA_GRAPH_BENCH_SETTERS=SHAPE:NODES:RAW_FIRST, both orders
# per cell, eight cells), binaries alternated round by round; prints cuda-graph's median over
# the floor's per cell and writes $OUT/sab.json (how the node setter's inlining was measured:
# docs/bench/live-edits.md).
#
#   python3 docs/notes/setters_ab.py ROUNDS LABEL...
import json, os, statistics as st, subprocess, sys, time
rounds = int(sys.argv[1]); labels = sys.argv[2:]
out = os.environ.get("OUT", "/tmp")
cells = [(s, n) for s in ("chain", "fanout") for n in (10, 100, 1000, 10000)]
res = []
for r in range(rounds):
    order = labels[r % len(labels):] + labels[:r % len(labels)]
    for l in order:
        t0 = time.time()
        row = {"label": l, "round": r, "cells": {}}
        for s, n in cells:
            pooled = [[] for _ in range(8)]
            for rf in (0, 1):
                env = dict(os.environ, CUDA_GRAPH_BENCH_SETTERS=f"{s}:{n}:{rf}")
                p = subprocess.run([f".devrun/{l}/graphs"], env=env, capture_output=True, text=True)
                line = next((x for x in p.stdout.splitlines() if x.startswith("SAMPLES ")), None)
                if line is None:
                    print("no samples", l, s, n, rf, p.returncode, p.stderr[-500:]); continue
                for i, part in enumerate(line[8:].split(";")):
                    pooled[i] += [float(v) for v in part.split(",") if v]
            med = [st.median(x) if x else float("nan") for x in pooled]
            row["cells"][f"{s}{n}"] = {"node": med[1] / med[0], "own": med[5] / med[4],
                                      "graph": med[3] / med[2], "gown": med[7] / med[6],
                                      "raw_us": med[0], "rawown_us": med[4]}
        res.append(row)
        c = row["cells"]
        print(f"r{r} {l:5s} {time.time()-t0:5.1f}s node " + " ".join(f"{c[k]['node']:.3f}" for k in c)
              + " | own " + " ".join(f"{c[k]['own']:.3f}" for k in c), flush=True)
json.dump(res, open(os.path.join(out, "sab.json"), "w"), indent=1)
for l in labels:
    rows = [x for x in res if x["label"] == l]
    for key in ("node", "own", "graph", "gown"):
        v = [x["cells"][k][key] for x in rows for k in x["cells"]]
        print(f"{l:5s} {key:5s} mean {st.mean(v):.4f} max {max(v):.3f} over1.05 {sum(a > 1.05 for a in v)}/{len(v)}")
