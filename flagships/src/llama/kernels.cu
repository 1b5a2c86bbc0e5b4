// The kernels of the Llama decoder (`llama::graph`): one token's step, batch 1, five kernels
// a layer (the query, key and value projections with the rotary embedding and the cache write;
// attention; the output projection; the gate and up projections; the down projection).
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
// Every kernel first waits for the kernel before it, then lets the next one start
// (programmatic dependent launch: no-ops unless the graph's edges are programmatic). A weight
// row is read into registers before the RMSNorm of the input is computed, so the norm's
// latency hides behind the weights' loads.
#include <cuda_bf16.h>

#define WARP 32
// Positions one block of `attention` covers (one per thread).
#define CHUNK 128
// Query heads per KV head, head size: what `attention` keeps in shared memory.
#define MAX_GROUP 8
#define MAX_HEAD_DIM 128
// NVRTC has no <math.h>: minus infinity from its bits.
#define NEG_INF __int_as_float(0xff800000)

namespace llama {

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
// `v` as storing it as `T` and reading it back gives.
template <typename T> __device__ __forceinline__ float rnd(float v) { return to_f(from_f<T>(v)); }

// Elements of `T` in 16 bytes.
template <typename T> struct Vec16 { static constexpr int N = 16 / sizeof(T); };

// Programmatic dependent launch: wait for the predecessor's writes, then let the successor
// launch (it waits for this kernel in turn). Called first by every kernel.
__device__ __forceinline__ void pdl_start() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
}

// 16 bytes at `p` (16-byte aligned), read-only.
__device__ __forceinline__ uint4 ldg16(const void* p) {
  return __ldg(reinterpret_cast<const uint4*>(p));
}

// The elements of `T` in 16 bytes, as floats.
__device__ __forceinline__ void unpack(uint4 v, float* out, const float*) {
  out[0] = __uint_as_float(v.x); out[1] = __uint_as_float(v.y);
  out[2] = __uint_as_float(v.z); out[3] = __uint_as_float(v.w);
}
__device__ __forceinline__ void unpack(uint4 v, float* out, const __nv_bfloat16*) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; i++) {
    __nv_bfloat162 pair = *reinterpret_cast<const __nv_bfloat162*>(&w[i]);
    float2 f = __bfloat1622float2(pair);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
}

// The N elements at `p` (16-byte aligned), as floats.
template <typename T> __device__ __forceinline__ void load16(const T* p, float* out) {
  unpack(ldg16(p), out, p);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = WARP / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = WARP / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// The position being decoded.
__device__ __forceinline__ unsigned position(const unsigned* dpos, unsigned pos, unsigned counter,
                                             unsigned max_ctx) {
  unsigned p = counter ? *dpos : pos;
  return p < max_ctx ? p : max_ctx - 1;
}

// x / sqrt(mean(x^2) + eps), times g, rounded as transformers' LlamaRMSNorm rounds it (the
// normalised value to T, then its product with the weight to T), into shared `xn` (cols
// floats, cols a multiple of 16 bytes of T). Every thread of the block takes part; `xn` is
// ready when it returns. Two passes of 16-byte loads: x (kept raw in `xn`) and its squares,
// then the weight.
template <typename T>
__device__ void normalise(const T* __restrict__ x, const T* __restrict__ g, float eps,
                          float* xn, unsigned cols) {
  constexpr int N = Vec16<T>::N;
  __shared__ float partial[32];
  __shared__ float inv;
  float acc = 0.f;
#pragma unroll 4
  for (unsigned c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    float v[N];
    load16(x + c, v);
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      acc += v[i] * v[i] + v[i + 1] * v[i + 1] + v[i + 2] * v[i + 2] + v[i + 3] * v[i + 3];
      *reinterpret_cast<float4*>(xn + c + i) = make_float4(v[i], v[i + 1], v[i + 2], v[i + 3]);
    }
  }
  acc = warp_sum(acc);
  if (threadIdx.x % WARP == 0) partial[threadIdx.x / WARP] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (unsigned w = 0; w < blockDim.x / WARP; w++) s += partial[w];
    inv = rsqrtf(s / (float)cols + eps);
  }
  __syncthreads();
  const float r = inv;
