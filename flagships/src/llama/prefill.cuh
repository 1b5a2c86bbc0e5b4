// The prefill of the generation graph (`llama::generation`): the prompt's tokens but the last
// through every layer at once, filling the KV cache (the last token then runs through the
// decode step, which gives the first new token). Matrix-matrix products over all rows, causal
// attention, the same rounding to `T` as the decode step's kernels (`kernels.cu`).
//
// Rows are positions 0 .. rows of the sequence; activations are [row][column] in `T`. Every
// kernel waits for its predecessor (`pdl_start`) before it reads anything.
#pragma once
#include "stream.cuh"

namespace llama {

// xs[r] = the embedding of ids[r]. Grid (hidden / 256 rounded up, rows).
template <typename T>
__global__ void embed_rows(const T* __restrict__ table, const unsigned* __restrict__ ids,
                           T* __restrict__ xs, unsigned rows, unsigned hidden, unsigned vocab) {
  pdl_start();
  const unsigned r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || c >= hidden) return;
  unsigned tok = ids[r];
  tok = tok < vocab ? tok : 0;
  xs[(size_t)r * hidden + c] = table[(size_t)tok * hidden + c];
}

// ns[r] = RMSNorm(xs[r]) g, one block a row. Dynamic shared memory: `cols` floats.
template <typename T>
__global__ void __launch_bounds__(256)
norm_rows(const T* __restrict__ xs, const T* __restrict__ g, T* __restrict__ ns, unsigned cols,
          unsigned rows, float eps) {
  extern __shared__ float xn[];
  pdl_start();
  const unsigned r = blockIdx.x;
  if (r >= rows) return;
  normalise<T>(xs + (size_t)r * cols, g, eps, xn, cols);
  for (unsigned c = threadIdx.x; c < cols; c += blockDim.x) {
    ns[(size_t)r * cols + c] = from_f<T>(xn[c]);
  }
}

// Tiles of `gemm`: GM rows of `a` by GN rows of `w` (output columns), GK columns at a time;
// 256 threads, 4 x 4 outputs each.
#define GM 64
#define GN 64
#define GK 32

// The products of one tile of `gemm` over columns `begin .. end` of the rows:
// acc[i][j] += a[r0 + ty * 4 + i] . w[n0 + tx * 4 + j] there (a: rows x k, w: cols_out x k,
// rows of k contiguous elements, `begin` and k multiples of 8), in float; zero past the ends.
// Every thread of the block takes part.
template <typename T>
__device__ __forceinline__ void gemm_tile(const T* __restrict__ a, const T* __restrict__ w,
                                          unsigned rows, unsigned cols_out, unsigned k,
                                          unsigned begin, unsigned end, unsigned r0, unsigned n0,
                                          float (&acc)[4][4]) {
  __shared__ __align__(16) float as[GK][GM + 4];
  __shared__ __align__(16) float ws[GK][GN + 4];
  constexpr int N = Vec16<T>::N;
  const unsigned tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  for (unsigned k0 = begin; k0 < end; k0 += GK) {
    // Each tile is GM (GN) rows of GK elements: GK / N pieces of 16 bytes a row.
    for (unsigned v = threadIdx.x; v < GM * (GK / N); v += blockDim.x) {
      const unsigned row = v / (GK / N), kk = (v % (GK / N)) * N;
      float f[N];
      const unsigned ra = r0 + row, rw = n0 + row, col = k0 + kk;
      if (ra < rows && col < end) {
        load16(a + (size_t)ra * k + col, f);
      } else {
#pragma unroll
        for (int i = 0; i < N; i++) f[i] = 0.f;
      }
#pragma unroll
      for (int i = 0; i < N; i++) as[kk + i][row] = f[i];
      if (rw < cols_out && col < end) {
        load16(w + (size_t)rw * k + col, f);
      } else {
#pragma unroll
        for (int i = 0; i < N; i++) f[i] = 0.f;
      }
#pragma unroll
      for (int i = 0; i < N; i++) ws[kk + i][row] = f[i];
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < GK; kk++) {
      const float4 av = *reinterpret_cast<const float4*>(&as[kk][ty * 4]);
      const float4 wv = *reinterpret_cast<const float4*>(&ws[kk][tx * 4]);
      const float ar[4] = {av.x, av.y, av.z, av.w}, wr[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] += ar[i] * wr[j];
    }
    __syncthreads();
  }
}

