// Every item of the device API that cuda-graph's docs tell a kernel to call or name, used with
// no declaration and no #include: cuda-graph includes its device API before the file
// (tests/device_api.rs builds it on the GPU; CI compiles it to machine code for sm_90 and sm_80).

// y[i] = a[i] + b[i] * s + c[i] (each exact in float), for a programmatic successor: waits for
// the work before it, then lets its successor start.
extern "C" __global__ void mix(const __half* a, const __nv_bfloat16* b, const __nv_fp8_e4m3* c,
                               __nv_bfloat16 s, float* y, unsigned n) {
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __half2float(a[i]) + __bfloat162float(b[i]) * __bfloat162float(s) + float(c[i]);
}

// One step of a WHILE loop: counts, and ends the loop at `limit`.
extern "C" __global__ void tick(unsigned* count, unsigned limit, cudaGraphConditionalHandle again) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        unsigned c = ++count[0];
        cudaGraphSetConditional(again, c < limit ? 1u : 0u);
    }
}

// y[i] += count[0], after `mix` (a programmatic edge: it waits before it reads) and the loop;
// out[i] = y[i] as a half, rounded as __float2half does.
extern "C" __global__ void finish(float* y, const unsigned* count, __half* out, unsigned n) {
    cudaGridDependencySynchronize();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] += (float)count[0];
        out[i] = __float2half(y[i] * 0.1f);
    }
}
