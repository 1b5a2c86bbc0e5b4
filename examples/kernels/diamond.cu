// y[i] = base + i
extern "C" __global__ void iota(unsigned* y, unsigned base, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = base + i;
}

// out = ka * a + kb * b
extern "C" __global__ void lincomb(const unsigned* a, unsigned ka, const unsigned* b, unsigned kb,
                                   unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ka * a[i] + kb * b[i];
}
