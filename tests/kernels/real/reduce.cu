// Reductions: a template with a default block size, a kernel behind #ifdef, kernels that
// differ by architecture, and a kernel taking a struct through a pointer.
#include "common.cuh"

template <typename T, int BLOCK = BLOCK_SIZE>
__global__ void block_sum(const T* __restrict__ x, float* __restrict__ out, int n) {
  __shared__ float buf[BLOCK];
  float acc = 0.f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) {
    acc += cg_real::to_float(x[i]);
  }
  buf[threadIdx.x] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}

#ifdef USE_DOT
template <int BLOCK>
__global__ void dot(const float* a, const float* b, float* out, int n) {
  float acc = 0.f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) acc += a[i] * b[i];
  atomicAdd(out, acc);
}
#endif

// Parameters read from device memory.
__global__ void scale_by_params(const ScaleParams* params, float* y) {
  CUDA_KERNEL_LOOP(i, params->n) { y[i] = params->alpha * y[i] + params->beta; }
}

namespace {
__global__ void hidden(float* y) { y[threadIdx.x] = 0.f; }
}
