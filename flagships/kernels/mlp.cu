// The MLP's kernels (src/mlp.rs). `Mlp` launches none of its own: each layer is one cuBLASLt
// product whose epilogue adds the bias and applies the ReLU. `MlpSplit` splits each layer's
// input into TF32 parts (`split3`; `take_split3` reads the new input from pinned host memory
// as it splits it) for products on the tensor cores.
//
// `MlpVec`, for batches of up to `MAXB` rows, streams each weight once at the memory bandwidth
// in three kernels (a kernel boundary costs about as much as a small layer): `take_input` copies
// the new input from pinned host memory and clears the second layer's sums; `layer12` gives
// each warp a row of the first layer, and each block adds what its rows contribute to every
// output of the second (the second weight's columns for those rows) into the sums; `layer3`
// finishes the second layer (bias, ReLU) as it stages the sums and computes the third. Each
// kernel loads its weights into registers before it waits for the kernel before
// (programmatic dependent launch), so they are on their way while that kernel ends.

#include "stream_f32.cuh"

#define THREADS 256
#define MAXB 8

// x[i] = the input at host address `from` (pinned, mapped: the device reads it over PCIe), `n`
// floats, a multiple of 4; sums[0..m] = 0.
extern "C" __global__ void __launch_bounds__(THREADS)
take_input(unsigned long long from, float* x, unsigned n, float* sums, unsigned m) {
  pdl_release();
  const float4* src = (const float4*)from;
  for (unsigned i = blockIdx.x * THREADS + threadIdx.x; i < n / 4; i += gridDim.x * THREADS) {
    ((float4*)x)[i] = src[i];
  }
  for (unsigned i = blockIdx.x * THREADS + threadIdx.x; i < m; i += gridDim.x * THREADS) {
    sums[i] = 0.f;
  }
}

// The dot products of this warp's row of a weight (its P pieces of 16 bytes, `wv`) with each
// of the first n input rows staged in shared memory (`xs`, C4 float4 a row), summed over the
// warp: every lane gets dot[b] for b < n (0 for the others).
template <int P, unsigned C4>
__device__ __forceinline__ void warp_dots(const uint4* wv, const float4* xs, unsigned n,
                                          float* dot) {
  const unsigned lane = threadIdx.x % WARP;
  float acc[MAXB];
#pragma unroll
  for (int b = 0; b < MAXB; b++) acc[b] = 0.f;
#pragma unroll
  for (int k = 0; k < P; k++) {
#pragma unroll
    for (int b = 0; b < MAXB; b++) {
      if (b < n) acc[b] += dot4(wv[k], xs[b * C4 + lane + k * WARP]);
    }
  }
#pragma unroll
  for (int b = 0; b < MAXB; b++) dot[b] = b < n ? warp_sum(acc[b]) : 0.f;
}

// The first layer (IN inputs, H1 rows; bias and ReLU) and its part of the second: a block of 8
// warps takes 8 rows of the first layer, a warp a row, and adds their products with the
// second weight's 8 columns for them into sums[b, o] for every output o of the second layer
// (H2 of them, 4 a thread).
#define IN 512
#define H1 1024
#define H2 1024
extern "C" __global__ void __launch_bounds__(THREADS)
layer12(const float* w1, const float* x, const float* b1, const float* w2, float* sums,
        unsigned nb) {
  extern __shared__ __align__(16) float4 xs[];
  __shared__ float hs[MAXB][THREADS / WARP];
  constexpr unsigned C4 = IN / 4, P = C4 / WARP, Q = H2 / THREADS;
  const unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  const unsigned r0 = blockIdx.x * (THREADS / WARP), r = r0 + warp;
  uint4 wv[P];
#pragma unroll
  for (int k = 0; k < P; k++) wv[k] = load_weight(w1 + (size_t)r * IN + (lane + k * WARP) * 4);
  // w2[o, r0 .. r0 + 8] for this thread's outputs o (H1 columns a row of w2).
  uint4 cv[Q][2];
#pragma unroll
  for (int q = 0; q < Q; q++) {
    const float* row = w2 + (size_t)(threadIdx.x + q * THREADS) * H1 + r0;
    cv[q][0] = load_weight(row);
    cv[q][1] = load_weight(row + 4);
  }
  pdl_wait();
  pdl_release();
  const unsigned n = min(nb, (unsigned)MAXB);
  for (unsigned i = threadIdx.x; i < n * C4; i += THREADS) {
    xs[i] = reinterpret_cast<const float4*>(x)[i];
  }
  __syncthreads();
  float dot[MAXB];
  warp_dots<P, C4>(wv, xs, n, dot);
#pragma unroll
  for (int b = 0; b < MAXB; b++) {
    if (b < n && lane == 0) hs[b][warp] = fmaxf(dot[b] + b1[r], 0.f);
  }
  __syncthreads();
#pragma unroll
  for (int b = 0; b < MAXB; b++) {
    if (b < n) {
      const float4 h0 = make_float4(hs[b][0], hs[b][1], hs[b][2], hs[b][3]);
      const float4 h1 = make_float4(hs[b][4], hs[b][5], hs[b][6], hs[b][7]);
#pragma unroll
      for (int q = 0; q < Q; q++) {
        atomicAdd(sums + (size_t)b * H2 + threadIdx.x + q * THREADS,
                  dot4(cv[q][0], h0) + dot4(cv[q][1], h1));
      }
    }
  }
}

