// The driver's two ways of taking a kernel node's arguments, side by side on a GPU: a pointer per
// argument (`kernelParams`) and the parameter buffer whole (`extra`, CU_LAUNCH_PARAM_BUFFER_POINTER).
// Graph build (10-node chain), executable-graph setter and template edit + update, alternated.
//
//   nvcc -cubin -arch=sm_90 -o k.cubin k.cu   (k.cu: extern "C" __global__ void tiny(float *y,
//                                              unsigned offset, float a) { y[offset + threadIdx.x] += a; })
//   gcc -O2 -o m extra_vs_pointers.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
//
// Seen on an H200 (driver 580), three processes, extra over kernelParams: build
// 0.973, 0.986, 0.975; exec setter 1.009, 0.990, 0.937; update 0.913, 0.922, 0.986. Both ways
// launch the same values (the check at the end).
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CK(x) do { CUresult r = (x); if (r) { const char *s; cuGetErrorName(r, &s); printf("%s:%d %s\n", __FILE__, __LINE__, s); exit(1);} } while (0)
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
typedef struct { unsigned long long y; unsigned off; float a; void *ptrs[3]; } P;
static CUfunction f;
static CUDA_KERNEL_NODE_PARAMS kp(P *p, int extra, void **ex, size_t *sz) {
  CUDA_KERNEL_NODE_PARAMS k; memset(&k, 0, sizeof k);
  k.func = f; k.gridDimX = k.gridDimY = k.gridDimZ = 1; k.blockDimX = 32; k.blockDimY = k.blockDimZ = 1;
  if (extra) { *sz = 16; ex[0] = CU_LAUNCH_PARAM_BUFFER_POINTER; ex[1] = p; ex[2] = CU_LAUNCH_PARAM_BUFFER_SIZE; ex[3] = sz; ex[4] = CU_LAUNCH_PARAM_END; k.extra = ex; }
  else { p->ptrs[0] = &p->y; p->ptrs[1] = &p->off; p->ptrs[2] = &p->a; k.kernelParams = p->ptrs; }
  return k;
}
int main() {
  CUdevice d; CUcontext c; CUmodule m; CUstream s;
  CK(cuInit(0)); CK(cuDeviceGet(&d, 0)); CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
  CK(cuModuleLoad(&m, "k.cubin")); CK(cuModuleGetFunction(&f, m, "tiny")); CK(cuStreamCreate(&s, 0));
  CUdeviceptr y; CK(cuMemAlloc(&y, 4096)); CK(cuMemsetD8(y, 0, 4096));
  for (size_t i = 0; i < 3; i++) { size_t o, z; CK(cuFuncGetParamInfo(f, i, &o, &z)); printf("param %zu offset %zu size %zu\n", i, o, z); }
  enum { N = 10 };
  P ps[2][N]; CUgraph g[2]; CUgraphNode nodes[2][N]; CUgraphExec e[2];
  double tb[2] = {0, 0}, ts[2] = {0, 0}, tu[2] = {0, 0};
  int R = 20000;
  for (int round = 0; round < 2 * R; round++) {
    int w = round & 1;  // alternate
    double t = now();
    CK(cuGraphCreate(&g[w], 0));
    for (int i = 0; i < N; i++) {
      void *ex[5]; size_t sz; ps[w][i].y = y; ps[w][i].off = 0; ps[w][i].a = 1.0f;
      CUDA_KERNEL_NODE_PARAMS k = kp(&ps[w][i], w, ex, &sz);
      CK(cuGraphAddKernelNode(&nodes[w][i], g[w], i ? &nodes[w][i - 1] : NULL, i ? 1 : 0, &k));
    }
    tb[w] += now() - t;
    CK(cuGraphDestroy(g[w]));
  }
  for (int w = 0; w < 2; w++) {
    CK(cuGraphCreate(&g[w], 0));
    for (int i = 0; i < N; i++) {
      void *ex[5]; size_t sz; ps[w][i].y = y; ps[w][i].off = 32 * w; ps[w][i].a = 1.0f;
      CUDA_KERNEL_NODE_PARAMS k = kp(&ps[w][i], w, ex, &sz);
      CK(cuGraphAddKernelNode(&nodes[w][i], g[w], i ? &nodes[w][i - 1] : NULL, i ? 1 : 0, &k));
    }
    CK(cuGraphInstantiate(&e[w], g[w], 0)); CK(cuGraphLaunch(e[w], s)); CK(cuStreamSynchronize(s));
  }
  for (int rep = 0; rep < 5; rep++) for (int w0 = 0; w0 < 2; w0++) {
    int w = (rep & 1) ? 1 - w0 : w0;
    double t = now();
    for (int it = 0; it < 20000; it++) {
      void *ex[5]; size_t sz; ps[w][5].a = (float)(it & 1);
      CUDA_KERNEL_NODE_PARAMS k = kp(&ps[w][5], w, ex, &sz);
      CK(cuGraphExecKernelNodeSetParams(e[w], nodes[w][5], &k));
    }
    ts[w] += now() - t;
    t = now();
    for (int it = 0; it < 5000; it++) {
      void *ex[5]; size_t sz; ps[w][5].a = (float)(it & 1);
      CUDA_KERNEL_NODE_PARAMS k = kp(&ps[w][5], w, ex, &sz);
      CK(cuGraphKernelNodeSetParams(nodes[w][5], &k));
      CUgraphExecUpdateResultInfo info; CK(cuGraphExecUpdate(e[w], g[w], &info));
    }
    tu[w] += now() - t;
  }
  // The values the kernels see: a launch of each after setting a = 2.5 on every node.
  for (int w = 0; w < 2; w++) {
    for (int i = 0; i < N; i++) { void *ex[5]; size_t sz; ps[w][i].a = 2.5f; CUDA_KERNEL_NODE_PARAMS k = kp(&ps[w][i], w, ex, &sz); CK(cuGraphExecKernelNodeSetParams(e[w], nodes[w][i], &k)); }
  }
  CK(cuMemsetD8(y, 0, 4096));
  for (int w = 0; w < 2; w++) CK(cuGraphLaunch(e[w], s));
  CK(cuStreamSynchronize(s));
  float h[64]; CK(cuMemcpyDtoH(h, y, sizeof h));
  printf("values: kernelParams %.1f extra %.1f (want 25.0 each)\n", h[0], h[32]);
  printf("build 10 nodes: kernelParams %.0f ns, extra %.0f ns (ratio %.3f)\n", tb[0] / R, tb[1] / R, tb[1] / tb[0]);
  printf("exec set: kernelParams %.1f ns, extra %.1f ns (ratio %.3f)\n", ts[0] / 100000, ts[1] / 100000, ts[1] / ts[0]);
  printf("update: kernelParams %.1f ns, extra %.1f ns (ratio %.3f)\n", tu[0] / 25000, tu[1] / 25000, tu[1] / tu[0]);
  return 0;
}
