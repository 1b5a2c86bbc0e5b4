// The kernels of the Llama decoder (`llama::graph`, `llama::loop_graph`): one token's step,
// batch 1, five kernels a layer (the query, key and value projections with the rotary
// embedding and the cache write; attention; the output projection; the gate and up
// projections; the down projection), the head and the greedy pick; the start and the pick of
// the generation loop; in `project.cuh`, the row-split projections; and, in `prefill.cuh`,
// the prefill of the prompt's rows.
//
// Every kernel is a template over the model's element type `T` (`float` or `__nv_bfloat16`):
// weights, the KV cache and the activations between kernels are stored as `T`, arithmetic is
// in float. Where Hugging Face `transformers` keeps a `T` tensor between two operations, the
// value is rounded to `T` at the same place (`rnd<T>`), so a bf16 model here computes what the
// bf16 model there computes, up to the order of float additions.
//
// The position of the token being decoded is either a kernel argument (`pos`, set on the
// executable graph before each step) or read from the device (`*dpos`, advanced by the last
// kernel of the step, so steps can be launched back to back): `counter` says which.
//
// The graph's edges are programmatic (programmatic dependent launch): a kernel's blocks may
// start while the kernel before it still runs. Every kernel waits for that one
// (`griddepcontrol.wait`) before it reads anything the step writes, then lets the next one
// start; the projection kernels first put their first weights on the way (weights are never
// written, which the macro checks), so those loads overlap the previous kernel's last blocks
// and the RMSNorm of the input.
#include "stream.cuh"

// Conditional nodes: a kernel sets the value of a condition with cudaGraphSetConditional.
// cuda-graph's device API declares both; declared here as well, identically, as a kernel file
// that is also built elsewhere may do.
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(
    cudaGraphConditionalHandle handle, unsigned int value);

// Positions one block of `attention` covers (32 a warp).
#define CHUNK 128
// The largest head size: what `attention` keeps in shared memory.
#define MAX_HEAD_DIM 128
// Warps of an `attention` block: each takes CHUNK / ATT_WARPS positions of its chunk.
#define ATT_WARPS 4
// NVRTC has no <math.h>: minus infinity from its bits.
#define NEG_INF __int_as_float(0xff800000)

namespace llama {

// Programmatic dependent launch: wait for the predecessor's writes, then let the successor
// launch (it waits for this kernel in turn). Called by every kernel before it reads anything
// but weights.
__device__ __forceinline__ void pdl_start() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
#ifdef LLAMA_AFTER_WAIT
  // A tracing hook (`scripts/step_trace.cu`): nothing unless defined.
  LLAMA_AFTER_WAIT
#endif
  asm volatile("griddepcontrol.launch_dependents;");
}

// The position being decoded.
__device__ __forceinline__ unsigned position(const unsigned* dpos, unsigned pos, unsigned counter,
                                             unsigned max_ctx) {
  unsigned p = counter ? *dpos : pos;
  return p < max_ctx ? p : max_ctx - 1;
}

