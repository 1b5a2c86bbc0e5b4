// The WHILE-limit benchmark's body: one counting kernel, <<<1, 1>>>, that ends its loop after
// `stop` iterations (c[0] counts), and the reset before the loop.
extern "C" __global__ void reset(unsigned* c) {
    if (threadIdx.x == 0 && blockIdx.x == 0) c[0] = 0;
}

extern "C" __global__ void count_to(unsigned* c, unsigned stop,
                                    cudaGraphConditionalHandle again) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        c[0] += 1;
        cudaGraphSetConditional(again, c[0] < stop ? 1u : 0u);
    }
}
