// Kernels for the programmatic-edge cases.
extern "C" __global__ void produce(float* y, int n) {
  cudaTriggerProgrammaticLaunchCompletion();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}

extern "C" __global__ void no_trigger(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f;
}

extern "C" __global__ void consume(const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cudaGridDependencySynchronize();
  if (i < n) z[i] = y[i] + 1.0f;
}

extern "C" __global__ void consume_late(const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? y[i] : 0.0f;
  cudaGridDependencySynchronize();
  if (i < n) z[i] = v;
}

extern "C" __global__ void consume_if(const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    cudaGridDependencySynchronize();
    z[i] = y[i];
  }
}

// Reads its weights `w` before it waits (to have them on the way while its predecessor
// finishes), then what the predecessor wrote.
extern "C" __global__ void prefetch(const float* w, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float wi = i < n ? w[i] : 0.0f;
  cudaGridDependencySynchronize();
  if (i < n) z[i] = wi * y[i];
}