// The query, key and value projections of RMSNorm(x) g (one matrix: the query heads' rows,
// then the key heads', then the value heads'), the rotary embedding of the query and key heads,
// the key and value heads written into the layer's cache at the position, the query heads into
// `q`. A warp computes a pair of rows (i, i + head_dim / 2) of one head at a time, as
// transformers' `rotate_half` pairs them; dynamic shared memory: `cols` floats. `cos` and `sin`
// are [position][head_dim / 2]; the cache [position][kv head][head_dim].
template <typename T>
__global__ void __launch_bounds__(256)
qkv_rope(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
         const T* __restrict__ cos_t, const T* __restrict__ sin_t, T* __restrict__ q,
         T* __restrict__ kc, T* __restrict__ vc, const unsigned* __restrict__ dpos, unsigned pos,
         unsigned counter, unsigned max_ctx, unsigned cols, unsigned heads, unsigned kv_heads,
         unsigned head_dim, float eps) {
  extern __shared__ float xn[];
  const unsigned half = head_dim / 2, pairs = (heads + 2 * kv_heads) * half;
  // The first row of pair `k`; the second is `half` rows on.
  const auto first = [&](unsigned k) {
    return w + ((size_t)(k / half) * head_dim + k % half) * cols;
  };
  unsigned k = warp_id();
  Ahead a;
  if (k < pairs) fetch<T>(first(k), cols, a);
  pdl_start();
  const unsigned p = position(dpos, pos, counter, max_ctx);
  normalise<T>(x, g, eps, xn, cols);
  for (; k < pairs; k += warps()) {
    const unsigned h = k / half, i = k % half;
    float c = 1.f, s = 0.f;
    if (h < heads + kv_heads) {
      c = to_f(cos_t[(size_t)p * half + i]);
      s = to_f(sin_t[(size_t)p * half + i]);
    }
    const T* r1 = first(k);
    const T* r2 = r1 + (size_t)half * cols;
    const T* next = k + warps() < pairs ? first(k + warps()) : nullptr;
    const float va = rnd<T>(dot_stream<T>(r1, r2, cols, a, SharedVec{xn}));
    const float vb = rnd<T>(dot_stream<T>(r2, next, cols, a, SharedVec{xn}));
    if (threadIdx.x % WARP != 0) continue;
    if (h >= heads + kv_heads) {
      T* v = vc + ((size_t)p * kv_heads + (h - heads - kv_heads)) * head_dim;
      v[i] = from_f<T>(va);
      v[i + half] = from_f<T>(vb);
      continue;
    }
    // (x cos) + (rotate_half(x) sin), each product and the sum rounded to T.
    const float lo = rnd<T>(rnd<T>(__fmul_rn(va, c)) + rnd<T>(__fmul_rn(-vb, s)));
    const float hi = rnd<T>(rnd<T>(__fmul_rn(vb, c)) + rnd<T>(__fmul_rn(va, s)));
    T* out = h < heads ? q + (size_t)h * head_dim
                       : kc + ((size_t)p * kv_heads + (h - heads)) * head_dim;
    out[i] = from_f<T>(lo);
    out[i + half] = from_f<T>(hi);
  }
}

// h = silu(Wg n) * (Wu n), n = RMSNorm(x) g: the MLP's first half. `w` stacks the gate rows
// (0..ffn) over the up rows (ffn..2 ffn); a warp computes row r of both at a time.
template <typename T>
__global__ void __launch_bounds__(256)
norm_gate_up(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
             T* __restrict__ h, unsigned cols, unsigned ffn, float eps) {
  extern __shared__ float xn[];
  unsigned r = warp_id();
  Ahead a;
  if (r < ffn) fetch<T>(w + (size_t)r * cols, cols, a);
  pdl_start();
  normalise<T>(x, g, eps, xn, cols);
  for (; r < ffn; r += warps()) {
    const T* rg = w + (size_t)r * cols;
    const T* ru = w + (size_t)(ffn + r) * cols;
    const T* next = r + warps() < ffn ? w + (size_t)(r + warps()) * cols : nullptr;
    const float gate = rnd<T>(dot_stream<T>(rg, ru, cols, a, SharedVec{xn}));
    const float up = rnd<T>(dot_stream<T>(ru, next, cols, a, SharedVec{xn}));
    if (threadIdx.x % WARP == 0) {
      const float act = rnd<T>(gate / (1.f + expf(-gate)));
      h[r] = from_f<T>(act * up);
    }
  }
}

#include "project.cuh"