#pragma unroll 4
  for (unsigned c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    float gv[N];
    load16(g + c, gv);
#pragma unroll
    for (int i = 0; i < N; i++) xn[c + i] = rnd<T>(rnd<T>(xn[c + i] * r) * gv[i]);
  }
  __syncthreads();
}

// 16-byte pieces of a lane's share of a weight row held in registers, PF at a time: the
// first PF are read before the kernel's other work (`fetch`), the rest stream in while the
// pieces before them are used (`dot_row`).
#define PF 8
template <int P> struct Pieces {
  uint4 v[P];
};
using Ahead = Pieces<PF>;

// Reads the P pieces of this lane's share of `row` (cols elements) from piece `base` on
// (piece k of a lane covers elements (lane + (base + k) * 32) * N ..).
// With S warps sharing a row, this warp's pieces are every S-th, from piece `part` on.
template <typename T, int P, int S = 1>
__device__ __forceinline__ void fetch(const T* __restrict__ row, unsigned cols, Pieces<P>& a,
                                      unsigned base = 0, unsigned part = 0) {
  constexpr int N = Vec16<T>::N;
  const unsigned lane = threadIdx.x % WARP;
#pragma unroll
  for (int k = 0; k < P; k++) {
    const unsigned c = (lane + ((base + k) * S + part) * WARP) * N;
    if (c < cols) a.v[k] = ldg16(row + c);
  }
}

// The vector a weight row is multiplied with: floats in shared memory, or `T` in global memory.
struct SharedVec {
  const float* v;
  __device__ __forceinline__ void get(unsigned c, float* out, int n) const {
    for (int i = 0; i < n; i += 4) {
      float4 f = *reinterpret_cast<const float4*>(v + c + i);
      out[i] = f.x; out[i + 1] = f.y; out[i + 2] = f.z; out[i + 3] = f.w;
    }
  }
};
template <typename T> struct GlobalVec {
  const T* __restrict__ v;
  __device__ __forceinline__ void get(unsigned c, float* out, int) const { load16(v + c, out); }
};

// The dot product of `row` (cols elements, 16-byte aligned; its first P pieces in `first`)
// with `vec`, summed over the warp; every lane gets it. The next P pieces are in flight while
// the current ones are used.
template <typename T, int P, typename V, int S = 1>
__device__ __forceinline__ float dot_row(const T* __restrict__ row, unsigned cols,
                                         const Pieces<P>& first, const V& vec,
                                         unsigned part = 0) {
  constexpr int N = Vec16<T>::N;
  const unsigned lane = threadIdx.x % WARP;
  float acc = 0.f;
  Pieces<P> cur = first;
  for (unsigned base = 0; (base * S + part) * WARP * N < cols; base += P) {
    Pieces<P> next;
    if (((base + P) * S + part) * WARP * N < cols) {
      fetch<T, P, S>(row, cols, next, base + P, part);
    }
#pragma unroll
    for (int k = 0; k < P; k++) {
      const unsigned c = (lane + ((base + k) * S + part) * WARP) * N;
      if (c < cols) {
        float w[N], x[N];
        unpack(cur.v[k], w, row);
        vec.get(c, x, N);
#pragma unroll
        for (int i = 0; i < N; i++) acc += w[i] * x[i];
      }
    }
    cur = next;
  }
  return warp_sum(acc);
}

template <typename T>
__device__ __forceinline__ float dot_smem(const T* __restrict__ row, unsigned cols, const Ahead& a,
                                          const float* v) {
  return dot_row<T>(row, cols, a, SharedVec{v});
}

