// Kernels for the programmatic-edge tests: each triggers its dependent at once, then waits for
// its predecessor before it touches memory. NVRTC declares no runtime wrappers for the two
// PTX instructions: helpers here (the macro follows calls into them), or `asm` inline.
__device__ __forceinline__ void let_dependents_start() {
  asm volatile("griddepcontrol.launch_dependents;");
}
__device__ __forceinline__ void wait_for_predecessor() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

extern "C" __global__ void affine(const float* in, float* out, float a, float b, int n) {
  let_dependents_start();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  wait_for_predecessor();
  if (i < n) out[i] = in[i] * a + b;
}

// Reads every element its predecessor wrote (not only its own): a block that started early
// and did not wait would see stale values.
extern "C" __global__ void reverse_add(const float* in, float* out, float b, int n) {
  asm volatile("griddepcontrol.launch_dependents;");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[n - 1 - i] + b;
}