// logits = W RMSNorm(x) g (each rounded to T, kept as float), and per block the largest of
// its rows and its index (the first on ties), for the greedy pick. Like the projections, a few
// blocks an SM, each warp streaming its rows (and keeping the best of them), so the pick reads
// one pair a block.
template <typename T>
__global__ void __launch_bounds__(256)
norm_head(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
          float* __restrict__ logits, float* __restrict__ best, unsigned* __restrict__ best_at,
          unsigned cols, unsigned vocab, float eps) {
  extern __shared__ float xn[];
  __shared__ float val[8];
  __shared__ unsigned idx[8];
  unsigned r = warp_id();
  Ahead a;
  if (r < vocab) fetch<T>(w + (size_t)r * cols, cols, a);
  pdl_start();
  normalise<T>(x, g, eps, xn, cols);
  float bv = NEG_INF;
  unsigned bi = 0xffffffffu;
  for (; r < vocab; r += warps()) {
    const T* next = r + warps() < vocab ? w + (size_t)(r + warps()) * cols : nullptr;
    const float l = rnd<T>(dot_stream<T>(w + (size_t)r * cols, next, cols, a, SharedVec{xn}));
    if (threadIdx.x % WARP == 0) logits[r] = l;
    // A warp's rows rise, so the first of equal logits stays.
    if (l > bv || bi == 0xffffffffu) {
      bv = l;
      bi = r;
    }
  }
  if (threadIdx.x % WARP == 0) {
    val[threadIdx.x / WARP] = bv;
    idx[threadIdx.x / WARP] = bi;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned k = 1; k < blockDim.x / WARP; k++) {
      if (val[k] > bv || (val[k] == bv && idx[k] < bi)) {
        bv = val[k];
        bi = idx[k];
      }
    }
    best[blockIdx.x] = bv;
    best_at[blockIdx.x] = bi;
  }
}

// The largest of `parts` (value, index) pairs, the first index on ties; thread 0 gets it.
// Every thread of the block (up to 1024) takes part.
__device__ __forceinline__ unsigned best_of(const float* __restrict__ best,
                                            const unsigned* __restrict__ best_at, unsigned parts) {
  __shared__ float sv[32];
  __shared__ unsigned si[32];
  float v = NEG_INF;
  unsigned i = 0xffffffffu;
#pragma unroll 4
  for (unsigned k = threadIdx.x; k < parts; k += blockDim.x) {
    float b = best[k];
    unsigned a = best_at[k];
    if (b > v || (b == v && a < i)) {
      v = b;
      i = a;
    }
  }
#pragma unroll
  for (int o = WARP / 2; o > 0; o >>= 1) {
    float ov = __shfl_xor_sync(0xffffffffu, v, o);
    unsigned oi = __shfl_xor_sync(0xffffffffu, i, o);
    if (ov > v || (ov == v && oi < i)) {
      v = ov;
      i = oi;
    }
  }
  if (threadIdx.x % WARP == 0) {
    sv[threadIdx.x / WARP] = v;
    si[threadIdx.x / WARP] = i;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < blockDim.x / WARP; w++) {
      if (sv[w] > v || (sv[w] == v && si[w] < i)) {
        v = sv[w];
        i = si[w];
      }
    }
  }
  return i;
}

// The greedy pick: the largest logit over the blocks' bests (the first index on ties), written
// as the next token unless that position still holds the prompt; in counter mode the position
// advances. One block of 1024 threads.
__global__ void __launch_bounds__(1024)
argmax_step(const float* __restrict__ best, const unsigned* __restrict__ best_at, unsigned parts,
            unsigned* __restrict__ ids, unsigned* __restrict__ dpos, unsigned pos, unsigned counter,
            unsigned prompt_len, unsigned max_ctx) {
  pdl_start();
  const unsigned i = best_of(best, best_at, parts);
  if (threadIdx.x == 0) {
    unsigned p = counter ? *dpos : pos;
    unsigned next = p + 1;
    if (next < max_ctx && next >= prompt_len) ids[next] = i;
    if (counter) *dpos = next;
  }
}

// The start of a generation (`llama::loop_graph`): the decode loop starts at the prompt's last
// position, `rows`, with x the embedding of its token; the prefill, which fills the cache at
// the positions before it, runs when there are any.
template <typename T>
__global__ void loop_begin(const T* __restrict__ table, const unsigned* __restrict__ ids,
                           T* __restrict__ x, unsigned* __restrict__ dpos, unsigned rows,
                           unsigned hidden, unsigned vocab, cudaGraphConditionalHandle prefix) {
  pdl_start();
  unsigned tok = ids[rows];
  tok = tok < vocab ? tok : 0;
  for (unsigned c = blockIdx.x * blockDim.x + threadIdx.x; c < hidden; c += gridDim.x * blockDim.x) {
    x[c] = table[(size_t)tok * hidden + c];
  }
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    *dpos = rows;
    cudaGraphSetConditional(prefix, rows > 0 ? 1u : 0u);
  }
}

