// The kernels of the Llama decoder (`llama::graph`): one token's step, batch 1.
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

// The N elements at `p` (16-byte aligned), as floats.
__device__ __forceinline__ void load16(const float* p, float* out) {
  float4 v = __ldg(reinterpret_cast<const float4*>(p));
  out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w;
}
__device__ __forceinline__ void load16(const __nv_bfloat16* p, float* out) {
  uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; i++) {
    __nv_bfloat162 pair = *reinterpret_cast<const __nv_bfloat162*>(&w[i]);
    float2 f = __bfloat1622float2(pair);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
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
// floats). Every thread of the block takes part; `xn` is ready when it returns.
template <typename T>
__device__ void normalise(const T* __restrict__ x, const T* __restrict__ g, float eps,
                          float* xn, unsigned cols) {
  __shared__ float partial[32];
  __shared__ float inv;
  float acc = 0.f;
  for (unsigned c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = to_f(x[c]);
    acc += v * v;
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
  for (unsigned c = threadIdx.x; c < cols; c += blockDim.x) {
    xn[c] = rnd<T>(rnd<T>(to_f(x[c]) * inv) * to_f(g[c]));
  }
  __syncthreads();
}

// The dot product of a weight row (`cols` elements, 16-byte aligned) with `v` (floats in
// shared memory), summed over the warp; every lane gets it.
template <typename T>
__device__ __forceinline__ float row_dot(const T* __restrict__ row, const float* v, unsigned cols) {
  constexpr int N = Vec16<T>::N;
  const unsigned lane = threadIdx.x % WARP;
  float acc = 0.f;
#pragma unroll 4
  for (unsigned c = lane * N; c < cols; c += WARP * N) {
    float w[N];
    load16(row + c, w);
#pragma unroll
    for (int i = 0; i < N; i++) acc += w[i] * v[c + i];
  }
  return warp_sum(acc);
}

// The same, with `v` a vector of `T` in global memory.
template <typename T>
__device__ __forceinline__ float row_dot_global(const T* __restrict__ row, const T* __restrict__ v,
                                                unsigned cols) {
  constexpr int N = Vec16<T>::N;
  const unsigned lane = threadIdx.x % WARP;
  float acc = 0.f;
#pragma unroll 4
  for (unsigned c = lane * N; c < cols; c += WARP * N) {
    float w[N], a[N];
    load16(row + c, w);
    load16(v + c, a);
#pragma unroll
    for (int i = 0; i < N; i++) acc += w[i] * a[i];
  }
  return warp_sum(acc);
}

// out = W (RMSNorm(x) g): the normalisation before a projection, fused into it. W is
// `rows` x `cols`, one warp a row, 4 rows a block of 128 threads; dynamic shared memory:
// `cols` floats.
template <typename T>
__global__ void __launch_bounds__(128)
norm_matvec(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
            T* __restrict__ out, unsigned cols, unsigned rows, float eps) {
  extern __shared__ float xn[];
  normalise<T>(x, g, eps, xn, cols);
  const unsigned r = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
  if (r >= rows) return;
  float acc = row_dot<T>(w + (size_t)r * cols, xn, cols);
  if (threadIdx.x % WARP == 0) out[r] = from_f<T>(acc);
}

// h = silu(Wg n) * (Wu n), n = RMSNorm(x) g: the MLP's first half. `w` stacks the gate rows
// (0..ffn) over the up rows (ffn..2 ffn); one warp computes row r of both.
template <typename T>
__global__ void __launch_bounds__(128)
norm_gate_up(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
             T* __restrict__ h, unsigned cols, unsigned ffn, float eps) {
  extern __shared__ float xn[];
  normalise<T>(x, g, eps, xn, cols);
  const unsigned r = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
  if (r >= ffn) return;
  float gate = rnd<T>(row_dot<T>(w + (size_t)r * cols, xn, cols));
  float up = rnd<T>(row_dot<T>(w + (size_t)(ffn + r) * cols, xn, cols));
  if (threadIdx.x % WARP == 0) {
    float act = rnd<T>(gate / (1.f + expf(-gate)));
    h[r] = from_f<T>(act * up);
  }
}

// x += W a: a projection and the residual add after it (x and the projection rounded to T
// apart, then their sum).
template <typename T>
__global__ void __launch_bounds__(128)
matvec_add(const T* __restrict__ w, const T* __restrict__ a, T* __restrict__ x, unsigned cols,
           unsigned rows) {
  const unsigned r = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
  if (r >= rows) return;
  float acc = rnd<T>(row_dot_global<T>(w + (size_t)r * cols, a, cols));
  if (threadIdx.x % WARP == 0) x[r] = from_f<T>(to_f(x[r]) + acc);
}

// logits = W RMSNorm(x) g (each rounded to T, kept as float), and per block the largest of
// its rows and its index (the first on ties), for `argmax_step`.
template <typename T>
__global__ void __launch_bounds__(128)
norm_head(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
          float* __restrict__ logits, float* __restrict__ best, unsigned* __restrict__ best_at,
          unsigned cols, unsigned vocab, float eps) {
  extern __shared__ float xn[];
  __shared__ float val[4];
  __shared__ unsigned idx[4];
  normalise<T>(x, g, eps, xn, cols);
  const unsigned warp = threadIdx.x / WARP;
  const unsigned r = blockIdx.x * (blockDim.x / WARP) + warp;
  float logit = NEG_INF;
  if (r < vocab) {
    logit = rnd<T>(row_dot<T>(w + (size_t)r * cols, xn, cols));
    if (threadIdx.x % WARP == 0) logits[r] = logit;
  }
  if (threadIdx.x % WARP == 0) {
    val[warp] = logit;
    idx[warp] = r;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float v = val[0];
    unsigned i = idx[0];
    for (unsigned k = 1; k < blockDim.x / WARP; k++) {
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
  float v = NEG_INF;
  unsigned i = 0xffffffffu;
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
  unsigned tok = ids[position(dpos, pos, counter, max_ctx)];
  tok = tok < vocab ? tok : 0;
  for (unsigned c = blockIdx.x * blockDim.x + threadIdx.x; c < hidden; c += gridDim.x * blockDim.x) {
    x[c] = table[(size_t)tok * hidden + c];
  }
}

// The rotary embedding of the query heads (in place) and the key heads (into the cache at the
// position), and the value heads copied into theirs. `qkv` holds the query heads, then the key
// heads, then the value heads; the cache is [position][kv head][head_dim]; `cos` and `sin` are
// [position][head_dim / 2]. One block a query or key head, one thread a pair of elements
// (i, i + head_dim / 2), as transformers' `rotate_half` pairs them.
template <typename T>
__global__ void rope_cache(T* __restrict__ qkv, const T* __restrict__ cos_t,
                           const T* __restrict__ sin_t, T* __restrict__ kc, T* __restrict__ vc,
                           const unsigned* __restrict__ dpos, unsigned pos, unsigned counter,
                           unsigned max_ctx, unsigned heads, unsigned kv_heads, unsigned head_dim) {
  const unsigned p = position(dpos, pos, counter, max_ctx);
  const unsigned h = blockIdx.x, half = head_dim / 2, i = threadIdx.x;
  if (i >= half) return;
  const T* src = qkv + (size_t)h * head_dim;
  const float c = to_f(cos_t[(size_t)p * half + i]), s = to_f(sin_t[(size_t)p * half + i]);
  const float a = to_f(src[i]), b = to_f(src[i + half]);
  // (q cos) + (rotate_half(q) sin), each product and the sum rounded to T.
  const float lo = rnd<T>(rnd<T>(__fmul_rn(a, c)) + rnd<T>(__fmul_rn(-b, s)));
  const float hi = rnd<T>(rnd<T>(__fmul_rn(b, c)) + rnd<T>(__fmul_rn(a, s)));
  if (h < heads) {
    qkv[(size_t)h * head_dim + i] = from_f<T>(lo);
    qkv[(size_t)h * head_dim + i + half] = from_f<T>(hi);
    return;
  }
  const unsigned kvh = h - heads;
  T* k = kc + ((size_t)p * kv_heads + kvh) * head_dim;
  k[i] = from_f<T>(lo);
  k[i + half] = from_f<T>(hi);
  const T* v = qkv + (size_t)(heads + kv_heads + kvh) * head_dim;
  T* vd = vc + ((size_t)p * kv_heads + kvh) * head_dim;
  vd[i] = v[i];
  vd[i + half] = v[i + half];
}

// Grouped-query attention of one KV head over one chunk of CHUNK positions (blockIdx.y) of
// the `pos + 1` so far: each warp takes 32 positions, one a lane (the scores of every query
// head of the group, a softmax over the warp, then the values weighted), then the four warps
// merge. Writes, per query head and chunk, the unnormalised output and its running max and
// sum, for `attn_combine`. Chunks past the position return at once (in counter mode the grid
// covers the whole cache).
template <typename T>
__global__ void __launch_bounds__(128)
attention(const T* __restrict__ qkv, const T* __restrict__ kc, const T* __restrict__ vc,
          float* __restrict__ part_o, float* __restrict__ part_ml, const unsigned* __restrict__ dpos,
          unsigned pos, unsigned counter, unsigned max_ctx, unsigned heads, unsigned kv_heads,
          unsigned head_dim, unsigned max_chunks, float scale) {
  __shared__ float qs[MAX_GROUP * MAX_HEAD_DIM];
  __shared__ float wo[4][MAX_GROUP][MAX_HEAD_DIM];
  __shared__ float wm[4][MAX_GROUP], wl[4][MAX_GROUP];
  constexpr int N = Vec16<T>::N;
  const unsigned len = position(dpos, pos, counter, max_ctx) + 1;
  const unsigned kvh = blockIdx.x, chunk = blockIdx.y, start = chunk * CHUNK;
  if (start >= len) return;
  const unsigned group = heads / kv_heads, D = head_dim;
  const unsigned warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
  for (unsigned k = threadIdx.x; k < group * D; k += blockDim.x) {
    qs[k] = to_f(qkv[(size_t)kvh * group * D + k]);
  }
  __syncthreads();
  // Scores: lane = position.
  const unsigned t = start + warp * WARP + lane;
  const bool valid = t < len;
  float s[MAX_GROUP];
#pragma unroll
  for (int g = 0; g < MAX_GROUP; g++) s[g] = 0.f;
  if (valid) {
    const T* krow = kc + ((size_t)t * kv_heads + kvh) * D;
    for (unsigned d0 = 0; d0 < D; d0 += N) {
      float kv[N];
      load16(krow + d0, kv);
#pragma unroll
      for (int g = 0; g < MAX_GROUP; g++) {
        if (g < (int)group) {
#pragma unroll
          for (int j = 0; j < N; j++) s[g] += qs[g * D + d0 + j] * kv[j];
        }
      }
    }
  }
  // Softmax over the warp's positions, per query head.
  float p[MAX_GROUP];
#pragma unroll
  for (int g = 0; g < MAX_GROUP; g++) {
    float v = valid ? s[g] * scale : NEG_INF;
    float m = warp_max(v);
    p[g] = (valid && m > NEG_INF) ? expf(v - m) : 0.f;
    float l = warp_sum(p[g]);
    if (lane == 0 && g < (int)group) {
      wm[warp][g] = m;
      wl[warp][g] = l;
    }
  }
  // Values: lane = output element (d = lane + 32 j).
  float o[MAX_GROUP][MAX_HEAD_DIM / WARP];
#pragma unroll
  for (int g = 0; g < MAX_GROUP; g++)
#pragma unroll
    for (int j = 0; j < MAX_HEAD_DIM / WARP; j++) o[g][j] = 0.f;
  const unsigned first = start + warp * WARP;
  const unsigned count = first < len ? min(len - first, (unsigned)WARP) : 0;
  for (unsigned u = 0; u < count; u++) {
    const T* vrow = vc + ((size_t)(first + u) * kv_heads + kvh) * D;
    float vd[MAX_HEAD_DIM / WARP];
#pragma unroll
    for (int j = 0; j < MAX_HEAD_DIM / WARP; j++) {
      unsigned d = lane + WARP * j;
      vd[j] = d < D ? to_f(vrow[d]) : 0.f;
    }
#pragma unroll
    for (int g = 0; g < MAX_GROUP; g++) {
      float pu = __shfl_sync(0xffffffffu, p[g], u);
#pragma unroll
      for (int j = 0; j < MAX_HEAD_DIM / WARP; j++) o[g][j] += pu * vd[j];
    }
  }
#pragma unroll
  for (int g = 0; g < MAX_GROUP; g++) {
#pragma unroll
    for (int j = 0; j < MAX_HEAD_DIM / WARP; j++) {
      unsigned d = lane + WARP * j;
      if (g < (int)group && d < D) wo[warp][g][d] = o[g][j];
    }
  }
  __syncthreads();
  // Merge the warps; a warp with no position has max -inf and weight 0.
  for (unsigned k = threadIdx.x; k < group * D; k += blockDim.x) {
    const unsigned g = k / D, d = k % D;
    float m = NEG_INF;
    for (int w = 0; w < 4; w++) m = fmaxf(m, wm[w][g]);
    float l = 0.f, acc = 0.f;
    for (int w = 0; w < 4; w++) {
      float e = wm[w][g] > NEG_INF ? expf(wm[w][g] - m) : 0.f;
      l += wl[w][g] * e;
      acc += wo[w][g][d] * e;
    }
    const unsigned h = kvh * group + g;
    part_o[((size_t)h * max_chunks + chunk) * D + d] = acc;
    if (d == 0) {
      part_ml[((size_t)h * max_chunks + chunk) * 2] = m;
      part_ml[((size_t)h * max_chunks + chunk) * 2 + 1] = l;
    }
  }
}

// The attention output of each query head: the chunks' partial outputs merged and normalised.
// One block a head, one thread an element.
template <typename T>
__global__ void attn_combine(const float* __restrict__ part_o, const float* __restrict__ part_ml,
                             T* __restrict__ out, const unsigned* __restrict__ dpos, unsigned pos,
                             unsigned counter, unsigned max_ctx, unsigned head_dim,
                             unsigned max_chunks) {
  const unsigned len = position(dpos, pos, counter, max_ctx) + 1;
  const unsigned chunks = (len + CHUNK - 1) / CHUNK;
  const unsigned h = blockIdx.x, d = threadIdx.x;
  if (d >= head_dim) return;
  const float* ml = part_ml + (size_t)h * max_chunks * 2;
  float m = NEG_INF;
  for (unsigned c = 0; c < chunks; c++) m = fmaxf(m, ml[2 * c]);
  float l = 0.f, acc = 0.f;
  for (unsigned c = 0; c < chunks; c++) {
    float e = expf(ml[2 * c] - m);
    l += ml[2 * c + 1] * e;
    acc += part_o[((size_t)h * max_chunks + c) * head_dim + d] * e;
  }
  out[(size_t)h * head_dim + d] = from_f<T>(acc / l);
}

}  // namespace llama
