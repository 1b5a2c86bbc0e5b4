// Kernels for conditional nodes: each sets a condition handle with cudaGraphSetConditional
// (declared by cuda-graph's device API, which NVRTC includes first: no declaration here).

// count[0] += step; count[1] counts the calls; loop again while count[0] < limit.
extern "C" __global__ void count_up(unsigned* count, unsigned step, unsigned limit,
                                    cudaGraphConditionalHandle again) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        count[0] += step;
        count[1] += 1;
        cudaGraphSetConditional(again, count[0] < limit ? 1u : 0u);
    }
}

// Sets the handle to `value`.
extern "C" __global__ void decide(unsigned value, cudaGraphConditionalHandle c) {
    if (threadIdx.x == 0 && blockIdx.x == 0) cudaGraphSetConditional(c, value);
}

// Sets the handle to 1 when v[0] is odd.
extern "C" __global__ void decide_odd(const unsigned* v, cudaGraphConditionalHandle c) {
    if (threadIdx.x == 0 && blockIdx.x == 0) cudaGraphSetConditional(c, v[0] & 1u);
}

// out[i] = value for i < n.
extern "C" __global__ void fill(unsigned* out, unsigned value, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

// out[0] += 1.
extern "C" __global__ void bump(unsigned* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] += 1;
}