// The host's ring (mapped host memory) is 8-byte words: [0] the host's request to stop
// (non-zero), then one word a token, written once: the token in the low half, and in the high
// half its number from 1, with RING_LAST set on the generation's last token. One 8-byte store
// a token, so the host sees a token and its number together, with no fence between them.
#define RING_LAST 0x80000000u

// The greedy pick of the generation loop: the largest logit over the head's blocks' bests
// (the first index on ties) is the token after position *dpos: it is written at the next
// position, the position advances, the token goes to the host's ring, and its embedding into
// `x` for the next step. The loop goes on while fewer than `max_new` tokens are made, the
// token is none of the `n_end` end ids, the host has not asked to stop (`stop`, read by the
// caller's thread 0) and the cache has room for the next position. One block of 1024 threads.
template <typename T>
__device__ __forceinline__ void pick_and_go(
    const float* __restrict__ best, const unsigned* __restrict__ best_at, unsigned parts,
    const T* __restrict__ table, T* __restrict__ x, unsigned* __restrict__ ids,
    unsigned* __restrict__ dpos, const unsigned* __restrict__ ends, unsigned n_end,
    unsigned hidden, unsigned vocab, unsigned prompt_len, unsigned max_new, unsigned max_ctx,
    volatile unsigned long long* host, unsigned long long stop, cudaGraphConditionalHandle again) {
  __shared__ unsigned chosen;
  const unsigned tok = best_of(best, best_at, parts);
  if (threadIdx.x == 0) {
    chosen = tok;
    const unsigned next = *dpos + 1;
    if (next < max_ctx) ids[next] = tok;
    *dpos = next;
    const unsigned made = next + 1 - prompt_len;
    bool end = false;
    for (unsigned e = 0; e < n_end; e++) end = end || ends[e] == tok;
    const bool go = made < max_new && !end && stop == 0 && next < max_ctx;
    host[made] = ((unsigned long long)(made | (go ? 0u : RING_LAST)) << 32) | tok;
    cudaGraphSetConditional(again, go ? 1u : 0u);
  }
  __syncthreads();
  const unsigned t = chosen < vocab ? chosen : 0;
  for (unsigned c = threadIdx.x; c < hidden; c += blockDim.x) x[c] = table[(size_t)t * hidden + c];
}

// The pick of the generation loop on one GPU: the host's request to stop is word 0 of its
// ring.
template <typename T>
__global__ void __launch_bounds__(1024)
pick_next(const float* __restrict__ best, const unsigned* __restrict__ best_at, unsigned parts,
          const T* __restrict__ table, T* __restrict__ x, unsigned* __restrict__ ids,
          unsigned* __restrict__ dpos, const unsigned* __restrict__ ends, unsigned n_end,
          unsigned hidden, unsigned vocab, unsigned prompt_len, unsigned max_new, unsigned max_ctx,
          unsigned long long ring, cudaGraphConditionalHandle again) {
  pdl_start();
  volatile unsigned long long* host = reinterpret_cast<volatile unsigned long long*>(ring);
  // Asked before the reduction, so the read from host memory overlaps it.
  const unsigned long long stop = threadIdx.x == 0 ? host[0] : 0ull;
  pick_and_go<T>(best, best_at, parts, table, x, ids, dpos, ends, n_end, hidden, vocab,
                 prompt_len, max_new, max_ctx, host, stop, again);
}

// One rank's vote on the host's request to stop (word 0 of its ring: 1 if set), which an
// all-reduce (max) over the ranks of a tensor-parallel generation turns into one answer.
__global__ void stop_vote(unsigned long long ring, unsigned* __restrict__ vote) {
  pdl_start();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    const volatile unsigned long long* host =
        reinterpret_cast<const volatile unsigned long long*>(ring);
    *vote = host[0] != 0ull ? 1u : 0u;
  }
}

