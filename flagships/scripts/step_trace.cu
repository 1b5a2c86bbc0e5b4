// Where the time of a decode step goes: the step graph of `llama::graph` (the same kernels,
// `kernels.cu`, the same grids and programmatic edges) built by stream capture, timed, and
// traced: block 0 of every kernel writes the global timer when its wait on the kernel before it
// returns (the `LLAMA_AFTER_WAIT` hook of `kernels.cu`), so the time from one kernel's release to
// the next one's is what that kernel costs on the step's critical path, gaps included.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I flagships/src/llama flagships/scripts/step_trace.cu -o st
//   ./st [--steps 128] [--ctx 8] [--max-ctx 4096] [--shape 1b|tiny] [--json out.json]
//
// The hook costs the step itself: measured on an H100, the 1B step took 989 µs with it compiled
// in (and off) against 975 µs without it. So the step's own time comes from a second build with
// `-DSTEP_TRACE_OFF` (no hook): it prints the tokens/s and the digest only, and its `--json`
// holds those. Compare kernels' costs between traced builds, and steps between untraced ones.
//
// Experiments on the same step (none changes the arithmetic: the digest stays): `--att-y N`
// gives the attention N blocks a head (each then loops over the chunks), `--skip-att 1` leaves
// attention out (what it costs the step), `--bps N` gives the projections at most N blocks an
// SM, `--qkv-grid`, `--o-grid`, `--up-grid`, `--down-grid N` set one projection's grid, and
// `--carveout P` sets every kernel's preferred shared-memory carveout (percent). The register
// count of each kernel is printed first. What these found is in `docs/bench/decode.md`.
//
// Weights are random (values do not change the time); bf16, batch 1, the shapes of
// `llama_hf.py`. Prints tokens/s of steps launched back to back (as `llama --bench` launches
// them), then per kernel kind the mean cost a step and a launch over the traced steps, beside
// the time its bytes take at the copy bandwidth; and a digest of the logits and tokens (two
// builds of the kernels with the same digest compute the same bits).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#define TRACE_CAP (1 << 16)
__device__ unsigned long long trace_t[TRACE_CAP];
__device__ unsigned trace_n;
__device__ unsigned trace_on;
#ifndef STEP_TRACE_OFF
#define LLAMA_AFTER_WAIT                                                                  \
  if (trace_on && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) {               \
    unsigned long long t;                                                                 \
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));                                 \
    const unsigned i = atomicAdd(&trace_n, 1u);                                           \
    if (i < TRACE_CAP) trace_t[i] = t;                                                    \
  }
#endif
#include "kernels.cu"

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

using T = __nv_bfloat16;

__global__ void fill(T* p, size_t n, float scale, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    p[i] = __float2bfloat16((((h & 0xffffff) / 16777216.f) * 2.f - 1.f) * scale);
  }
}

struct Shape {
  unsigned layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
};

static unsigned blocks_per_sm = 2;
static unsigned spread(unsigned items, unsigned sms) {
  return std::max(1u, std::min((items + 7) / 8, sms * blocks_per_sm));
}

template <typename... A, typename... P>
static void launch(cudaStream_t s, void (*k)(A...), dim3 grid, dim3 block, size_t smem,
                   P... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, k, ((A)args)...));
}

// Device-to-device copy bandwidth (bytes read and written over time) of 1 GiB, best of 5.
static double copy_gbps() {
  const size_t n = (size_t)1 << 30;
  void *a, *b;
  CK(cudaMalloc(&a, n));
  CK(cudaMalloc(&b, n));
  CK(cudaMemset(a, 1, n));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int r = 0; r < 6; r++) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r) best = std::min(best, ms);
  }
  CK(cudaFree(a));
  CK(cudaFree(b));
  return 2.0 * n / (best / 1e3) / 1e9;
}