// The query, key and value projections of RMSNorm(x) g (one matrix: the query heads' rows,
// then the key heads', then the value heads'), the rotary embedding of the query and key heads,
// the key and value heads written into the layer's cache at the position, the query heads into
// `q`. One warp a pair of rows (i, i + head_dim / 2) of one head, as transformers'
// `rotate_half` pairs them; 4 pairs a block of 128 threads; dynamic shared memory: `cols`
// floats. `cos` and `sin` are [position][head_dim / 2]; the cache [position][kv head][head_dim].
template <typename T>
__global__ void __launch_bounds__(128)
qkv_rope(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
         const T* __restrict__ cos_t, const T* __restrict__ sin_t, T* __restrict__ q,
         T* __restrict__ kc, T* __restrict__ vc, const unsigned* __restrict__ dpos, unsigned pos,
         unsigned counter, unsigned max_ctx, unsigned cols, unsigned heads, unsigned kv_heads,
         unsigned head_dim, float eps) {
  extern __shared__ float xn[];
  pdl_start();
  const unsigned half = head_dim / 2;
  const unsigned pair = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
  const unsigned h = pair / half, i = pair % half;
  const bool live = h < heads + 2 * kv_heads;
  const T* r1 = w + ((size_t)h * head_dim + i) * cols;
  const T* r2 = r1 + (size_t)half * cols;
  Ahead a1, a2;
  if (live) {
    fetch<T>(r1, cols, a1);
    fetch<T>(r2, cols, a2);
  }
  // The position and the rotation are read while the weights and the norm are on their way.
  const unsigned p = position(dpos, pos, counter, max_ctx);
  float c = 1.f, s = 0.f;
  if (live && h < heads + kv_heads) {
    c = to_f(cos_t[(size_t)p * half + i]);
    s = to_f(sin_t[(size_t)p * half + i]);
  }
  normalise<T>(x, g, eps, xn, cols);
  if (!live) return;
  const float a = rnd<T>(dot_smem<T>(r1, cols, a1, xn));
  const float b = rnd<T>(dot_smem<T>(r2, cols, a2, xn));
  if (threadIdx.x % WARP != 0) return;
  if (h >= heads + kv_heads) {
    T* v = vc + ((size_t)p * kv_heads + (h - heads - kv_heads)) * head_dim;
    v[i] = from_f<T>(a);
    v[i + half] = from_f<T>(b);
    return;
  }
  // (x cos) + (rotate_half(x) sin), each product and the sum rounded to T.
  const float lo = rnd<T>(rnd<T>(__fmul_rn(a, c)) + rnd<T>(__fmul_rn(-b, s)));
  const float hi = rnd<T>(rnd<T>(__fmul_rn(b, c)) + rnd<T>(__fmul_rn(a, s)));
  T* out = h < heads ? q + (size_t)h * head_dim
                     : kc + ((size_t)p * kv_heads + (h - heads)) * head_dim;
  out[i] = from_f<T>(lo);
  out[i + half] = from_f<T>(hi);
}

// h = silu(Wg n) * (Wu n), n = RMSNorm(x) g: the MLP's first half. `w` stacks the gate rows
// (0..ffn) over the up rows (ffn..2 ffn); one warp computes row r of both.
template <typename T>
__global__ void __launch_bounds__(128)
norm_gate_up(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
             T* __restrict__ h, unsigned cols, unsigned ffn, float eps) {
  extern __shared__ float xn[];
  pdl_start();
  const unsigned r = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
  const T* rg = w + (size_t)r * cols;
  const T* ru = w + (size_t)(ffn + r) * cols;
  Ahead ag, au;
  if (r < ffn) {
    fetch<T>(rg, cols, ag);
    fetch<T>(ru, cols, au);
  }
  normalise<T>(x, g, eps, xn, cols);
  if (r >= ffn) return;
  float gate = rnd<T>(dot_smem<T>(rg, cols, ag, xn));
  float up = rnd<T>(dot_smem<T>(ru, cols, au, xn));
  if (threadIdx.x % WARP == 0) {
    float act = rnd<T>(gate / (1.f + expf(-gate)));
    h[r] = from_f<T>(act * up);
  }
}

// x += W a: a projection and the residual add after it (x and the projection rounded to T
// apart, then their sum). Two warps a row, each taking every other piece of 16 bytes of it
// (twice the loads in flight of one warp a row, for rows as long as the MLP's); 4 rows a
// block of 256 threads.
template <typename T>
__global__ void __launch_bounds__(256)
matvec_add(const T* __restrict__ w, const T* __restrict__ a, T* __restrict__ x, unsigned cols,
           unsigned rows) {
  __shared__ float second[4];
  pdl_start();
  const unsigned warp = threadIdx.x / WARP, part = warp % 2, lane = threadIdx.x % WARP;
  const unsigned r = blockIdx.x * 4 + warp / 2;
  const bool live = r < rows;
  float acc = 0.f, xr = 0.f;
  if (live) {
    const T* row = w + (size_t)r * cols;
    Ahead ah;
    fetch<T, PF, 2>(row, cols, ah, 0, part);
    if (part == 0) xr = to_f(x[r]);
    acc = dot_row<T, PF, GlobalVec<T>, 2>(row, cols, ah, GlobalVec<T>{a}, part);
  }
  if (part == 1 && lane == 0) second[warp / 2] = acc;
  __syncthreads();
  if (live && part == 0 && lane == 0) x[r] = from_f<T>(xr + rnd<T>(acc + second[warp / 2]));
}

