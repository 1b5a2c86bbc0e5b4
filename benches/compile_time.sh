#!/usr/bin/env bash
# Compile-time cost of `cuda_graph!`: builds a crate holding one chain graph of 10, 100, 500,
# 1000, 2000 and 10000 nodes (debug profile, dependencies already built) and times the rebuild of that crate alone.
# Host only. Writes docs/bench/raw/compile.json. Run from the project root:
#   bash benches/compile_time.sh
set -euo pipefail
root=$(pwd)
work="$root/target/compile-bench"
mkdir -p "$work/src"
cat > "$work/Cargo.toml" <<TOML
[package]
name = "compile-bench"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
cuda-graph = { path = "$root" }
[workspace]
TOML
gen() {
  python3 - "$1" > "$work/src/lib.rs" <<'PY'
import sys
n = int(sys.argv[1])
print("cuda_graph::cuda_graph! {\n    pub graph Chain {")
print("        kernel tiny(y: &mut [f32], offset: u32, a: f32);\n        buffer mut y: f32;\n        param a: f32;")
for i in range(n):
    print(f"        k{i} = tiny<<<1, 32>>>(y, 0, a);")
print("        " + " -> ".join(f"k{i}" for i in range(n)) + ";\n    }\n}")
PY
}
export CARGO_TARGET_DIR="$work/target"
gen 10
(cd "$work" && cargo build -q)   # dependencies, once
rows=()
for n in ${SIZES:-10 100 500 1000 2000 10000}; do
  gen "$n"
  times=()
  for rep in 1 2 3; do
    touch "$work/src/lib.rs"
    start=$(date +%s%N)
    (cd "$work" && cargo build -q)
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  echo "crate build  chain $n nodes  ${median} us"
  rows+=("  {\"case\": \"compile\", \"shape\": \"chain\", \"nodes\": $n, \"impl\": \"cuda_graph\", \"via\": \"crate build (debug)\", \"median_us\": $median, \"reps\": 3, \"gpu\": \"none (host)\"}")
done
out=${OUT_JSON:-$root/docs/bench/raw/compile.json}
mkdir -p "$(dirname "$out")"
{ echo "["; (IFS=$'\n'; echo "${rows[*]}" | sed '$!s/$/,/'); echo "]"; } > "$out"
echo "wrote $out"
