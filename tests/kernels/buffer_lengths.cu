// Kernels for buffers with declared lengths (`buffer x: [T; len];`): each touches exactly the
// elements its length param names, so a buffer shorter than that would be run past.

// y[i] = 2 * x[i] + 1 for i < n.
extern "C" __global__ void affine(const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}

// y[i] = x[i] + k for i < n.
extern "C" __global__ void shift(const float* x, float* y, float k, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + k;
}