// logits = W RMSNorm(x) g (each rounded to T, kept as float), and per block the largest of
// its rows and its index (the first on ties), for `argmax_step`. 8 warps a block, 2 rows a
// warp (HEAD_ROWS rows a block: the norm is computed once for them).
#define HEAD_ROWS 16
template <typename T>
__global__ void __launch_bounds__(256)
norm_head(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
          float* __restrict__ logits, float* __restrict__ best, unsigned* __restrict__ best_at,
          unsigned cols, unsigned vocab, float eps) {
  extern __shared__ float xn[];
  __shared__ float val[HEAD_ROWS];
  __shared__ unsigned idx[HEAD_ROWS];
  pdl_start();
  const unsigned warp = threadIdx.x / WARP;
  const unsigned r0 = blockIdx.x * HEAD_ROWS + 2 * warp, r1 = r0 + 1;
  const T* row0 = w + (size_t)r0 * cols;
  const T* row1 = w + (size_t)r1 * cols;
  Ahead a0, a1;
  if (r0 < vocab) fetch<T>(row0, cols, a0);
  if (r1 < vocab) fetch<T>(row1, cols, a1);
  normalise<T>(x, g, eps, xn, cols);
  float l0 = NEG_INF, l1 = NEG_INF;
  if (r0 < vocab) l0 = rnd<T>(dot_smem<T>(row0, cols, a0, xn));
  if (r1 < vocab) l1 = rnd<T>(dot_smem<T>(row1, cols, a1, xn));
  if (threadIdx.x % WARP == 0) {
    if (r0 < vocab) logits[r0] = l0;
    if (r1 < vocab) logits[r1] = l1;
    val[2 * warp] = l0;
    idx[2 * warp] = r0;
    val[2 * warp + 1] = l1;
    idx[2 * warp + 1] = r1;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float v = val[0];
    unsigned i = idx[0];
    for (unsigned k = 1; k < HEAD_ROWS; k++) {
      if (val[k] > v) {
        v = val[k];
        i = idx[k];
      }
    }
    best[blockIdx.x] = v;
    best_at[blockIdx.x] = i;
  }
}

// The greedy pick: the largest logit over the blocks' bests (the first index on ties), written
// as the next token unless that position still holds the prompt; in counter mode the position
// advances. One block of 1024 threads.
__global__ void __launch_bounds__(1024)
argmax_step(const float* __restrict__ best, const unsigned* __restrict__ best_at, unsigned parts,
            unsigned* __restrict__ ids, unsigned* __restrict__ dpos, unsigned pos, unsigned counter,
            unsigned prompt_len, unsigned max_ctx) {
  __shared__ float sv[32];
  __shared__ unsigned si[32];
  pdl_start();
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
    unsigned p = counter ? *dpos : pos;
    unsigned next = p + 1;
    if (next < max_ctx && next >= prompt_len) ids[next] = i;
    if (counter) *dpos = next;
  }
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

// Shared memory of `attention`, sized for the largest group and head.
struct AttnShared {
  float qs[MAX_GROUP * MAX_HEAD_DIM];
  float wo[4][MAX_GROUP][MAX_HEAD_DIM];
  float wm[4][MAX_GROUP], wl[4][MAX_GROUP];
  bool last;
};

