// What the Llama kernels (`kernels.cu`) share: conversions between `T` and float, 16-byte
// loads, warp reductions, the RMSNorm of an input into shared memory, and the streaming of
// weight rows through registers that every projection kernel is built on.
#pragma once
#include <cuda_bf16.h>

#define WARP 32

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

// Shared memory through 32-bit addresses. nvcc's compiler addresses shared memory with 32-bit
// registers; NVRTC's (libNVVM) with 64-bit ones, which adds integer work to every shared read
// of the projections' inner loops: the whole 1B decode step was 2% slower compiled by NVRTC
// than by nvcc until its shared reads and writes went through these (measured on an H100 with
// `step_trace`). The address of `p` in the block's shared window:
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  unsigned a;
  asm("{ .reg .u64 s; cvta.to.shared.u64 s, %1; cvt.u32.u64 %0, s; }" : "=r"(a) : "l"(p));
  return a;
}
// 16 bytes at shared address `a` (16-byte aligned). `volatile`: kept in order with the block's
// barriers, which the compiler does not know the address depends on.
__device__ __forceinline__ uint4 lds16(unsigned a) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(a));
  return v;
}
__device__ __forceinline__ void sts16(unsigned a, uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
}
__device__ __forceinline__ uint4 f4_bits(float a, float b, float c, float d) {
  return make_uint4(__float_as_uint(a), __float_as_uint(b), __float_as_uint(c), __float_as_uint(d));
}

// `cols` elements of T (a multiple of 16 bytes) from global `src` into shared `dst`, every
// piece asked for before any lands: on sm_80 and later by the SM's asynchronous copy (no
// registers; the caller waits with `staged`), else by loads and stores. A plain loop would
// wait for each piece before asking for the next: four round trips to L2 for the 16 KB input
// of the down projection, on the step's critical path.
template <typename T>
__device__ __forceinline__ void stage(T* dst, const T* __restrict__ src, unsigned cols) {
  constexpr int N = 16 / sizeof(T);
  for (unsigned c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
#if __CUDA_ARCH__ >= 800
    const unsigned d = smem_u32(dst + c);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src + c) : "memory");
#else
    *reinterpret_cast<uint4*>(dst + c) = ldg16(src + c);
#endif
  }
}
// Waits for this thread's `stage` copies (a __syncthreads must follow before other threads'
// pieces are read).
__device__ __forceinline__ void staged() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
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
  const unsigned at = smem_u32(xn);
  float acc = 0.f;
#pragma unroll 4
  for (unsigned c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    float v[N];
    load16(x + c, v);
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      acc += v[i] * v[i] + v[i + 1] * v[i + 1] + v[i + 2] * v[i + 2] + v[i + 3] * v[i + 3];
      sts16(at + (c + i) * 4, f4_bits(v[i], v[i + 1], v[i + 2], v[i + 3]));
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
    for (int i = 0; i < N; i += 4) {
      const uint4 u = lds16(at + (c + i) * 4);
      const float v[4] = {__uint_as_float(u.x), __uint_as_float(u.y), __uint_as_float(u.z),
                          __uint_as_float(u.w)};
      float o[4];
#pragma unroll
      for (int j = 0; j < 4; j++) o[j] = rnd<T>(rnd<T>(v[j] * r) * gv[i + j]);
      sts16(at + (c + i) * 4, f4_bits(o[0], o[1], o[2], o[3]));
    }
  }
  __syncthreads();
}

// 16-byte pieces of a lane's share of a weight row held in registers, PF at a time. A kernel's
// grid is at most a few blocks an SM, and each warp takes rows one after another (the warp's
// number, then every `warps` on): while one batch of pieces is used the next is in flight,
// the first batch of the warp's next row included, so a warp's loads do not stop between rows
// and the RMSNorm before a projection is computed once a block.
#define PF 8
template <int P> struct Pieces {
  uint4 v[P];
};
using Ahead = Pieces<PF>;

// 16 bytes of a weight at `p` (16-byte aligned), read-only, marked to leave the L2 cache
// first: a token streams every weight once, so the activations, the KV cache and the norms
// stay cached in its place.
__device__ __forceinline__ uint4 ldw16(const void* p) {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  uint4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

// Reads the P pieces of this lane's share of `row` (cols elements) from piece `base` on
// (piece k of a lane covers elements (lane + (base + k) * 32) * N ..).
template <typename T, int P>
__device__ __forceinline__ void fetch(const T* __restrict__ row, unsigned cols, Pieces<P>& a,
                                      unsigned base = 0) {
  constexpr int N = Vec16<T>::N;
  const unsigned lane = threadIdx.x % WARP;
#pragma unroll
  for (int k = 0; k < P; k++) {
    const unsigned c = (lane + (base + k) * WARP) * N;
    if (c < cols) a.v[k] = ldw16(row + c);
  }
}

// The vector a weight row is multiplied with, in shared memory (its 32-bit address,
// `smem_u32`): as floats (an RMSNorm's output), or as `T` (16-byte aligned).
struct SharedVec {
  unsigned at;
  __device__ __forceinline__ explicit SharedVec(const float* v) : at(smem_u32(v)) {}
  template <int N> __device__ __forceinline__ void get(unsigned c, float* out) const {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const uint4 f = lds16(at + (c + i) * 4);
      out[i] = __uint_as_float(f.x); out[i + 1] = __uint_as_float(f.y);
      out[i + 2] = __uint_as_float(f.z); out[i + 3] = __uint_as_float(f.w);
    }
  }
};
template <typename T> struct SharedT {
  unsigned at;
  __device__ __forceinline__ explicit SharedT(const T* v) : at(smem_u32(v)) {}
  template <int N> __device__ __forceinline__ void get(unsigned c, float* out) const {
    unpack(lds16(at + c * (unsigned)sizeof(T)), out, static_cast<const T*>(nullptr));
  }
};

// The dot product of `row` (cols elements, 16-byte aligned) with `vec`, summed over the warp;
// every lane gets it. `cur` holds the row's first batch on entry and, on return, the first
// batch of `next` (the warp's next row; none if null).
template <typename T, typename V>
__device__ __forceinline__ float dot_stream(const T* __restrict__ row, const T* __restrict__ next,
                                            unsigned cols, Ahead& cur, const V& vec) {
  constexpr int N = Vec16<T>::N;
  const unsigned lane = threadIdx.x % WARP;
  float acc = 0.f;
#pragma unroll 1
  for (unsigned base = 0; base * WARP * N < cols; base += PF) {
    Ahead nx;
    if ((base + PF) * WARP * N < cols) {
      fetch<T>(row, cols, nx, base + PF);
    } else if (next != nullptr) {
      fetch<T>(next, cols, nx);
    }
#pragma unroll
    for (int k = 0; k < PF; k++) {
      const unsigned c = (lane + (base + k) * WARP) * N;
      if (c < cols) {
        float w[N], x[N];
        unpack(cur.v[k], w, row);
        vec.template get<N>(c, x);
#pragma unroll
        for (int i = 0; i < N; i++) acc += w[i] * x[i];
      }
    }
    cur = nx;
  }
  return warp_sum(acc);
}

// This warp's number in the grid, and the warps of the grid.
__device__ __forceinline__ unsigned warp_id() {
  return blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
}
__device__ __forceinline__ unsigned warps() { return gridDim.x * (blockDim.x / WARP); }

}  // namespace llama
