// What the f32 weight-streaming kernels of `mlp.cu` and `tp_mlp.cu` share: the waits and
// releases of programmatic dependent launch, 16-byte weight loads that leave the L2 cache
// first, the dot product of four weights with four inputs, and the sum over a warp.
#pragma once

#define WARP 32

// Wait for the kernel before: its writes are visible after this.
__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

// Let the next kernel launch (it waits for this one's writes before reading them).
__device__ __forceinline__ void pdl_release() {
  asm volatile("griddepcontrol.launch_dependents;");
}

// 16 bytes of a weight, read-only, marked to leave the L2 cache first (a step streams each
// weight once).
__device__ __forceinline__ uint4 load_weight(const float* p) {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  uint4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

// The four weights in `w` (f32 bits) times the four inputs in `x`, summed.
__device__ __forceinline__ float dot4(uint4 w, float4 x) {
  return __uint_as_float(w.x) * x.x + __uint_as_float(w.y) * x.y + __uint_as_float(w.z) * x.z +
         __uint_as_float(w.w) * x.w;
}

// The sum of `v` over the warp; every lane gets it.
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = WARP / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
