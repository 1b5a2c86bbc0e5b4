// Conjugate gradient on a sparse (CSR) symmetric positive definite matrix: vectors in float,
// dot products accumulated in double. The scalars live in a small buffer `s` of doubles: the
// first 8 are what the host reads (S_SCALARS), then the partial sums of the three dot products.
// (`cudaGraphSetConditional` comes from cuda-graph's device API: no declaration here.)

#define RR 0      // r.r of the current residual
#define PAP 1     // p.Ap of this iteration
#define RR_NEW 2  // r.r after this iteration's update
#define BETA 3    // rr_new / rr
#define TOL2 4    // (tol * |b|)^2
#define ITERS 5   // iterations done
#define DONE 6    // 1 once converged or out of iterations

// Each dot product is summed in SLOTS partial sums, 128 bytes apart, each warp adding into one:
// one atomic per warp, spread over SLOTS addresses (a single address made them queue).
#define S_SCALARS 8
#define SLOTS 8
#define STRIDE 16
#define PART(acc, k) (S_SCALARS + ((acc) * SLOTS + (k)) * STRIDE)  // acc: RR, PAP or RR_NEW
#define S_LEN (S_SCALARS + 3 * SLOTS * STRIDE)

// Adds `v` over the warp into `*acc`: shuffles, then one atomic per warp. Every lane of the warp
// calls it (callers load from a clamped index instead of branching). No block barrier: the
// kernels of the WHILE body run under compute-sanitizer too, and its synccheck (CUDA 13.0,
// driver 580) reports every `__syncthreads()` of a kernel in a WHILE body as "divergent
// thread(s) in warp", even a lone barrier in a one-warp block, while the same kernels in a plain
// graph or an IF body are clean (docs/notes/synccheck_while.cu).
__device__ __forceinline__ void warp_add(double v, double* s, int acc) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if ((threadIdx.x & 31) == 0) atomicAdd(&s[PART(acc, warp % SLOTS)], v);
}

// The dot product `acc` (the sum of its partial sums).
__device__ __forceinline__ double total(const double* s, int acc) {
    double t = 0.0;
    for (int k = 0; k < SLOTS; k++) t += s[PART(acc, k)];
    return t;
}

// Zeroes the partial sums of `acc` (one thread).
__device__ void clear(double* s, int acc) {
    for (int k = 0; k < SLOTS; k++) s[PART(acc, k)] = 0.0;
}

// Zeroes the scalars and the partial sums.
extern "C" __global__ void cg_reset(double* s) {
    for (unsigned i = threadIdx.x; i < S_LEN; i += blockDim.x) s[i] = 0.0;
}

// x = 0, r = p = b, s[RR] = b.b.
extern "C" __global__ void cg_init(const float* b, float* x, float* r, float* p, double* s,
                                   unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    // Loads from a clamped index and a select, no branch, so every warp calls warp_add whole.
    unsigned j = min(i, n - 1);
    float bi = b[j];
    if (i < n) {
        x[i] = 0.0f;
        r[i] = bi;
        p[i] = bi;
    }
    warp_add(i < n ? (double)bi * bi : 0.0, s, RR);
}

// The stopping threshold: |r| <= tol * |b|.
extern "C" __global__ void cg_start(double* s, double tol) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        s[RR] = total(s, RR);
        s[TOL2] = tol * tol * s[RR];
    }
}

// ap = A p.
extern "C" __global__ void cg_spmv(const unsigned* rowptr, const unsigned* col, const float* val,
                                   const float* p, float* ap, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (unsigned k = rowptr[i]; k < rowptr[i + 1]; k++) acc += val[k] * p[col[k]];
        ap[i] = acc;
    }
}

// p.ap into the PAP partial sums (a kernel of its own: no barrier follows the row loops above).
extern "C" __global__ void cg_pap(const float* p, const float* ap, double* s, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = min(i, n - 1);
    double v = (double)p[j] * ap[j];
    warp_add(i < n ? v : 0.0, s, PAP);
}

// alpha = rr / pAp; x += alpha p; r -= alpha ap; r.r into the RR_NEW partial sums.
extern "C" __global__ void cg_update(const float* p, const float* ap, float* x, float* r,
                                     double* s, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float alpha = (float)(s[RR] / total(s, PAP));
    unsigned j = min(i, n - 1);
    float ri = r[j] - alpha * ap[j];
    if (i < n) {
        x[i] += alpha * p[i];
        r[i] = ri;
    }
    warp_add(i < n ? (double)ri * ri : 0.0, s, RR_NEW);
}

// Counts the iteration and decides whether to go on; prepares beta and the next accumulators.
__device__ unsigned cg_decide(double* s, unsigned max_iters) {
    s[ITERS] += 1.0;
    double rr_new = total(s, RR_NEW);
    unsigned go = rr_new > s[TOL2] && s[ITERS] < (double)max_iters;
    s[BETA] = rr_new / s[RR];
    s[RR] = rr_new;
    s[RR_NEW] = rr_new;
    s[PAP] = total(s, PAP);
    clear(s, RR_NEW);
    clear(s, PAP);
    s[DONE] = go ? 0.0 : 1.0;
    return go;
}

// The decision, as the condition of the WHILE node that runs the iterations.
extern "C" __global__ void cg_check_loop(double* s, unsigned max_iters,
                                         cudaGraphConditionalHandle again) {
    if (threadIdx.x == 0 && blockIdx.x == 0) cudaGraphSetConditional(again, cg_decide(s, max_iters));
}

// The decision, left in s[DONE] for the host to read.
extern "C" __global__ void cg_check(double* s, unsigned max_iters) {
    if (threadIdx.x == 0 && blockIdx.x == 0) cg_decide(s, max_iters);
}

// p = r + beta p.
extern "C" __global__ void cg_direction(const float* r, float* p, const double* s, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float beta = (float)s[BETA];
    if (i < n) p[i] = r[i] + beta * p[i];
}
