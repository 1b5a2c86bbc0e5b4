// Bias and activation after a GEMM: y[r, c] = act(y[r, c] + bias[c]) for a row-major
// `rows x cols` y (cuBLAS's column-major `cols x rows` result).
extern "C" __global__ void bias_act(float* y, const float* bias, unsigned rows, unsigned cols,
                                    unsigned relu) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float v = y[i] + bias[i % cols];
        y[i] = (relu && v < 0.0f) ? 0.0f : v;
    }
}