// The third layer (H2 inputs, `rows` rows, its bias, no ReLU), finishing the second as it
// stages its input: relu(sums + b2). A warp a row, its weight loaded before the wait.
extern "C" __global__ void __launch_bounds__(THREADS)
layer3(const float* w3, const float* sums, const float* b2, const float* b3, float* y,
       unsigned rows, unsigned nb) {
  extern __shared__ __align__(16) float4 xs[];
  constexpr unsigned C4 = H2 / 4, P = C4 / WARP;
  const unsigned lane = threadIdx.x % WARP;
  const unsigned r = blockIdx.x * (THREADS / WARP) + threadIdx.x / WARP;
  uint4 wv[P];
#pragma unroll
  for (int k = 0; k < P; k++) {
    wv[k] = r < rows ? load_weight(w3 + (size_t)r * H2 + (lane + k * WARP) * 4)
                     : make_uint4(0, 0, 0, 0);
  }
  pdl_wait();
  pdl_release();
  const unsigned n = min(nb, (unsigned)MAXB);
  for (unsigned i = threadIdx.x; i < n * C4; i += THREADS) {
    const float4 s = reinterpret_cast<const float4*>(sums)[i];
    const float4 b = reinterpret_cast<const float4*>(b2)[i % C4];
    xs[i] = make_float4(fmaxf(s.x + b.x, 0.f), fmaxf(s.y + b.y, 0.f), fmaxf(s.z + b.z, 0.f),
                        fmaxf(s.w + b.w, 0.f));
  }
  __syncthreads();
  if (r >= rows) return;
  float dot[MAXB];
  warp_dots<P, C4>(wv, xs, n, dot);
#pragma unroll
  for (int b = 0; b < MAXB; b++) {
    if (b < n && lane == 0) y[(size_t)b * rows + r] = dot[b] + b3[r];
  }
}

// x rounded to TF32 (10 bits of mantissa, to nearest even; infinities and NaN kept), exact on
// the tensor cores: the same bits as the host's `tf32` (`src/mlp.rs`), which splits the
// weights, gives.
__device__ __forceinline__ float tf32_big(float v) {
  const unsigned b = __float_as_uint(v);
  if ((b & 0x7f800000u) == 0x7f800000u) return v;
  return __uint_as_float((b + 0xfffu + ((b >> 13) & 1u)) & ~0x1fffu);
}

// `MlpSplit`: the four values of x at `i` (a multiple of 4; x holds n columns of k values,
// column-major, k a multiple of 4) into the column of 3k of x3 they belong to: [big; small;
// big], big = x rounded to TF32 and small = x - big (exact in f32), so a TF32 product with
// the weight split [big, big, small] is as accurate as f32 arithmetic.
__device__ __forceinline__ void split_put(float4 v, float* x3, unsigned i, unsigned k) {
  const unsigned c = i / k, r = i % k;
  const float4 big = make_float4(tf32_big(v.x), tf32_big(v.y), tf32_big(v.z), tf32_big(v.w));
  const float4 small = make_float4(v.x - big.x, v.y - big.y, v.z - big.z, v.w - big.w);
  float4* col = reinterpret_cast<float4*>(x3 + (size_t)c * 3 * k + r);
  col[0] = big;
  col[k / 4] = small;
  col[k / 2] = big;
}

// Every column of x split into x3 (`split_put`).
extern "C" __global__ void __launch_bounds__(THREADS)
split3(const float* x, float* x3, unsigned k, unsigned n) {
  for (unsigned i = (blockIdx.x * THREADS + threadIdx.x) * 4; i < n * k; i += gridDim.x * THREADS * 4) {
    split_put(*reinterpret_cast<const float4*>(x + i), x3, i, k);
  }
}

// The new input, read from pinned host memory at address `from` (n columns of k values, 16-byte
// aligned), split into x3 (`split_put`): the host's values cross the bus once, with no copy
// into device memory before the split.
extern "C" __global__ void __launch_bounds__(THREADS)
take_split3(unsigned long long from, float* x3, unsigned k, unsigned n) {
  const float4* src = reinterpret_cast<const float4*>(from);
  for (unsigned i = (blockIdx.x * THREADS + threadIdx.x) * 4; i < n * k; i += gridDim.x * THREADS * 4) {
    split_put(src[i / 4], x3, i, k);
  }
}
