// An fp8 kernel the source-checking cases name.
#include <cuda_fp8.h>

extern "C" __global__ void dequant(const __nv_fp8_e4m3* x, float* y, __nv_fp8_e4m3 s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = float(x[i]) * float(s);
}
