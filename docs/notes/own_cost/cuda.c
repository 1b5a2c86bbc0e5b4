// A stand-in libcuda for counting cuda-graph's own work on a machine without a GPU: every call
// succeeds at once, handles are distinct made-up addresses, and no work is done. Not a test
// double: nothing checks results against it. It exists so that `callgrind` and a timer can
// measure what cuda-graph adds around each driver call (build, setters, update), beside the same
// calls made raw, on the CPU machine (see `main.rs` here and docs/bench/live-edits.md).
//
//   gcc -O2 -shared -fPIC -o libcuda.so cuda.c
//   LD_LIBRARY_PATH=$PWD <binary built from main.rs>
//
// cudarc loads each driver symbol when first called: a call missing here panics in cudarc with
// its name; add it below.
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef int CUresult;
static uintptr_t ctr = 0x10000; static void *h(void) { ctr += 64; return (void *)ctr; }
#define OK return 0
CUresult cuInit(unsigned f) { OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; OK; }
CUresult cuDeviceGet(int *d, int o) { *d = o; OK; }
CUresult cuDeviceGetCount(int *c) { *c = 1; OK; }
CUresult cuDeviceGetName(char *n, int len, int d) { strncpy(n, "stub", len); OK; }
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { *b = (size_t)80 << 30; OK; }
CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
  switch (attr) {
    case 1: *v = 1024; break;          // max threads per block
    case 2: case 3: *v = 1024; break; case 4: *v = 64; break;
    case 5: *v = 2147483647; break; case 6: case 7: *v = 65535; break;
    case 8: *v = 49152; break;         // shared per block
    case 16: *v = 132; break;          // SMs
    case 75: *v = 9; break; case 76: *v = 0; break; // compute capability
    case 97: *v = 232448; break;       // shared per block optin
    default: *v = 1;
  }
  OK;
}
CUresult cuDeviceGetUuid(void *u, int d) { memset(u, 0, 16); OK; }
CUresult cuDeviceGetUuid_v2(void *u, int d) { memset(u, 0, 16); OK; }
static void *cur;
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { static void *p; if (!p) p = h(); *c = p; OK; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { OK; }
CUresult cuDevicePrimaryCtxRelease(int d) { OK; }
CUresult cuCtxSetCurrent(void *c) { cur = c; OK; }
CUresult cuCtxGetCurrent(void **c) { *c = cur; OK; }
CUresult cuCtxPushCurrent_v2(void *c) { cur = c; OK; }
CUresult cuCtxPopCurrent_v2(void **c) { if (c) *c = cur; OK; }
CUresult cuCtxSynchronize(void) { OK; }
CUresult cuCtxGetDevice(int *d) { *d = 0; OK; }
CUresult cuCtxGetApiVersion(void *c, unsigned *v) { *v = 12080; OK; }
CUresult cuGetErrorString(int e, const char **s) { *s = "stub error"; OK; }
CUresult cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_STUB"; OK; }
CUresult cuStreamCreate(void **s, unsigned f) { *s = h(); OK; }
CUresult cuStreamCreateWithPriority(void **s, unsigned f, int p) { *s = h(); OK; }
CUresult cuStreamDestroy_v2(void *s) { OK; }
CUresult cuStreamSynchronize(void *s) { OK; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { OK; }
CUresult cuStreamQuery(void *s) { OK; }
CUresult cuEventCreate(void **e, unsigned f) { *e = h(); OK; }
CUresult cuEventRecord(void *e, void *s) { OK; }
CUresult cuEventDestroy_v2(void *e) { OK; }
CUresult cuEventSynchronize(void *e) { OK; }
CUresult cuEventQuery(void *e) { OK; }
static uint64_t next_mem = 0x700000000000ull;
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) { *p = next_mem; next_mem += (n + 255) & ~255ull; OK; }
CUresult cuMemAllocAsync(uint64_t *p, size_t n, void *s) { return cuMemAlloc_v2(p, n); }
CUresult cuMemFree_v2(uint64_t p) { OK; }
CUresult cuMemFreeAsync(uint64_t p, void *s) { OK; }
CUresult cuMemsetD8Async(uint64_t p, unsigned char v, size_t n, void *s) { OK; }
CUresult cuMemsetD8_v2(uint64_t p, unsigned char v, size_t n) { OK; }
CUresult cuMemcpyHtoDAsync_v2(uint64_t d, const void *s, size_t n, void *st) { OK; }
CUresult cuMemcpyDtoHAsync_v2(void *d, uint64_t s, size_t n, void *st) { memset(d, 0, n); OK; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = *t = (size_t)80 << 30; OK; }
CUresult cuPointerGetAttribute(void *d, int a, uint64_t p) { memset(d, 0, 8); OK; }
CUresult cuModuleLoadData(void **m, const void *img) { *m = h(); OK; }
CUresult cuModuleUnload(void *m) { OK; }
CUresult cuModuleGetFunction(void **f, void *m, const char *n) { *f = h(); OK; }
CUresult cuFuncGetAttribute(int *v, int a, void *f) {
  switch (a) { case 0: *v = 1024; break; case 1: *v = 0; break; default: *v = 0; } OK; }
CUresult cuFuncSetAttribute(void *f, int a, int v) { OK; }
CUresult cuFuncGetParamInfo(void *f, size_t i, size_t *off, size_t *sz) {
  static const size_t o[] = {0, 8, 12}, s[] = {8, 4, 4};
  if (i >= 3) return 1; *off = o[i]; *sz = s[i]; OK; }
CUresult cuFuncGetName(const char **n, void *f) { *n = "tiny"; OK; }
// With -DEVICT, every call that makes a graph or a node, or sets a kernel node's parameters, first runs a thousand distinct small
// functions and writes a 64 KiB buffer, as a real driver call's own work pushes its caller's
// code and data out of the CPU's first-level caches (a real call takes 0.3-0.5 us). The time
// is then the stand-in's; what `callgrind --cache-sim=yes` counts outside it is the first-level
// misses of the code around the driver calls, which instructions alone do not show:
//
//   gcc -O2 -DEVICT -shared -fPIC -o libcuda.so cuda.c
#ifdef EVICT
#define FN(i) __attribute__((noinline)) static unsigned f##i(unsigned x) { \
    x = x * (2u * i + 3u) + i; x ^= x >> (i % 13 + 1); return x + 7u * i; }