// A tile's products over all k columns, those before `split` and those from it on summed
// apart and then added (as `matvec_add` sums a row's halves; `split` >= k: one sum).
template <typename T>
__device__ __forceinline__ void gemm_halves(const T* __restrict__ a, const T* __restrict__ w,
                                            unsigned rows, unsigned cols_out, unsigned k,
                                            unsigned split, unsigned r0, unsigned n0,
                                            float (&acc)[4][4]) {
  if (split >= k) {
    gemm_tile<T>(a, w, rows, cols_out, k, 0, k, r0, n0, acc);
    return;
  }
  float hi[4][4] = {};
  gemm_tile<T>(a, w, rows, cols_out, k, 0, split, r0, n0, acc);
  gemm_tile<T>(a, w, rows, cols_out, k, split, k, r0, n0, hi);
#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma unroll
    for (int j = 0; j < 4; j++) acc[i][j] += hi[i][j];
}

// c[r][n] = a[r] . w[n] for r < rows, n < cols_out (a: rows x k, w: cols_out x k, both with
// rows of k contiguous elements, k a multiple of 8), the two halves of k summed apart
// (`halves_at`); with `add`, c[r][n] += that (the residual: c and the product rounded to T
// apart, then their sum). Accumulates in float. Grid (cols_out / GN, rows / GM) rounded up.
template <typename T>
__global__ void __launch_bounds__(256)
gemm(const T* __restrict__ a, const T* __restrict__ w, T* __restrict__ c, unsigned rows,
     unsigned cols_out, unsigned k, unsigned add) {
  const unsigned tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const unsigned r0 = blockIdx.y * GM, n0 = blockIdx.x * GN;
  pdl_start();
  float acc[4][4] = {};
  gemm_halves<T>(a, w, rows, cols_out, k, halves_at<T>(k), r0, n0, acc);
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const unsigned r = r0 + ty * 4 + i;
    if (r >= rows) continue;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned n = n0 + tx * 4 + j;
      if (n >= cols_out) continue;
      T* out = c + (size_t)r * cols_out + n;
      const float v = rnd<T>(acc[i][j]);
      *out = from_f<T>(add ? to_f(*out) + v : v);
    }
  }
}

// c[r][n] = a[r] . w[n] as `gemm` computes it, kept in float and not rounded: one rank's part
// of a product split over ranks (its columns of `w`), which an all-reduce adds up before the
// sum is rounded once (`add_rounded`): `gemm`'s product bit for bit on one rank (`split`:
// `halves_at` of k) and on two (`split` = k).
template <typename T>
__global__ void __launch_bounds__(256)
gemm_part(const T* __restrict__ a, const T* __restrict__ w, float* __restrict__ c,
          unsigned rows, unsigned cols_out, unsigned k, unsigned split) {
  const unsigned tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const unsigned r0 = blockIdx.y * GM, n0 = blockIdx.x * GN;
  pdl_start();
  float acc[4][4] = {};
  gemm_halves<T>(a, w, rows, cols_out, k, split, r0, n0, acc);
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const unsigned r = r0 + ty * 4 + i;
    if (r >= rows) continue;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned n = n0 + tx * 4 + j;
      if (n < cols_out) c[(size_t)r * cols_out + n] = acc[i][j];
    }
  }
}

// The rotary embedding of the query and key heads of every row of `qkv` (the output of the
// query-key-value product: query heads, key heads, value heads), the query heads rotated in
// place, the key and value heads written into the layer's cache at the row's position. One
// thread a pair (i, i + head_dim / 2) of a head of a row.
template <typename T>
__global__ void rope_rows(T* __restrict__ qkv, const T* __restrict__ cos_t,
                          const T* __restrict__ sin_t, T* __restrict__ kc, T* __restrict__ vc,
                          unsigned rows, unsigned heads, unsigned kv_heads, unsigned head_dim) {
  pdl_start();
  const unsigned half = head_dim / 2, all = heads + 2 * kv_heads;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows * all * half) return;
  const unsigned r = t / (all * half), h = t / half % all, i = t % half;
  T* row = qkv + (size_t)r * all * head_dim + (size_t)h * head_dim;
  const float va = to_f(row[i]), vb = to_f(row[i + half]);
  if (h >= heads + kv_heads) {
    T* v = vc + ((size_t)r * kv_heads + (h - heads - kv_heads)) * head_dim;
    v[i] = from_f<T>(va);
    v[i + half] = from_f<T>(vb);
    return;
  }
  const float c = to_f(cos_t[(size_t)r * half + i]), s = to_f(sin_t[(size_t)r * half + i]);
  const float lo = rnd<T>(rnd<T>(__fmul_rn(va, c)) + rnd<T>(__fmul_rn(-vb, s)));
  const float hi = rnd<T>(rnd<T>(__fmul_rn(vb, c)) + rnd<T>(__fmul_rn(va, s)));
  T* out = h < heads ? row : kc + ((size_t)r * kv_heads + (h - heads)) * head_dim;
  out[i] = from_f<T>(lo);
  out[i + half] = from_f<T>(hi);
}

