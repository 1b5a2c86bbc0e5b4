// Parameter types beyond scalars and pointers, for the compile-time cases.
#include <cuda.h>
#include <type_traits>

struct Params {
  float scale;
  int n;
  double bias;
};

namespace ops {
enum class ScaleMode : int { kNone = 0, kPerTensor = 1, kPerToken = 2 };

template <typename T, ScaleMode MODE>
__global__ void scale(T* y, int n) {}

template <typename T, bool Atomic>
__global__ void reduce(T* out, const T* in, int n, std::bool_constant<Atomic>) {}
}  // namespace ops

extern "C" __global__ void apply(float* y, Params p) {}
extern "C" __global__ void gather(const float* const* xs, float** ys, int n) {}
extern "C" __global__ void load(const __grid_constant__ CUtensorMap map, float* y) {}

extern "C" __global__ void produce(float* y, int n) {
  cudaTriggerProgrammaticLaunchCompletion();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}

extern "C" __global__ void rows(const float* const* xs, float* z, int n) {
  const float* row = xs[blockIdx.x];
  cudaGridDependencySynchronize();
  if (threadIdx.x < n) z[threadIdx.x] = row[threadIdx.x];
}
