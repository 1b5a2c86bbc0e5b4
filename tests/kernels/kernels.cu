// Kernels for the GPU tests. Compiled at run time with NVRTC (embedded with include_str!).
#define IDX (blockIdx.x * blockDim.x + threadIdx.x)

// y = a * x + y
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = IDX;
    if (i < n) y[i] = a * x[i] + y[i];
}

// y = y * mul + add (wrapping)
extern "C" __global__ void affine_u32(unsigned* y, unsigned mul, unsigned add, unsigned n) {
    unsigned i = IDX;
    if (i < n) y[i] = y[i] * mul + add;
}

// y[i] = base + i, for the threads the grid covers
extern "C" __global__ void iota_u32(unsigned* y, unsigned base, unsigned n) {
    unsigned i = IDX;
    if (i < n) y[i] = base + i;
}

// out = ka * a + kb * b
extern "C" __global__ void lincomb_u32(const unsigned* a, unsigned ka, const unsigned* b,
                                       unsigned kb, unsigned* out, unsigned n) {
    unsigned i = IDX;
    if (i < n) out[i] = ka * a[i] + kb * b[i];
}

// Thread (0,0,0) of block (0,0,0) reports the launch shape and dynamic shared memory size.
extern "C" __global__ void shape(unsigned* out) {
    extern __shared__ unsigned dyn[];
    unsigned smem;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem));
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 &&
        blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0) {
        if (smem >= 4) { dyn[0] = 7; out[7] = dyn[0]; } else { out[7] = 0; }
        out[0] = gridDim.x; out[1] = gridDim.y; out[2] = gridDim.z;
        out[3] = blockDim.x; out[4] = blockDim.y; out[5] = blockDim.z;
        out[6] = smem;
    }
}

// Counts every thread that ran into out[0].
extern "C" __global__ void count_threads(unsigned* out) {
    atomicAdd(out, 1u);
}

// One thread spins for about `cycles` clock cycles: keeps a stream busy so ordering bugs show.
extern "C" __global__ void spin(unsigned long long cycles) {
    long long start = clock64();
    while ((unsigned long long)(clock64() - start) < cycles) { }
}

// y[offset + i] = base + i for i < count
extern "C" __global__ void iota_at(unsigned* y, unsigned offset, unsigned count, unsigned base) {
    unsigned i = IDX;
    if (i < count) y[offset + i] = base + i;
}

// y[offset + i] = y[offset + i] * mul + add for i < count (wrapping): steps in sequence do not
// commute, so any reordering of one slot's steps shows in the result.
extern "C" __global__ void affine_at(unsigned* y, unsigned offset, unsigned count, unsigned mul,
                                     unsigned add) {
    unsigned i = IDX;
    if (i < count) y[offset + i] = y[offset + i] * mul + add;
}

// y[i] = i + a0 + ... + a7 (wrapping): 76 bytes of arguments, more than an argument block keeps
// in place.
extern "C" __global__ void wide_u32(unsigned* y, unsigned long long a0, unsigned long long a1,
                                    unsigned long long a2, unsigned long long a3,
                                    unsigned long long a4, unsigned long long a5,
                                    unsigned long long a6, unsigned long long a7, unsigned n) {
    unsigned i = IDX;
    if (i < n) y[i] = i + (unsigned)(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7);
}