#define FN10(a) FN(a##0) FN(a##1) FN(a##2) FN(a##3) FN(a##4) FN(a##5) FN(a##6) FN(a##7) FN(a##8) FN(a##9)
#define FN100(a) FN10(a##0) FN10(a##1) FN10(a##2) FN10(a##3) FN10(a##4) FN10(a##5) FN10(a##6) FN10(a##7) FN10(a##8) FN10(a##9)
FN100(1) FN100(2) FN100(3) FN100(4) FN100(5) FN100(6) FN100(7) FN100(8) FN100(9) FN100(10)
#define CALL(i) x = f##i(x);
#define CALL10(a) CALL(a##0) CALL(a##1) CALL(a##2) CALL(a##3) CALL(a##4) CALL(a##5) CALL(a##6) CALL(a##7) CALL(a##8) CALL(a##9)
#define CALL100(a) CALL10(a##0) CALL10(a##1) CALL10(a##2) CALL10(a##3) CALL10(a##4) CALL10(a##5) CALL10(a##6) CALL10(a##7) CALL10(a##8) CALL10(a##9)
static unsigned char evict_buf[64 << 10];
static volatile unsigned sink;
static void footprint(void) {
  unsigned x = 1;
  CALL100(1) CALL100(2) CALL100(3) CALL100(4) CALL100(5) CALL100(6) CALL100(7) CALL100(8) CALL100(9) CALL100(10)
  for (unsigned i = 0; i < sizeof evict_buf; i += 64) evict_buf[i] += (unsigned char)x;
  sink = x;
}
#else
static void footprint(void) {}
#endif
CUresult cuGraphCreate(void **g, unsigned f) { footprint(); *g = h(); OK; }
CUresult cuGraphDestroy(void *g) { OK; }
CUresult cuGraphAddKernelNode_v2(void **n, void *g, void *const *d, size_t nd, const void *p) { footprint(); *n = h(); OK; }
CUresult cuGraphAddEmptyNode(void **n, void *g, void *const *d, size_t nd) { *n = h(); OK; }
CUresult cuGraphAddDependencies(void *g, void *const *a, void *const *b, size_t n) { OK; }
CUresult cuGraphAddDependencies_v2(void *g, void *const *a, void *const *b, const void *e, size_t n) { OK; }
CUresult cuGraphInstantiateWithFlags(void **e, void *g, unsigned long long f) { *e = h(); OK; }
CUresult cuGraphInstantiateWithParams(void **e, void *g, void *p) { *e = h(); OK; }
CUresult cuGraphExecDestroy(void *e) { OK; }
CUresult cuGraphLaunch(void *e, void *s) { OK; }
CUresult cuGraphUpload(void *e, void *s) { OK; }
CUresult cuGraphExecKernelNodeSetParams_v2(void *e, void *n, const void *p) { footprint(); OK; }
CUresult cuGraphKernelNodeSetParams_v2(void *n, const void *p) { footprint(); OK; }
CUresult cuGraphExecUpdate_v2(void *e, void *g, void *info) { footprint(); memset(info, 0, 24); OK; }
CUresult cuGraphNodeSetEnabled(void *e, void *n, unsigned v) { OK; }
CUresult cuLaunchKernel(void *f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e2, unsigned f2, unsigned sm, void *s, void **p, void **x) { OK; }
CUresult cuGraphGetNodes(void *g, void **n, size_t *c) { *c = 0; OK; }
