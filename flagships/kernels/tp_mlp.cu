// The element-wise kernels of the tensor-parallel MLP block (`src/tp_mlp.rs`).

// h[r, c] = gelu(h[r, c] + b[c]) for a row-major `rows x cols` h (cuBLAS's column-major
// `cols x rows` result), GELU's tanh form (PyTorch's `approximate="tanh"`).
extern "C" __global__ void bias_gelu(float* h, const float* b, unsigned rows, unsigned cols) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    const float v = h[i] + b[i % cols];
    const float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    h[i] = 0.5f * v * (1.0f + tanhf(u));
  }
}

// y[r, c] += x[r, c] + b[c]: the residual and the output bias, after the all-reduce of the
// ranks' partial outputs in y.
extern "C" __global__ void residual_bias(float* y, const float* x, const float* b, unsigned n,
                                         unsigned cols) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i] + b[i % cols];
}
