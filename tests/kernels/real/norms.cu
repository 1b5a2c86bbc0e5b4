// Normalisation and elementwise kernels as people write them: C++ linkage in a namespace,
// templates over the element type and block size, function-like macros, an included header,
// half and bfloat16 types, structs by value, vector types.
#include "common.cuh"

namespace cg_real {

// RMSNorm over rows of `cols` elements: one block per row.
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
rmsnorm(T* __restrict__ out, const T* __restrict__ in, const float* __restrict__ weight,
        NormParams p) {
  __shared__ float partial[BLOCK];
  const T* row = in + (size_t)blockIdx.x * p.cols;
  float acc = 0.f;
  for (int c = threadIdx.x; c < p.cols; c += BLOCK) {
    float v = to_float(row[c]);
    acc += v * v;
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float inv = rsqrtf(partial[0] / p.cols + p.eps);
  for (int c = threadIdx.x; c < p.cols; c += BLOCK) {
    out[(size_t)blockIdx.x * p.cols + c] = from_float<T>(to_float(row[c]) * inv * weight[c]);
  }
}

// y = alpha * x + beta * y, C++ linkage, struct by value.
__global__ void axpby(const float* x, float* y, ScaleParams p) {
  CUDA_KERNEL_LOOP(i, p.n) { y[i * p.stride] = p.alpha * x[i * p.stride] + p.beta * y[i * p.stride]; }
}

// Half-precision scale, in place.
__global__ void scale_half(__half* data, float s, int N) {
  CUDA_KERNEL_LOOP(i, N) { data[i] = __float2half(__half2float(data[i]) * s); }
}

}  // namespace cg_real

// Unary elementwise kernels declared through a macro, as many projects do.
#define DEFINE_UNARY(NAME, EXPR)                                                  \
  __global__ void NAME##_kernel(const float* __restrict__ x, float* __restrict__ y, int N) { \
    CUDA_KERNEL_LOOP(i, N) {                                                       \
      float v = x[i];                                                              \
      y[i] = (EXPR);                                                               \
    }                                                                              \
  }

DEFINE_UNARY(relu, v > 0.f ? v : 0.f)
DEFINE_UNARY(square, v * v)

// Vectorised copy with float4 loads.
extern "C" __global__ void copy4(const float4* __restrict__ src, float4* __restrict__ dst, int n4) {
  CUDA_KERNEL_LOOP(i, n4) { dst[i] = src[i]; }
}

// Bytes as untyped memory.
extern "C" __global__ void memcopy_bytes(const void* src, void* dst, size_t bytes) {
  const unsigned char* s = static_cast<const unsigned char*>(src);
  unsigned char* d = static_cast<unsigned char*>(dst);
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += blockDim.x * gridDim.x) {
    d[i] = s[i];
  }
}

#if defined(ENABLE_BF16) && BLOCK_SIZE >= 128
// Only built when the graph defines ENABLE_BF16.
__global__ void bf16_to_float(const __nv_bfloat16* in, float* out, int N) {
  CUDA_KERNEL_LOOP(i, N) { out[i] = __bfloat162float(in[i]); }
}
#endif
