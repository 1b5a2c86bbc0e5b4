// Declarations as real code has them beyond one kernel per name.
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void step(float* y, const float* x, int n) {}
#else
extern "C" __global__ void step(float* y, int n) {}
#endif

namespace ops {
__global__ void fill(float* y, float v, int n) {}
__global__ void fill(int* y, int v, int n) {}
}  // namespace ops

namespace nn {
template <typename T, int N> __global__ void rmsnorm(T* y, const T* x) {}
}  // namespace nn
namespace ref {
template <typename T, int N> __global__ void rmsnorm(T* y, const T* x) {}
}  // namespace ref

#define UNARY(name, T) extern "C" __global__ void name##_##T(T* y, int n) {}
typedef float f32;
UNARY(relu, f32)
UNARY(gelu, f32)