// The body of `attention` for groups of at most G query heads and heads of at most 32 J
// elements: compiled once for each (G, J) it is called with, so a step runs only the
// instructions its shape needs (a fully unrolled body for the largest shape would be several
// times longer, and a kernel that runs once a layer pays for every instruction it fetches).
template <typename T, int G, int J>
__device__ __forceinline__ void attend(AttnShared& sh, const T* __restrict__ q,
                                       const T* __restrict__ kc, const T* __restrict__ vc,
                                       float* __restrict__ part_o, float* __restrict__ part_ml,
                                       unsigned* __restrict__ done, T* __restrict__ out,
                                       unsigned len, unsigned kv_heads, unsigned group,
                                       unsigned D, unsigned max_chunks, float scale) {
  constexpr int N = Vec16<T>::N;
  const unsigned kvh = blockIdx.x, chunk = blockIdx.y, start = chunk * CHUNK;
  const unsigned chunks = (len + CHUNK - 1) / CHUNK;
  const unsigned warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
  for (unsigned k = threadIdx.x; k < group * D; k += blockDim.x) {
    sh.qs[k] = to_f(q[(size_t)kvh * group * D + k]);
  }
  __syncthreads();
  // Scores: lane = position; the key row's loads issued together.
  const unsigned t = start + warp * WARP + lane;
  const bool valid = t < len;
  float s[G];
#pragma unroll
  for (int g = 0; g < G; g++) s[g] = 0.f;
  if (valid) {
    const T* krow = kc + ((size_t)t * kv_heads + kvh) * D;
    // Pieces of 16 bytes, 8 at a time (one batch for a bf16 head of 64).
#pragma unroll 1
    for (unsigned b0 = 0; b0 < D; b0 += 8 * N) {
      uint4 kr[8];
#pragma unroll
      for (int j = 0; j < 8; j++) {
        if (b0 + j * N < D) kr[j] = ldg16(krow + b0 + j * N);
      }
#pragma unroll
      for (int j = 0; j < 8; j++) {
        if (b0 + j * N < D) {
          float kv[N];
          unpack(kr[j], kv, krow);
#pragma unroll
          for (int g = 0; g < G; g++) {
            if (g < (int)group) {
              const float* qg = sh.qs + g * D + b0 + j * N;
#pragma unroll
              for (int e = 0; e < N; e += 4) {
                const float4 qv = *reinterpret_cast<const float4*>(qg + e);
                s[g] += qv.x * kv[e] + qv.y * kv[e + 1] + qv.z * kv[e + 2] + qv.w * kv[e + 3];
              }
            }
          }
        }
      }
    }
  }
  // Softmax over the warp's positions, per query head.
  float p[G];
#pragma unroll
  for (int g = 0; g < G; g++) {
    float v = valid ? s[g] * scale : NEG_INF;
    float m = warp_max(v);
    p[g] = (valid && m > NEG_INF) ? expf(v - m) : 0.f;
    float l = warp_sum(p[g]);
    if (lane == 0 && g < (int)group) {
      sh.wm[warp][g] = m;
      sh.wl[warp][g] = l;
    }
  }
  // Values: lane = output element (d = lane + 32 j); positions in batches of VB, each batch's
  // loads issued together.
  float o[G][J];
#pragma unroll
  for (int g = 0; g < G; g++)
#pragma unroll
    for (int j = 0; j < J; j++) o[g][j] = 0.f;
  const unsigned first = start + warp * WARP;
  const unsigned count = first < len ? min(len - first, (unsigned)WARP) : 0;
  constexpr int VB = 8;
  for (unsigned u0 = 0; u0 < count; u0 += VB) {
    float vd[VB][J];
#pragma unroll
    for (int u = 0; u < VB; u++) {
      const T* vrow = vc + ((size_t)(first + u0 + u) * kv_heads + kvh) * D;
#pragma unroll
      for (int j = 0; j < J; j++) {
        const unsigned d = lane + WARP * j;
        vd[u][j] = (u0 + u < count && d < D) ? to_f(vrow[d]) : 0.f;
      }
    }
#pragma unroll
    for (int u = 0; u < VB; u++) {
#pragma unroll
      for (int g = 0; g < G; g++) {
        if (g < (int)group) {
          float pu = __shfl_sync(0xffffffffu, p[g], (u0 + u) % WARP);
#pragma unroll
          for (int j = 0; j < J; j++) o[g][j] += pu * vd[u][j];
        }
      }
    }
  }
#pragma unroll
  for (int g = 0; g < G; g++) {
#pragma unroll
    for (int j = 0; j < J; j++) {
      unsigned d = lane + WARP * j;
      if (g < (int)group && d < D) sh.wo[warp][g][d] = o[g][j];
    }
  }
  __syncthreads();
  // Merge the warps; a warp with no position has max -inf and weight 0.
  for (unsigned k = threadIdx.x; k < group * D; k += blockDim.x) {
    const unsigned g = k / D, d = k % D;
    float m = NEG_INF;
    for (int w = 0; w < 4; w++) m = fmaxf(m, sh.wm[w][g]);
    float l = 0.f, acc = 0.f;
    for (int w = 0; w < 4; w++) {
      float e = sh.wm[w][g] > NEG_INF ? expf(sh.wm[w][g] - m) : 0.f;
      l += sh.wl[w][g] * e;
      acc += sh.wo[w][g][d] * e;
    }
    const unsigned h = kvh * group + g;
    part_o[((size_t)h * max_chunks + chunk) * D + d] = acc;
    if (d == 0) {
      part_ml[((size_t)h * max_chunks + chunk) * 2] = m;
      part_ml[((size_t)h * max_chunks + chunk) * 2 + 1] = l;
    }
  }
  // The last block of this KV head merges the chunks.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) sh.last = atomicAdd(&done[kvh], 1u) == chunks - 1;
  __syncthreads();
  if (!sh.last) return;
  __threadfence();
  for (unsigned k = threadIdx.x; k < group * D; k += blockDim.x) {
    const unsigned g = k / D, d = k % D, h = kvh * group + g;
    const float* ml = part_ml + (size_t)h * max_chunks * 2;
    float m = NEG_INF;
    for (unsigned c = 0; c < chunks; c++) m = fmaxf(m, __ldcg(ml + 2 * c));
    float l = 0.f, acc = 0.f;
    for (unsigned c = 0; c < chunks; c++) {
      float e = expf(__ldcg(ml + 2 * c) - m);
      l += __ldcg(ml + 2 * c + 1) * e;
      acc += __ldcg(part_o + ((size_t)h * max_chunks + c) * D + d) * e;
    }
    out[(size_t)h * D + d] = from_f<T>(acc / l);
  }
  if (threadIdx.x == 0) done[kvh] = 0;
}

