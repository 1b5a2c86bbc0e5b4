// compute-sanitizer synccheck and kernels in a WHILE body: a reproducer.
//
// Build and run on a GPU machine:
//   nvcc -arch=sm_90 -o sync2 synccheck_while.cu
//   compute-sanitizer --tool synccheck ./sync2 <kernel 0..4> <graph 0 plain | 1 while | 2 if> <iterations> <threads>
//
// Seen on an H200 (driver 580, CUDA 13.0; the CG test showed the same on an H100),
// every kernel over 1024 elements:
//
//   kernel                                  plain graph   IF body   WHILE body (1 or 3 iterations)
//   k_full   (shuffles, barrier, warp 0)    0 errors      0 errors  1024 errors, kernel killed
//   k_bar    (one __syncthreads alone)      0             0         1024
//   k_shfl   (shuffles, atomic per warp)    0             0         0
//   k_bar_ret (barrier, then warps leave)   0             0         1024
//   k_shfl_bar (shuffles, then a barrier)   0             0         1024
//
// with 32 or 256 threads per block, SASS from nvcc or PTX compiled by the driver (the NVRTC path)
// alike, and with the reduction in a __noinline__ function or inlined. A lone barrier in a
// one-warp block cannot diverge: synccheck reports "Barrier error detected. Divergent thread(s)
// in warp" for every __syncthreads() of a kernel launched from a WHILE body, and only there. The
// conjugate-gradient kernels (examples/kernels/cg.cu) therefore reduce with warp shuffles and
// one atomic per warp, which is clean everywhere.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t err_ = (x); if (err_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); return 1; } } while (0)
__global__ void k_full(const float* p, double* s, unsigned n) {  // the cg reduction
    __shared__ double part[1024];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x; unsigned j = min(i, n - 1);
    double v = i < n ? (double)p[j] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    part[t] = __shfl_sync(0xffffffffu, v, 0);
    __syncthreads();
    if (t < 32) {
        unsigned nw = blockDim.x / 32;
        double w = part[min(t, nw - 1) * 32]; w = t < nw ? w : 0.0;
        for (int o = 16; o > 0; o >>= 1) w += __shfl_down_sync(0xffffffffu, w, o);
        if (t == 0) atomicAdd(s, w);
    }
}
__global__ void k_bar(const float* p, double* s, unsigned n) {  // a barrier alone
    __shared__ double part[1024];
    unsigned t = threadIdx.x; part[t] = p[t % n]; __syncthreads();
    if (t == 0) { double a = 0; for (unsigned k = 0; k < blockDim.x; k++) a += part[k]; atomicAdd(s, a); }
}
__global__ void k_shfl(const float* p, double* s, unsigned n) {  // shuffles, one atomic per warp
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; unsigned j = min(i, n - 1);
    double v = i < n ? (double)p[j] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(s, v);
}
__global__ void k_bar_ret(const float* p, double* s, unsigned n) {  // barrier, then most warps leave
    __shared__ double part[1024];
    unsigned t = threadIdx.x; part[t] = p[t % n]; __syncthreads();
    if (t < 32) { double a = part[t]; if (t == 0) atomicAdd(s, a); }
}
__global__ void k_shfl_bar(const float* p, double* s, unsigned n) {  // shuffle then barrier, no early exit
    __shared__ double part[1024];
    unsigned t = threadIdx.x; double v = p[t % n];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    part[t] = v; __syncthreads();
    if (t == 0) atomicAdd(s, part[0] + part[32 % blockDim.x]);
}
__global__ void ctl(cudaGraphConditionalHandle h, int* count, int max) {
    if (threadIdx.x == 0 && blockIdx.x == 0) { int c = ++*count; cudaGraphSetConditional(h, c < max); }
}
int main(int argc, char** argv) {
    int kern = atoi(argv[1]), mode = atoi(argv[2]), iters = atoi(argv[3]); unsigned threads = atoi(argv[4]);
    unsigned n = 1024; float* p; double* s; int* count;
    CK(cudaMalloc(&p, n * 4)); CK(cudaMalloc(&s, 8)); CK(cudaMalloc(&count, 4));
    float h[1024]; for (unsigned i = 0; i < n; i++) h[i] = 1.0f + i % 7;
    CK(cudaMemcpy(p, h, n * 4, cudaMemcpyHostToDevice)); CK(cudaMemset(s, 0, 8)); CK(cudaMemset(count, 0, 4));
    cudaGraph_t g; CK(cudaGraphCreate(&g, 0));
    cudaGraph_t target = g; cudaGraphConditionalHandle hd = 0;
    if (mode) {
        CK(cudaGraphConditionalHandleCreate(&hd, g, 1, cudaGraphCondAssignDefault));
        cudaGraphNodeParams cp = {}; cp.type = cudaGraphNodeTypeConditional;
        cp.conditional.handle = hd; cp.conditional.type = mode == 1 ? cudaGraphCondTypeWhile : cudaGraphCondTypeIf;
        cp.conditional.size = 1;
        cudaGraphNode_t cn; CK(cudaGraphAddNode(&cn, g, nullptr, nullptr, 0, &cp));
        target = cp.conditional.phGraph_out[0];
    }
    void* fs[] = {(void*)k_full, (void*)k_bar, (void*)k_shfl, (void*)k_bar_ret, (void*)k_shfl_bar};
    void* a1[] = {&p, &s, &n};
    cudaKernelNodeParams kp = {}; kp.func = fs[kern]; kp.gridDim = dim3(n / threads); kp.blockDim = dim3(threads); kp.kernelParams = a1;
    cudaGraphNode_t k; CK(cudaGraphAddKernelNode(&k, target, nullptr, 0, &kp));
    if (mode == 1) {
        void* a2[] = {&hd, &count, &iters};
        cudaKernelNodeParams cp2 = {}; cp2.func = (void*)ctl; cp2.gridDim = dim3(1); cp2.blockDim = dim3(1); cp2.kernelParams = a2;
        cudaGraphNode_t c2; CK(cudaGraphAddKernelNode(&c2, target, &k, 1, &cp2));
    }
    cudaGraphExec_t e; CK(cudaGraphInstantiate(&e, g, 0));
    CK(cudaGraphLaunch(e, 0)); CK(cudaDeviceSynchronize());
    double out; CK(cudaMemcpy(&out, s, 8, cudaMemcpyDeviceToHost));
    printf("sum=%.1f\n", out);
    return 0;
}
