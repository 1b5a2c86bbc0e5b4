#!/usr/bin/env python3
"""Every CUDA source of the repository compiled to machine code in CI, or listed and why.

Usage: kernel_sources.py RECORD
RECORD: the file the tests wrote with CUDA_GRAPH_CHECK_RECORD set (a line `sm_90<TAB>path`
per source compiled). The list of what is left out is `.ci/kernel-sources`.
"""
import os
import re
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
SKIP_DIRS = {".git", "target", ".gpu", ".whl"}
ARCHS = ("sm_90", "sm_80")


def rel(p):
    return os.path.relpath(os.path.realpath(p), ROOT)


def sources():
    out = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
        out += [rel(os.path.join(d, f)) for f in files if f.endswith((".cu", ".cuh"))]
    return sorted(out)


def includes(path, seen):
    """The files `path` includes with `#include "..."`, found beside it, transitively."""
    if path in seen:
        return
    seen.add(path)
    try:
        text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    except OSError:
        return
    for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
        inc = rel(os.path.join(ROOT, os.path.dirname(path), name))
        if os.path.exists(os.path.join(ROOT, inc)):
            includes(inc, seen)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    compiled = {}
    try:
        for line in open(sys.argv[1], encoding="utf-8"):
            arch, _, path = line.rstrip("\n").partition("\t")
            compiled.setdefault(rel(path), set()).add(arch)
    except OSError as e:
        sys.exit(f"kernel sources: cannot read the record {sys.argv[1]}: {e}")
    if not compiled:
        sys.exit("kernel sources: the tests compiled no CUDA source (is NVRTC installed?)")
    listed = {}
    for n, line in enumerate(open(os.path.join(ROOT, ".ci/kernel-sources"), encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [x.strip() for x in line.split("|")]
        if len(parts) != 3 or parts[1] not in ("all", "sm_80") or not parts[2]:
            sys.exit(f".ci/kernel-sources:{n}: write `path | all or sm_80 | why`")
        listed[parts[0]] = parts[1]
    all_sources = sources()

    def wanted(path):
        left = listed.get(path)
        return set() if left == "all" else {"sm_90"} if left == "sm_80" else set(ARCHS)

    want = {p: wanted(p) for p in all_sources if p.endswith(".cu")}
    # A header is compiled through the files that include it, for their architectures, and is
    # wanted for what those are wanted for (both, for one that no file includes).
    header_want = {}
    for path in list(want):
        seen = set()
        includes(path, seen)
        for inc in seen - {path}:
            compiled.setdefault(inc, set()).update(compiled.get(path, set()))
            header_want.setdefault(inc, set()).update(want[path])
    for p in all_sources:
        if p.endswith(".cuh"):
            want[p] = wanted(p) & header_want.get(p, set(ARCHS)) if p in listed else header_want.get(p, set(ARCHS))
    errors = []
    for path in all_sources:
        got = compiled.get(path, set())
        for arch in sorted(want[path] - got):
            errors.append(f"{path}: compiled by no test for {arch}; compile it in a test "
                          "(a graph's `check_source`, or `cuda_graph::check::source`), "
                          "or list it in .ci/kernel-sources with why")
        if listed.get(path) == "sm_80" and "sm_80" in got:
            errors.append(f"{path}: listed as left out for sm_80 in .ci/kernel-sources, "
                          "but a test compiles it for sm_80: take it off the list")
    for path in listed:
        if path not in all_sources:
            errors.append(f".ci/kernel-sources names {path}, which is not in the repository")
    for e in errors:
        print(f"kernel sources: {e}", file=sys.stderr)
    if errors:
        sys.exit(1)
    n = sum(1 for p in all_sources if listed.get(p) != "all")
    print(f"kernel sources: {n} of {len(all_sources)} compiled to machine code "
          f"({len(listed)} listed in .ci/kernel-sources)")


if __name__ == "__main__":
    main()
