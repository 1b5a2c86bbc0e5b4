// C++ kernels for the compile-time error cases.
struct Params {
  float scale;
  int n;
  double bias;
};

namespace ops {
template <typename T, int BLOCK>
__global__ void fill(T* y, T v, int n) {}

__global__ void apply(float* y, Params p) {}
}  // namespace ops

namespace {
__global__ void internal(float* y) {}
}

#ifdef WITH_EXTRA
__global__ void extra(float* y) {}
#endif
