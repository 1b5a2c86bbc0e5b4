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

// x += W a: a projection and the residual add after it (x and the projection rounded to T
// apart, then their sum). A warp computes a row at a time, its two halves apart
// (`halves_at`); `a` is copied into shared memory first (dynamic shared memory: `cols`
// elements of T; `stage`, every piece at once), so a piece of a weight row waits on no other
// global load.
template <typename T>
__global__ void __launch_bounds__(256)
matvec_add(const T* __restrict__ w, const T* __restrict__ a, T* __restrict__ x, unsigned cols,
           unsigned rows) {
  extern __shared__ __align__(16) unsigned char a_raw[];
  T* as = reinterpret_cast<T*>(a_raw);
  const unsigned split = halves_at<T>(cols);
  unsigned r = warp_id();
  Ahead ah;
  if (r < rows) fetch<T>(w + (size_t)r * cols, split, ah);
  pdl_start();
  stage<T>(as, a, cols);
  staged();
  __syncthreads();
  for (; r < rows; r += warps()) {
    const float xr = to_f(x[r]);
    const T* next = r + warps() < rows ? w + (size_t)(r + warps()) * cols : nullptr;
    const float acc = dot_halves<T>(w + (size_t)r * cols, next, cols, split, ah, as);
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
