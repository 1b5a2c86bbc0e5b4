// A 2-D heat solver's kernels, written as the docs say: no declaration of the device API
// (cudaGraphSetConditional, cudaGraphConditionalHandle), which cuda-graph includes itself.
//
// The grid is nx * ny cells in row-major order; the boundary cells keep their values.

// out = in + alpha * (the four neighbours - 4 * in), on the interior; the boundary copied.
extern "C" __global__ void step(const float* in, float* out, float alpha, unsigned nx,
                                unsigned ny) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    unsigned i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i];
        return;
    }
    float lap = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] - 4.0f * in[i];
    out[i] = in[i] + alpha * lap;
}

// After a sweep of steps: the largest change since the last sweep (into `change[0]`), the
// sweeps done (`sweeps[0]`), the field kept for the next sweep's comparison, and whether to go
// on: while the change is at least `tol` and fewer than `max_sweeps` sweeps are done. One block.
extern "C" __global__ void converged(const float* u, float* last, float* change, unsigned* sweeps,
                                     float tol, unsigned max_sweeps, unsigned cells,
                                     cudaGraphConditionalHandle again) {
    __shared__ float most[256];
    float m = 0.0f;
    for (unsigned i = threadIdx.x; i < cells; i += blockDim.x) {
        m = fmaxf(m, fabsf(u[i] - last[i]));
        last[i] = u[i];
    }
    most[threadIdx.x] = m;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) most[threadIdx.x] = fmaxf(most[threadIdx.x], most[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        unsigned done = ++sweeps[0];
        change[0] = most[0];
        cudaGraphSetConditional(again, most[0] >= tol && done < max_sweeps ? 1u : 0u);
    }
}

// The starting field: 1 on the top row, 0 elsewhere, in `u` and `last`; no sweep done.
extern "C" __global__ void start(float* u, float* last, unsigned* sweeps, unsigned nx,
                                 unsigned cells) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cells) {
        float v = i < nx ? 1.0f : 0.0f;
        u[i] = v;
        last[i] = v;
    }
    if (i == 0) sweeps[0] = 0;
}
