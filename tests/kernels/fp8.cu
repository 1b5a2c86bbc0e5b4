// fp8 kernels for the GPU tests (tests/fp8.rs): built from source with NVRTC, which finds
// <cuda_fp8.h> in the CUDA toolkit's include directory.
#include <cuda_fp8.h>

// f = x * s in float (exact: two 4-bit significands), y = f as e5m2 (nearest even,
// saturating: the __nv_fp8_e5m2(float) constructor).
extern "C" __global__ void fp8_scale(const __nv_fp8_e4m3* x, __nv_fp8_e5m2* y, float* f,
                                     __nv_fp8_e4m3 s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        f[i] = float(x[i]) * float(s);
        y[i] = __nv_fp8_e5m2(f[i]);
    }
}
