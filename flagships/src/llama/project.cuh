// The row-split projections of the Llama decoder's step: the output and down projections
// with the residual add after them (`matvec_add`), one rank's part of them when the model is
// split over GPUs (`matvec_part`), and the add of the all-reduced parts (`add_rounded`). A
// row's two halves are summed apart and then added, on one GPU as on two, so splitting the
// model changes no bit of it. `kernels.cu` includes this inside its namespace, after the
// weight streaming (`stream.cuh`) and `pdl_start` it builds on.
#pragma once

// Where a projection's dot products of `cols` elements are cut in two: at the half when it
// falls on a 16-byte boundary (else not at all, `cols`). The two halves are summed apart and
// then added, as a tensor-parallel step over two GPUs sums them (each rank its half, the
// all-reduce adding the two): so splitting a model over two GPUs changes no bit of it.
template <typename T> __device__ __forceinline__ unsigned halves_at(unsigned cols) {
  return (cols / 2) % Vec16<T>::N == 0 ? cols / 2 : cols;
}

// The dot product of weight row `row` (cols elements) with the shared vector `as`, its
// elements before `split` and from `split` on summed apart, then added (`split` == cols: one
// sum). `ah` holds the row's first pieces on entry and `next`'s (the warp's next row) on
// return.
template <typename T>
__device__ __forceinline__ float dot_halves(const T* __restrict__ row, const T* __restrict__ next,
                                            unsigned cols, unsigned split, Ahead& ah,
                                            const T* as) {
  if (split >= cols) return dot_stream<T>(row, next, cols, ah, SharedT<T>{as});
  const float lo = dot_stream<T>(row, row + split, split, ah, SharedT<T>{as});
  return lo + dot_stream<T>(row + split, next, cols - split, ah, SharedT<T>{as + split});
}

// Whether a row of `cols` elements fits one batch of a lane's pieces (`Ahead`) with its halves
// (cut at `split`) on a boundary between pieces: then the whole row can be on the way before
// a kernel's wait, not only its first half (the output projection of models up to a hidden
// size of 2048 in bf16, 1024 in f32).
template <typename T> __device__ __forceinline__ bool one_batch(unsigned cols, unsigned split) {
  constexpr unsigned N = Vec16<T>::N;
  return cols <= PF * WARP * N && split < cols && split % (WARP * N) == 0;
}

// `dot_halves` of a row held whole in `ah` (`one_batch`): the pieces of each half summed in
// the order `dot_stream` sums them, then the two halves added, so the bits are the same.
template <typename T>
__device__ __forceinline__ float dot_batch_halves(const Ahead& ah, unsigned cols, unsigned split,
                                                  const T* as) {
  constexpr int N = Vec16<T>::N;
  const unsigned lane = threadIdx.x % WARP, first_hi = split / (WARP * N);
  float lo = 0.f, hi = 0.f;
#pragma unroll
  for (int k = 0; k < PF; k++) {
    const unsigned c = (lane + k * WARP) * N;
    if (c < cols) {
      float wv[N], xv[N];
      unpack(ah.v[k], wv, as);
      SharedT<T>{as}.template get<N>(c, xv);
      // Fused multiply-adds spelled out: the compiler would otherwise share each product
      // between the two branches and round it before the add (different bits in f32).
      if ((unsigned)k < first_hi) {
#pragma unroll
        for (int i = 0; i < N; i++) lo = __fmaf_rn(wv[i], xv[i], lo);
      } else {
#pragma unroll
        for (int i = 0; i < N; i++) hi = __fmaf_rn(wv[i], xv[i], hi);
      }
    }
  }
  return warp_sum(lo) + warp_sum(hi);
}

// x += W a: a projection and the residual add after it (x and the projection rounded to T
// apart, then their sum). A warp computes a row at a time, its two halves apart
// (`halves_at`); `a` is copied into shared memory first (dynamic shared memory: `cols`
// elements of T; `stage`, every piece at once), so a piece of a weight row waits on no other
// global load. Before the wait a warp puts its first row's first half on the way, or the
// whole row when it fits one batch (`one_batch`): measured on an H100 (`step_trace`), the
// whole row takes the tiny shape's step from 4793 to 5037 tokens/s and leaves the 1B step
// within 0.1% (its attention pays for the earlier loads what the output projection saves).
template <typename T>
__global__ void __launch_bounds__(256)
matvec_add(const T* __restrict__ w, const T* __restrict__ a, T* __restrict__ x, unsigned cols,
           unsigned rows) {
  extern __shared__ __align__(16) unsigned char a_raw[];
  T* as = reinterpret_cast<T*>(a_raw);
  const unsigned split = halves_at<T>(cols);
  const bool whole = one_batch<T>(cols, split);
  unsigned r = warp_id();
  Ahead ah;
  if (r < rows) fetch<T>(w + (size_t)r * cols, whole ? cols : split, ah);
  pdl_start();
  stage<T>(as, a, cols);
  staged();
  __syncthreads();
  for (; r < rows; r += warps()) {
    const float xr = to_f(x[r]);
    float acc;
    if (whole) {
      // A warp's later rows (more rows than warps) are asked for here.
      if (r != warp_id()) fetch<T>(w + (size_t)r * cols, cols, ah);
      acc = dot_batch_halves<T>(ah, cols, split, as);
    } else {
      const T* next = r + warps() < rows ? w + (size_t)(r + warps()) * cols : nullptr;
      acc = dot_halves<T>(w + (size_t)r * cols, next, cols, split, ah, as);
    }
    if (threadIdx.x % WARP == 0) x[r] = from_f<T>(xr + rnd<T>(acc));
  }
}

// out = W a in float, not rounded: `matvec_add`'s product for one rank of a tensor-parallel
// step, whose W holds the rank's columns and `a` its share of the input. An all-reduce adds
// every rank's `out`, and `add_rounded` adds the sum, rounded once, to the residual: what
// `matvec_add` computes over every column, bit for bit on one rank (`split`: `halves_at` of
// the columns) and on two (`split` = `cols`: each rank sums its half whole).
template <typename T>
__global__ void __launch_bounds__(256)
matvec_part(const T* __restrict__ w, const T* __restrict__ a, float* __restrict__ out,
            unsigned cols, unsigned rows, unsigned split) {
  extern __shared__ __align__(16) unsigned char a_raw[];
  T* as = reinterpret_cast<T*>(a_raw);
  unsigned r = warp_id();
  Ahead ah;
  if (r < rows) fetch<T>(w + (size_t)r * cols, split < cols ? split : cols, ah);
  pdl_start();
  stage<T>(as, a, cols);
  staged();
  __syncthreads();
  for (; r < rows; r += warps()) {
    const T* next = r + warps() < rows ? w + (size_t)(r + warps()) * cols : nullptr;
    const float acc = dot_halves<T>(w + (size_t)r * cols, next, cols, split, ah, as);
    if (threadIdx.x % WARP == 0) out[r] = acc;
  }
}

// x[i] += sum[i], the sum rounded to T first, then the result (as `matvec_add` and `gemm`
// with `add` round a product and its residual): the all-reduced product of a tensor-parallel
// projection added to the residual, `n` elements.
template <typename T>
__global__ void __launch_bounds__(256)
add_rounded(T* __restrict__ x, const float* __restrict__ sum, unsigned n) {
  pdl_start();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    x[i] = from_f<T>(to_f(x[i]) + rnd<T>(sum[i]));
  }
}
