// Shared helpers, in the style of a model-serving project's kernel headers.
#pragma once

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

#define CUDA_KERNEL_LOOP(i, n)                                                    \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);                    \
       i += blockDim.x * gridDim.x)

#define DIV_UP(a, b) (((a) + (b) - 1) / (b))
#define STRINGIFY(x) #x
#define CONCAT(a, b) a##b

struct ScaleParams {
  float alpha;
  float beta;
  int n;
  int stride;
};

typedef struct {
  float eps;
  int cols;
} NormParams;

namespace cg_real {
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
}  // namespace cg_real
