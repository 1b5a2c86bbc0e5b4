// Kernels declared as real code declares them beyond one per name (tests/source_targets.rs):
// overloads in a namespace, chosen by the graph's parameter list, and one kernel declared in
// both branches of an `#if` on the architecture, alike.

namespace ops {
__global__ void fill(float* y, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = v + (float)i;
}
__global__ void fill(int* y, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2 * v + i;
}
}  // namespace ops

#if __CUDA_ARCH__ >= 800
extern "C" __global__ void arch_tag(int* out) {
    if (threadIdx.x == 0) out[0] = __CUDA_ARCH__;
}
#else
extern "C" __global__ void arch_tag(int* out) {
    if (threadIdx.x == 0) out[0] = -__CUDA_ARCH__;
}
#endif