// The pick of a tensor-parallel generation loop (`llama::tp_loop`): every rank picks the same
// token from the same logits; the request to stop is the all-reduced vote (`voted`), the same
// on every rank, so every rank decides alike whether the loop goes on (its condition is
// declared agreed on the communicator). Each rank writes its tokens to its own ring.
template <typename T>
__global__ void __launch_bounds__(1024)
pick_agreed(const float* __restrict__ best, const unsigned* __restrict__ best_at, unsigned parts,
            const T* __restrict__ table, T* __restrict__ x, unsigned* __restrict__ ids,
            unsigned* __restrict__ dpos, const unsigned* __restrict__ ends, unsigned n_end,
            unsigned hidden, unsigned vocab, unsigned prompt_len, unsigned max_new,
            unsigned max_ctx, const unsigned* __restrict__ voted, unsigned long long ring,
            cudaGraphConditionalHandle again) {
  pdl_start();
  const unsigned long long stop = threadIdx.x == 0 ? (unsigned long long)*voted : 0ull;
  pick_and_go<T>(best, best_at, parts, table, x, ids, dpos, ends, n_end, hidden, vocab,
                 prompt_len, max_new, max_ctx,
                 reinterpret_cast<volatile unsigned long long*>(ring), stop, again);
}

// x = the embedding of the token at the position being decoded.
template <typename T>
__global__ void embed(const T* __restrict__ table, const unsigned* __restrict__ ids,
                      const unsigned* __restrict__ dpos, T* __restrict__ x, unsigned hidden,
                      unsigned vocab, unsigned pos, unsigned counter, unsigned max_ctx) {
  pdl_start();
  unsigned tok = ids[position(dpos, pos, counter, max_ctx)];
  tok = tok < vocab ? tok : 0;
  for (unsigned c = blockIdx.x * blockDim.x + threadIdx.x; c < hidden; c += gridDim.x * blockDim.x) {
    x[c] = table[(size_t)tok * hidden + c];
  }
}

// Shared memory of `attention`: each warp's unnormalised output, its max and its sum.
struct AttnShared {
  float wo[ATT_WARPS][MAX_HEAD_DIM];
  float wm[ATT_WARPS], wl[ATT_WARPS];
  bool last;
};

