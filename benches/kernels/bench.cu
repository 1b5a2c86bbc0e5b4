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