// Causal attention: query head h of row r over the cache's positions 0 ..= r, out[r][h] (the
// query heads rotated in `qkv`, rows of (heads + 2 kv_heads) head_dim). One warp a (row,
// head), each lane D / 32 elements of the head, online softmax in float.
template <typename T>
__global__ void __launch_bounds__(256)
causal_attention(const T* __restrict__ qkv, const T* __restrict__ kc, const T* __restrict__ vc,
                 T* __restrict__ out, unsigned rows, unsigned heads, unsigned kv_heads,
                 unsigned head_dim, float scale) {
  pdl_start();
  const unsigned wid = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
  const unsigned lane = threadIdx.x % WARP;
  if (wid >= rows * heads) return;
  const unsigned r = wid / heads, h = wid % heads, kvh = h / (heads / kv_heads);
  const unsigned per = head_dim / WARP;  // 1 to 4
  const T* qp = qkv + (size_t)r * (heads + 2 * kv_heads) * head_dim + (size_t)h * head_dim;
  float qf[MAX_HEAD_DIM / WARP], o[MAX_HEAD_DIM / WARP];
#pragma unroll
  for (int e = 0; e < MAX_HEAD_DIM / WARP; e++) {
    qf[e] = e < (int)per ? to_f(qp[lane + e * WARP]) : 0.f;
    o[e] = 0.f;
  }
  float m = NEG_INF, l = 0.f;
  const size_t stride = (size_t)kv_heads * head_dim;
  for (unsigned j = 0; j <= r; j++) {
    const T* kp = kc + j * stride + (size_t)kvh * head_dim;
    const T* vp = vc + j * stride + (size_t)kvh * head_dim;
    float s = 0.f;
#pragma unroll
    for (int e = 0; e < MAX_HEAD_DIM / WARP; e++) {
      if (e < (int)per) s += qf[e] * to_f(kp[lane + e * WARP]);
    }
    s = warp_sum(s) * scale;
    const float mn = fmaxf(m, s);
    const float corr = expf(m - mn), p = expf(s - mn);
    l = l * corr + p;
#pragma unroll
    for (int e = 0; e < MAX_HEAD_DIM / WARP; e++) {
      if (e < (int)per) o[e] = o[e] * corr + p * to_f(vp[lane + e * WARP]);
    }
    m = mn;
  }
  T* op = out + (size_t)r * heads * head_dim + (size_t)h * head_dim;
#pragma unroll
  for (int e = 0; e < MAX_HEAD_DIM / WARP; e++) {
    if (e < (int)per) op[lane + e * WARP] = from_f<T>(o[e] / l);
  }
}

// acts[r][i] = silu(gate) * up, from the gate-up product's row r (gate columns 0 .. ffn, up
// columns ffn .. 2 ffn), rounded as `norm_gate_up` rounds.
template <typename T>
__global__ void swiglu_rows(const T* __restrict__ gu, T* __restrict__ acts, unsigned rows,
                            unsigned ffn) {
  pdl_start();
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows * ffn) return;
  const unsigned r = t / ffn, i = t % ffn;
  const float gate = to_f(gu[(size_t)r * 2 * ffn + i]);
  const float up = to_f(gu[(size_t)r * 2 * ffn + ffn + i]);
  const float act = rnd<T>(gate / (1.f + expf(-gate)));
  acts[t] = from_f<T>(act * up);
}

}  // namespace llama
