// cuda-graph's device API: included by NVRTC before every source cuda-graph compiles
// (`--pre-include`, so the line numbers of NVRTC's messages stay the source's own). It declares
// what cuda-graph's documentation tells a kernel to call or name, so that a kernel file needs
// no declaration of its own. A file that declares these itself, as CUDA's headers do, still
// compiles, and so does one that includes <cuda_device_runtime_api.h>.
#pragma once

// A conditional node's condition handle (`Cond` in Rust), as CUDA's `driver_types.h` defines it.
typedef unsigned long long cudaGraphConditionalHandle;

// Sets the value of a condition (`cond` of a graph, a `Cond` parameter) from the device, as
// <cuda_device_runtime_api.h> declares it. A declaration with other parameter types is an
// error ("more than one instance of overloaded function has C linkage").
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(
    cudaGraphConditionalHandle handle, unsigned int value);

// Programmatic dependent launch: wait for the kernels this one depends on (their writes are
// visible after it), and let the kernels that depend on this one start. Function templates,
// so that a function of these names the source defines (or <cuda_device_runtime_api.h>'s) is
// the one a call takes: C++ prefers a function to a template. Before sm_90 there is no
// programmatic launch, and both do nothing.
template <int = 0>
static __device__ __forceinline__ void cudaGridDependencySynchronize(void) {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
template <int = 0>
static __device__ __forceinline__ void cudaTriggerProgrammaticLaunchCompletion(void) {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// The C types of `cuda_graph::half` and `cuda_graph::fp8` (`__half`, `__nv_bfloat16`,
// `__nv_fp8_e4m3`, ...), from the CUDA toolkit's headers where NVRTC finds them. Where it does
// not, those types are undeclared, and cuda-graph's error names the header that is missing.
#if defined(__has_include)
#if __has_include(<cuda_fp16.h>)
#include <cuda_fp16.h>
#endif
#if __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#endif
#if __has_include(<cuda_fp8.h>)
#include <cuda_fp8.h>
#endif
#endif