// A digest of the last step's logits and the tokens made: equal digests, equal arithmetic.
static unsigned long long digest(const float* logits, const unsigned* ids, unsigned vocab,
                                 unsigned max_ctx, unsigned start, unsigned steps) {
  std::vector<unsigned> lg(vocab), tok(max_ctx);
  CK(cudaMemcpy(lg.data(), logits, vocab * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tok.data(), ids, max_ctx * 4, cudaMemcpyDeviceToHost));
  unsigned long long hsh = 1469598103934665603ull;
  for (unsigned v : lg) hsh = (hsh ^ v) * 1099511628211ull;
  for (unsigned i = start + 1; i <= start + steps && i < max_ctx; i++)
    hsh = (hsh ^ tok[i]) * 1099511628211ull;
  return hsh;
}

int main(int argc, char** argv) {
  Shape s = {16, 2048, 32, 8, 64, 8192, 128256};
  unsigned steps = 128, ctx = 8, max_ctx = 4096;
  const char* json = nullptr;
  // Experiments (see the header): one shared-memory carveout for every kernel, the attention's
  // chunks a head (0: every chunk of the cache, as the graphs give it), no attention at all
  // (what it costs), the projections' blocks an SM and their grids (0: `spread`).
  int carveout = -1;
  unsigned att_y = 0, skip_att = 0, g_qkv = 0, g_o = 0, g_up = 0, g_down = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--steps")) steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--ctx")) ctx = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--max-ctx")) max_ctx = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--shape") && !strcmp(argv[i + 1], "tiny"))
      s = {8, 1024, 16, 4, 64, 2816, 32000};
    else if (!strcmp(argv[i], "--json")) json = argv[i + 1];
    else if (!strcmp(argv[i], "--carveout")) carveout = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--bps")) blocks_per_sm = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--att-y")) att_y = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--skip-att")) skip_att = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--qkv-grid")) g_qkv = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--o-grid")) g_o = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--up-grid")) g_up = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--down-grid")) g_down = atoi(argv[i + 1]);
  }
  int dev = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  const unsigned qkv_rows = (s.heads + 2 * s.kv_heads) * s.head_dim, qd = s.heads * s.head_dim;
  const unsigned kvd = s.kv_heads * s.head_dim, max_chunks = (max_ctx + CHUNK - 1) / CHUNK;
  const unsigned parts = spread(s.vocab, sms);
  std::vector<void*> owned;
  auto alloc = [&](size_t bytes) {
    void* p;
    CK(cudaMalloc(&p, bytes));
    CK(cudaMemset(p, 0, bytes));
    owned.push_back(p);
    return p;
  };
  auto weights = [&](size_t n, float scale, unsigned seed) {
    T* p = (T*)alloc(n * sizeof(T));
    fill<<<1024, 256>>>(p, n, scale, seed);
    return p;
  };
  const size_t L = s.layers;
  T* embed = weights((size_t)s.vocab * s.hidden, 0.03f, 1);
  T* attn_norm = weights(L * s.hidden, 0.f, 0);
  T* wqkv = weights(L * qkv_rows * s.hidden, 0.03f, 2);
  T* wo = weights(L * s.hidden * qd, 0.03f, 3);
  T* mlp_norm = weights(L * s.hidden, 0.f, 0);
  T* wgu = weights(L * 2 * s.ffn * s.hidden, 0.03f, 4);
  T* wdown = weights(L * s.hidden * s.ffn, 0.03f, 5);
  T* final_norm = weights(s.hidden, 0.f, 0);
  T* cos_t = weights((size_t)max_ctx * s.head_dim / 2, 1.f, 6);
  T* sin_t = weights((size_t)max_ctx * s.head_dim / 2, 1.f, 7);
  T* kc = weights(L * max_ctx * kvd, 1.f, 8);
  T* vc = weights(L * max_ctx * kvd, 1.f, 9);
  T* x = weights(s.hidden, 1.f, 10);
  T* q = (T*)alloc(qd * sizeof(T));
  T* att = (T*)alloc(qd * sizeof(T));
  T* h = (T*)alloc(s.ffn * sizeof(T));
  float* part_o = (float*)alloc((size_t)s.heads * max_chunks * s.head_dim * 4);
  float* part_ml = (float*)alloc((size_t)s.heads * max_chunks * 2 * 4);
  unsigned* done = (unsigned*)alloc(s.heads * 4);
  float* logits = (float*)alloc((size_t)s.vocab * 4);
  float* best = (float*)alloc(parts * 4);
  unsigned* best_at = (unsigned*)alloc(parts * 4);
  unsigned* ids = (unsigned*)alloc(max_ctx * 4);
  unsigned* dpos = (unsigned*)alloc(4);
  // Norm weights of one (a `fill` of scale 0 gives zeros).
  {
    std::vector<T> ones(L * s.hidden, __float2bfloat16(1.f));
    CK(cudaMemcpy(attn_norm, ones.data(), L * s.hidden * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(mlp_norm, ones.data(), L * s.hidden * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(final_norm, ones.data(), s.hidden * sizeof(T), cudaMemcpyHostToDevice));
  }
  const float eps = 1e-5f, scale = 0.125f;
  const unsigned counter = 1, pos = 0, prompt_len = ctx;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaFuncSetAttribute(llama::matvec_add<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          s.ffn * 2));
  // One shared-memory carveout for every kernel of the step (percent; -1: the driver's
  // choice for each).
  if (carveout >= 0) {
    for (const void* f :
         {(const void*)llama::matvec_add<T>, (const void*)llama::qkv_rope<T>,
          (const void*)llama::norm_gate_up<T>, (const void*)llama::norm_head<T>,
          (const void*)llama::attention<T>, (const void*)llama::embed<T>,
          (const void*)llama::argmax_step}) {
      CK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    }
  }
  // The step, as `llama::graph` builds it (counter mode: the position is read from `dpos`).
  auto step = [&]() {
    launch(st, llama::embed<T>, dim3((s.hidden + 255) / 256), dim3(256), 0, embed, ids, dpos, x,
           s.hidden, s.vocab, pos, counter, max_ctx);
    for (size_t l = 0; l < L; l++) {
      T* kl = kc + l * max_ctx * kvd;
      T* vl = vc + l * max_ctx * kvd;
      launch(st, llama::qkv_rope<T>, dim3(g_qkv ? g_qkv : spread(qkv_rows / 2, sms)), dim3(256),
             s.hidden * 4, x, attn_norm + l * s.hidden, wqkv + l * qkv_rows * s.hidden, cos_t,
             sin_t, q, kl, vl, dpos, pos, counter, max_ctx, s.hidden, s.heads, s.kv_heads,
             s.head_dim, eps);
      if (!skip_att) {
        launch(st, llama::attention<T>, dim3(s.heads, att_y ? att_y : max_chunks),
               dim3(ATT_WARPS * WARP), 0, q, kl, vl, part_o, part_ml, done, att, dpos, pos,
               counter, max_ctx, s.heads, s.kv_heads, s.head_dim, max_chunks, scale);
      }
      launch(st, llama::matvec_add<T>, dim3(g_o ? g_o : spread(s.hidden, sms)), dim3(256), qd * 2,
             wo + l * s.hidden * qd, att, x, qd, s.hidden);
      launch(st, llama::norm_gate_up<T>, dim3(g_up ? g_up : spread(s.ffn, sms)), dim3(256),
             s.hidden * 4, x, mlp_norm + l * s.hidden, wgu + l * 2 * s.ffn * s.hidden, h,
             s.hidden, s.ffn, eps);
      launch(st, llama::matvec_add<T>, dim3(g_down ? g_down : spread(s.hidden, sms)), dim3(256),
             s.ffn * 2, wdown + l * s.hidden * s.ffn, h, x, s.ffn, s.hidden);
    }
    launch(st, llama::norm_head<T>, dim3(parts), dim3(256), s.hidden * 4, x, final_norm, embed,
           logits, best, best_at, s.hidden, s.vocab, eps);
    launch(st, llama::argmax_step, dim3(1), dim3(1024), 0, best, best_at, parts, ids, dpos, pos,
           counter, prompt_len, max_ctx);
  };
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  step();
  CK(cudaStreamEndCapture(st, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  {
    cudaFuncAttributes fa;
    const std::pair<const char*, const void*> fs[] = {
        {"qkv", (const void*)llama::qkv_rope<T>}, {"attention", (const void*)llama::attention<T>},
        {"matvec_add", (const void*)llama::matvec_add<T>},
        {"gate_up", (const void*)llama::norm_gate_up<T>},
        {"head", (const void*)llama::norm_head<T>}};
    printf("registers a thread:");
    for (auto& f : fs) {
      CK(cudaFuncGetAttributes(&fa, f.second));
      printf(" %s %d%s", f.first, fa.numRegs, fa.localSizeBytes ? " (spills)" : "");
    }
    printf("\n");
  }
  // A layer's kernels.
  std::vector<std::string> layer_kinds = {"qkv", "attention", "o_proj", "mlp_up", "mlp_down"};
  if (skip_att) layer_kinds.erase(layer_kinds.begin() + 1);
  const unsigned per_layer = layer_kinds.size();
  const unsigned kernels_per_step = 3 + per_layer * s.layers;
  const unsigned start = ctx - 1;
  auto run = [&](bool trace) {
    unsigned on = trace, zero = 0;
    CK(cudaMemcpyToSymbol(trace_on, &on, 4));
    CK(cudaMemcpyToSymbol(trace_n, &zero, 4));
    CK(cudaMemcpy(dpos, &start, 4, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a, st));
    for (unsigned i = 0; i < steps; i++) CK(cudaGraphLaunch(ge, st));
    CK(cudaEventRecord(b, st));
    CK(cudaStreamSynchronize(st));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  };
  run(false);
  float best_ms = 1e30f;
  for (int r = 0; r < 5; r++) best_ms = std::min(best_ms, run(false));
  printf("%s, %u SMs: %u steps from position %u: %.1f tokens/s (%.1f us a step)\n", prop.name,
         sms, steps, start, steps / (best_ms / 1e3), best_ms * 1e3 / steps);
  // The JSON file of `--json` with the fields of every build written (the caller adds the
  // rest and the closing brace), or null when it cannot be written.
  const auto json_head = [&]() -> FILE* {
    FILE* f = fopen(json, "w");
    if (!f) {
      fprintf(stderr, "cannot write %s\n", json);
      return nullptr;
    }
    fprintf(f, "{\"gpu\": \"%s\", \"shape\": \"%s\", \"position\": %u, \"steps\": %u, "
               "\"tokens_per_s\": %.3f, \"us_per_step\": %.3f",
            prop.name, s.layers == 16 ? "1b" : "tiny", start, steps, steps / (best_ms / 1e3),
            best_ms * 1e3 / steps);
    return f;
  };
#ifdef STEP_TRACE_OFF
  // No hook: the step's own time and the digest only.
  const unsigned long long dg = digest(logits, ids, s.vocab, max_ctx, start, steps);
  printf("digest %016llx\n", dg);
  if (json) {
    FILE* f = json_head();
    if (!f) return 1;
    fprintf(f, ", \"digest\": \"%016llx\"}\n", dg);
    fclose(f);
  }
  for (void* p : owned) CK(cudaFree(p));
  return 0;
#endif
  const float traced_ms = run(true);
  unsigned n;
  CK(cudaMemcpyFromSymbol(&n, trace_n, 4));
  std::vector<unsigned long long> t(std::min(n, (unsigned)TRACE_CAP));
  CK(cudaMemcpyFromSymbol(t.data(), trace_t, t.size() * 8));
  printf("traced: %.1f us a step (the trace's own cost included), %u records\n",
         traced_ms * 1e3 / steps, n);
  if (t.size() != (size_t)steps * kernels_per_step) {
    printf("expected %u records\n", steps * kernels_per_step);
    return 1;
  }
  std::sort(t.begin(), t.end());
  std::vector<std::string> kinds = {"embed"};
  kinds.insert(kinds.end(), layer_kinds.begin(), layer_kinds.end());
  kinds.push_back("head");
  kinds.push_back("argmax");
  std::map<std::string, double> cost;
  std::map<std::string, unsigned> count;
  // Steps 8 .. steps - 1 (the first few warm the caches); each kernel's cost is the time from
  // its release to the next kernel's (the next step's first for the last one).
  const unsigned first = 8;
  for (unsigned st_i = first; st_i + 1 < steps; st_i++) {
    for (unsigned k = 0; k < kernels_per_step; k++) {
      const size_t i = (size_t)st_i * kernels_per_step + k;
      const std::string kind = k == 0                      ? std::string("embed")
                               : k == kernels_per_step - 2 ? std::string("head")
                               : k == kernels_per_step - 1 ? std::string("argmax")
                                                           : layer_kinds[(k - 1) % per_layer];
      cost[kind] += (double)(t[i + 1] - t[i]);
      count[kind]++;
    }
  }
  const double nsteps = steps - 1 - first;
  double total = 0;
  for (auto& kv : cost) total += kv.second;
  // Bytes each kind reads a step (weights; the keys and values of the positions so far), and
  // the time they take at the copy bandwidth: what the kernel would cost with no gap.
  const double e = sizeof(T), mid = start + steps / 2.0;
  std::map<std::string, double> bytes = {
      {"embed", s.hidden * e},
      {"qkv", L * ((double)qkv_rows * s.hidden + s.hidden) * e},
      {"attention", L * (mid + 1) * kvd * 2 * e},
      {"o_proj", L * (double)s.hidden * qd * e},
      {"mlp_up", L * (2.0 * s.ffn * s.hidden + s.hidden) * e},
      {"mlp_down", L * (double)s.hidden * s.ffn * e},
      {"head", ((double)s.vocab * s.hidden + s.hidden) * e},
      {"argmax", parts * 8.0}};
  const double gbps = copy_gbps();
  printf("copy bandwidth %.0f GB/s\n", gbps);
  printf("%-10s %12s %12s %8s %14s\n", "kernel", "us a step", "us a launch", "share",
         "floor us/step");
  for (const std::string& k : kinds) {
    if (!count[k]) continue;
    printf("%-10s %12.1f %12.2f %7.1f%% %14.1f\n", k.c_str(), cost[k] / 1e3 / nsteps,
           cost[k] / 1e3 / count[k], 100 * cost[k] / total, bytes[k] / gbps / 1e3);
  }
  double all_bytes = 0;
  for (const std::string& k : kinds) all_bytes += bytes[k];
  printf("%-10s %12.1f %12s %8s %14.1f\n", "step", total / 1e3 / nsteps, "", "",
         all_bytes / gbps / 1e3);
  if (json) {
    FILE* f = json_head();
    if (!f) return 1;
    fprintf(f, ", \"traced_us_per_step\": %.3f, \"copy_gbps\": %.3f, \"kernels\": [",
            total / 1e3 / nsteps, gbps);
    for (size_t i = 0; i < kinds.size(); i++) {
      const std::string& k = kinds[i];
      fprintf(f, "%s{\"kernel\": \"%s\", \"launches_per_step\": %.0f, \"us_per_step\": %.3f, "
                 "\"bytes_per_step\": %.0f, \"floor_us_per_step\": %.3f}",
              i ? ", " : "", k.c_str(), count[k] / nsteps, cost[k] / 1e3 / nsteps, bytes[k],
              bytes[k] / gbps / 1e3);
    }
    fprintf(f, "]}\n");
    fclose(f);
  }
  printf("digest %016llx\n", digest(logits, ids, s.vocab, max_ctx, start, steps));
  for (void* p : owned) CK(cudaFree(p));
  return 0;
}
