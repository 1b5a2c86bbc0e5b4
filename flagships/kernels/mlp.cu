// The MLP's kernels (src/mlp.rs). `Mlp` launches none of its own: each layer is one cuBLASLt
// product whose epilogue adds the bias and applies the ReLU. `MlpSplit` splits each layer's
// input into TF32 parts (`split3`) for products on the tensor cores.
//
// `MlpVec`, for batches of up to `MAXB` rows, streams each weight once at the memory bandwidth
// in three kernels (a kernel boundary costs about as much as a small layer): `take_input` copies
// the new input from pinned host memory and clears the second layer's sums; `layer12` gives
// each warp a row of the first layer, and each block adds what its rows contribute to every
// output of the second (the second weight's columns for those rows) into the sums; `layer3`
// finishes the second layer (bias, ReLU) as it stages the sums and computes the third. Each
// kernel loads its weights into registers before it waits for the kernel before
// (programmatic dependent launch), so they are on their way while that kernel ends.

#define WARP 32
#define THREADS 256
#define MAXB 8

// Let the next kernel launch (it waits for this one's writes before reading them).
__device__ __forceinline__ void pdl_release() {
  asm volatile("griddepcontrol.launch_dependents;");
}

// Wait for the kernel before: its writes are visible after this.
__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

// 16 bytes of a weight, read-only, marked to leave the L2 cache first (a step streams each
// weight once).
__device__ __forceinline__ uint4 load_weight(const float* p) {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  uint4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

__device__ __forceinline__ float dot4(uint4 w, float4 x) {
  return __uint_as_float(w.x) * x.x + __uint_as_float(w.y) * x.y + __uint_as_float(w.z) * x.z +
         __uint_as_float(w.w) * x.w;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = WARP / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

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
  for (int b = 0; b < MAXB; b++) {
    if (b < n) {
      const float s = warp_sum(acc[b]) + b1[r];
      if (lane == 0) hs[b][warp] = fmaxf(s, 0.f);
    }
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
  for (int b = 0; b < MAXB; b++) {
    if (b < n) {
      const float s = warp_sum(acc[b]) + b3[r];
      if (lane == 0) y[(size_t)b * rows + r] = s;
    }
  }
}

// x rounded to TF32 (10 bits of mantissa, to nearest): exact on the tensor cores.
__device__ __forceinline__ float tf32_big(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return __uint_as_float(r);
}

// `MlpSplit`: each of the n columns of k values of x (column-major) becomes a column of 3k in
// x3: [big; small; big], big = x rounded to TF32 and small = x - big (exact in f32), so a TF32
// product with the weight split [big, big, small] is as accurate as f32 arithmetic.
extern "C" __global__ void __launch_bounds__(THREADS)
split3(const float* x, float* x3, unsigned k, unsigned n) {
  for (unsigned i = blockIdx.x * THREADS + threadIdx.x; i < n * k; i += gridDim.x * THREADS) {
    const unsigned c = i / k, r = i % k;
    const float v = x[i], big = tf32_big(v);
    float* col = x3 + (size_t)c * 3 * k;
    col[r] = big;
    col[k + r] = v - big;
    col[2 * k + r] = big;
  }
}
