// Kernels for WHILE loops with an iteration limit (`while c, max n`): the runtime's own kernel
// ends the loop at the limit; these only do the body's work, or end it early.

// x[i] += i + 1 for i < n: a body that never sets its loop's condition.
extern "C" __global__ void add_index(unsigned* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += i + 1;
}

// c[0] = value.
extern "C" __global__ void set_one(unsigned* c, unsigned value) {
    if (threadIdx.x == 0 && blockIdx.x == 0) c[0] = value;
}

// c[0] += 1; go on while c[0] < stop.
extern "C" __global__ void count_to(unsigned* c, unsigned stop,
                                    cudaGraphConditionalHandle again) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        c[0] += 1;
        cudaGraphSetConditional(again, c[0] < stop ? 1u : 0u);
    }
}