// One query head over one chunk of CHUNK positions, each key and value row read by L lanes of
// 16 bytes (L a power of two, at least head_dim / N).
//
// A warp takes CHUNK / ATT_WARPS positions, WARP / L a step (`slot` = the lane's position in a
// step, its 16 bytes of the row from `d0`). The keys and values of B steps are loaded together,
// those of the next B steps while these are used; the query slice is read once. Each slot keeps
// a running max, sum and output (online softmax); the slots, then the warps, are merged at the
// end. B (2 or 4) depends on the group size only, so a head's arithmetic is the same whatever
// the grid.
template <typename T, int B>
__device__ __forceinline__ void attend(AttnShared& sh, const unsigned L, const T* __restrict__ q,
                                       const T* __restrict__ kc, const T* __restrict__ vc,
                                       float* __restrict__ part_o, float* __restrict__ part_ml,
                                       unsigned* __restrict__ done, T* __restrict__ out,
                                       unsigned h, unsigned kvh, unsigned chunk, unsigned len,
                                       unsigned kv_heads, unsigned D, unsigned max_chunks,
                                       float scale) {
  constexpr int N = Vec16<T>::N;
  const unsigned R = WARP / L;
  const unsigned warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
  const unsigned slot = lane / L, d0 = (lane % L) * N;
  const bool dl = d0 < D;
  const unsigned first = chunk * CHUNK + warp * (CHUNK / ATT_WARPS);
  const size_t stride = (size_t)kv_heads * D;
  const T* kp = kc + (size_t)first * stride + (size_t)kvh * D + d0;
  const T* vp = vc + (size_t)first * stride + (size_t)kvh * D + d0;
  const unsigned chunks = (len + CHUNK - 1) / CHUNK;
  const unsigned count = first < len ? min(len - first, (unsigned)(CHUNK / ATT_WARPS)) : 0;
  const unsigned steps = (count + R - 1) / R;
  // The keys and values of steps s0 .. s0 + B (zeros past the warp's positions).
  const auto load_kv = [&](unsigned s0, uint4* kk, uint4* vv) {
#pragma unroll
    for (int b = 0; b < B; b++) {
      const unsigned u = (s0 + b) * R + slot;
      kk[b] = vv[b] = make_uint4(0u, 0u, 0u, 0u);
      if (u < count && dl) {
        kk[b] = ldg16(kp + u * stride);
        vv[b] = ldg16(vp + u * stride);
      }
    }
  };
  uint4 kb[B], vb[B];
  load_kv(0, kb, vb);
  float qf[N];
#pragma unroll
  for (int e = 0; e < N; e++) qf[e] = 0.f;
  if (dl) load16(q + (size_t)h * D + d0, qf);
  float m = NEG_INF, l = 0.f, o[N];
#pragma unroll
  for (int e = 0; e < N; e++) o[e] = 0.f;
#pragma unroll 1
  for (unsigned s0 = 0; s0 < steps; s0 += B) {
    uint4 nk[B], nv[B];
    if (s0 + B < steps) load_kv(s0 + B, nk, nv);
    float sc[B];
#pragma unroll
    for (int b = 0; b < B; b++) {
      float kf[N];
      unpack(kb[b], kf, kc);
      float t = 0.f;
#pragma unroll
      for (int e = 0; e < N; e++) t += qf[e] * kf[e];
      sc[b] = t;
    }
    // Sum over the L lanes of a row, then mask the steps past the warp's positions.
#pragma unroll 1
    for (unsigned off = 1; off < L; off <<= 1) {
#pragma unroll
      for (int b = 0; b < B; b++) sc[b] += __shfl_xor_sync(0xffffffffu, sc[b], off);
    }
#pragma unroll
    for (int b = 0; b < B; b++) {
      const bool valid = (s0 + b) * R + slot < count;
      sc[b] = valid ? sc[b] * scale : NEG_INF;
    }
    float mn = m;
#pragma unroll
    for (int b = 0; b < B; b++) mn = fmaxf(mn, sc[b]);
    if (mn > NEG_INF) {
      const float corr = expf(m - mn);
      l *= corr;
#pragma unroll
      for (int e = 0; e < N; e++) o[e] *= corr;
#pragma unroll
      for (int b = 0; b < B; b++) {
        const float p = expf(sc[b] - mn);
        l += p;
        float vf[N];
        unpack(vb[b], vf, vc);
#pragma unroll
        for (int e = 0; e < N; e++) o[e] += p * vf[e];
      }
      m = mn;
    }
#pragma unroll
    for (int b = 0; b < B; b++) {
      kb[b] = nk[b];
      vb[b] = nv[b];
    }
  }
  // Merge the slots (lanes L, 2L, .. apart), then the warps; a warp with no position has max
  // -inf and weight 0.
  float mx = m;
#pragma unroll 1
  for (unsigned off = L; off < WARP; off <<= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  {
    const float f = m > NEG_INF ? expf(m - mx) : 0.f;
    l *= f;
#pragma unroll
    for (int e = 0; e < N; e++) o[e] *= f;
  }
#pragma unroll 1
  for (unsigned off = L; off < WARP; off <<= 1) {
    l += __shfl_xor_sync(0xffffffffu, l, off);
#pragma unroll
    for (int e = 0; e < N; e++) o[e] += __shfl_xor_sync(0xffffffffu, o[e], off);
  }
  if (lane == 0) {
    sh.wm[warp] = mx;
    sh.wl[warp] = l;
  }
  if (slot == 0 && dl) {
#pragma unroll
    for (int e = 0; e < N; e++) sh.wo[warp][d0 + e] = o[e];
  }
  __syncthreads();
  // One chunk: the block writes the head's output. Several: its part, and the last block of
  // this head to finish merges them.
  const bool single = chunks == 1;
  for (unsigned d = threadIdx.x; d < D; d += blockDim.x) {
    float mx = NEG_INF;
    for (int w = 0; w < ATT_WARPS; w++) mx = fmaxf(mx, sh.wm[w]);
    float sum = 0.f, acc = 0.f;
    for (int w = 0; w < ATT_WARPS; w++) {
      const float e = sh.wm[w] > NEG_INF ? expf(sh.wm[w] - mx) : 0.f;
      sum += sh.wl[w] * e;
      acc += sh.wo[w][d] * e;
    }
    if (single) {
      out[(size_t)h * D + d] = from_f<T>(acc / sum);
      continue;
    }
    part_o[((size_t)h * max_chunks + chunk) * D + d] = acc;
    if (d == 0) {
      part_ml[((size_t)h * max_chunks + chunk) * 2] = mx;
      part_ml[((size_t)h * max_chunks + chunk) * 2 + 1] = sum;
    }
  }
  if (single) return;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) sh.last = atomicAdd(&done[h], 1u) == chunks - 1;
  __syncthreads();
  if (!sh.last) return;
  __threadfence();
  for (unsigned d = threadIdx.x; d < D; d += blockDim.x) {
    const float* ml = part_ml + (size_t)h * max_chunks * 2;
    float mx = NEG_INF;
    for (unsigned c = 0; c < chunks; c++) mx = fmaxf(mx, __ldcg(ml + 2 * c));
    float sum = 0.f, acc = 0.f;
    for (unsigned c = 0; c < chunks; c++) {
      const float e = expf(__ldcg(ml + 2 * c) - mx);
      sum += __ldcg(ml + 2 * c + 1) * e;
      acc += __ldcg(part_o + ((size_t)h * max_chunks + c) * D + d) * e;
    }
    out[(size_t)h * D + d] = from_f<T>(acc / sum);
  }
  if (threadIdx.x == 0) done[h] = 0;
}

