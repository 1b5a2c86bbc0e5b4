// y = a * x + y over n elements.
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// total[0] = sum of y (one block of 1024 threads, shared-memory tree reduction).
extern "C" __global__ void sum(const float* y, float* total, unsigned n) {
    __shared__ float part[1024];
    float acc = 0.0f;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) acc += y[i];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) total[0] = part[0];
}
