// A kernel the preprocessor leaves out, and one it keeps.
#define USE_FAST_PATH 1

#ifndef USE_FAST_PATH
extern "C" __global__ void scale_slow(float* y, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= a;
}
#endif

extern "C" __global__ void scale(float* y, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= a;
}