// Grouped-query attention of one KV head over one chunk of CHUNK positions (blockIdx.y) of
// the `pos + 1` so far: each warp takes 32 positions, one a lane (the scores of every query
// head of the group, a softmax over the warp, then the values weighted), then the four warps
// merge into the chunk's unnormalised output, its max and its sum. The last block of a KV
// head to finish (counted in `done`, which it sets back to 0) merges the chunks and writes the
// output of the group's query heads. Chunks past the position return at once (in counter mode
// the grid covers the whole cache). Groups of up to MAX_GROUP query heads, heads of 32 to
// MAX_HEAD_DIM elements (a multiple of 32).
template <typename T>
__global__ void __launch_bounds__(128)
attention(const T* __restrict__ q, const T* __restrict__ kc, const T* __restrict__ vc,
          float* __restrict__ part_o, float* __restrict__ part_ml, unsigned* __restrict__ done,
          T* __restrict__ out, const unsigned* __restrict__ dpos, unsigned pos, unsigned counter,
          unsigned max_ctx, unsigned heads, unsigned kv_heads, unsigned head_dim,
          unsigned max_chunks, float scale) {
  __shared__ AttnShared sh;
  pdl_start();
  const unsigned len = position(dpos, pos, counter, max_ctx) + 1;
  if (blockIdx.y * CHUNK >= len) return;
  const unsigned group = heads / kv_heads, D = head_dim;
#define ATTEND(G, J) \
  attend<T, G, J>(sh, q, kc, vc, part_o, part_ml, done, out, len, kv_heads, group, D, max_chunks, scale)
  if (D <= 64) {
    if (group <= 1) ATTEND(1, 2);
    else if (group <= 2) ATTEND(2, 2);
    else if (group <= 4) ATTEND(4, 2);
    else ATTEND(8, 2);
  } else {
    if (group <= 1) ATTEND(1, 4);
    else if (group <= 2) ATTEND(2, 4);
    else if (group <= 4) ATTEND(4, 4);
    else ATTEND(8, 4);
  }
#undef ATTEND
}

}  // namespace llama
