// The tiny kernel every benchmarked graph is made of: one block of 32 threads updates 32 floats
// at `offset`. `tiny_ptr` reads the scalar from device memory (how a captured PyTorch graph
// changes a value: copy into a static tensor, then replay); the arithmetic is the same.
extern "C" __global__ void tiny(float* y, unsigned offset, float a) {
    unsigned i = offset + threadIdx.x;
    y[i] = y[i] * a + 1.0f;
}

extern "C" __global__ void tiny_ptr(float* y, unsigned offset, const float* a) {
    unsigned i = offset + threadIdx.x;
    y[i] = y[i] * a[0] + 1.0f;
}

// A heavy kernel: every thread runs `iters` dependent multiply-adds on its own value. Launched
// with a grid of an eighth of the GPU's blocks, eight of them side by side fill it.
extern "C" __global__ void heavy(float* y, unsigned offset, unsigned iters) {
    unsigned i = offset + blockIdx.x * blockDim.x + threadIdx.x;
    float v = y[i];
    for (unsigned k = 0; k < iters; k++) v = v * 0.999f + 0.001f;
    y[i] = v;
}