// Grouped-query attention of one query head (blockIdx.x) over the `pos + 1` positions so far,
// in chunks of CHUNK positions: block y takes chunks y, y + gridDim.y, .. (see `attend`; the
// graphs give a block to every chunk of the cache, and blocks past the position return at once).
// With one chunk the block writes the head's output; with several, the last block of the head
// to finish a chunk (counted in `done`, one counter a head, which it sets back to 0) merges
// them. Heads of 32 to MAX_HEAD_DIM elements (a multiple of 32), any number of query heads a KV
// head. At most 128 registers a thread: four blocks an SM.
template <typename T>
__global__ void __launch_bounds__(ATT_WARPS * WARP, 4)
attention(const T* __restrict__ q, const T* __restrict__ kc, const T* __restrict__ vc,
          float* __restrict__ part_o, float* __restrict__ part_ml, unsigned* __restrict__ done,
          T* __restrict__ out, const unsigned* __restrict__ dpos, unsigned pos, unsigned counter,
          unsigned max_ctx, unsigned heads, unsigned kv_heads, unsigned head_dim,
          unsigned max_chunks, float scale) {
  __shared__ AttnShared sh;
  pdl_start();
  const unsigned len = position(dpos, pos, counter, max_ctx) + 1;
  constexpr int N = Vec16<T>::N;
  const unsigned group = heads / kv_heads, D = head_dim, h = blockIdx.x, kvh = h / group;
  // Lanes a row: head_dim / N rounded up to a power of two (4 to 32).
  unsigned lanes = 4;
  while (lanes * N < D) lanes *= 2;
  for (unsigned chunk = blockIdx.y; chunk * CHUNK < len; chunk += gridDim.y) {
    if (chunk != blockIdx.y) __syncthreads();
    // Steps loaded together: fewer for large groups, as when this kernel took a group's heads
    // in one warp (kept, so a head's arithmetic is what it was).
    if (group * N > 32) {
      attend<T, 2>(sh, lanes, q, kc, vc, part_o, part_ml, done, out, h, kvh, chunk, len,
                   kv_heads, D, max_chunks, scale);
    } else {
      attend<T, 4>(sh, lanes, q, kc, vc, part_o, part_ml, done, out, h, kvh, chunk, len,
                   kv_heads, D, max_chunks, scale);
    }
  }
}

}  // namespace llama

#include "prefill.cuh"
