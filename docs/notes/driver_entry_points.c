// The driver's entry points for the same kernel-node work, alternated round by round in one
// process: is any cheaper than the one cuda-graph calls (`cuGraphAddKernelNode` with the
// argument block whole in `extra`)? Builds (10, 100 and 1000 nodes, chains and fan-outs), the
// executable-graph setter, and a template edit with a whole-graph update.
//
//   nvcc -cubin -arch=sm_90 -o k.cubin k.cu   (k.cu: extern "C" __global__ void tiny(float *y,
//                                              unsigned offset, float a) { y[offset + threadIdx.x] += a; })
//   gcc -O2 -o drv driver_entry_points.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
//   ./drv 10 0 20000; ./drv 10 1 20000; ./drv 100 0 2000; ./drv 100 1 2000; ./drv 1000 1 200
//
// Seen on an H200 (driver 580), three processes at 10 nodes, each over the floor
// (`kernelParams`, a pointer per argument): `extra` 0.960-0.988; the generic `cuGraphAddNode`
// 1.051-1.092; every edge added after the nodes in one `cuGraphAddDependencies` call 0.945-0.982
// (0.889 and 0.942 at 100 nodes, 1.039 for the 1000-node fan-out); the context given in the
// parameters 0.960-0.983; a clone of a prototype graph with its nodes found and their parameters
// set 1.125-1.212. Setter: `extra` 0.942-0.999, the generic `cuGraphExecNodeSetParams`
// 1.097-1.136. Update: the generic `cuGraphNodeSetParams` 0.988-1.078. None is cheaper than
// what cuda-graph calls by more than the spread between processes.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CK(x) do { CUresult r = (x); if (r) { const char *s; cuGetErrorName(r, &s); printf("%s:%d %s\n", __FILE__, __LINE__, s); exit(1);} } while (0)
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
typedef struct { unsigned long long y; unsigned off; float a; void *ptrs[3]; } P;
typedef CUresult (*AddNode2)(CUgraphNode *, CUgraph, const CUgraphNode *, const CUgraphEdgeData *, size_t, CUgraphNodeParams *);
typedef CUresult (*ExecNodeSet)(CUgraphExec, CUgraphNode, CUgraphNodeParams *);
typedef CUresult (*NodeSet)(CUgraphNode, CUgraphNodeParams *);
static AddNode2 add2; static ExecNodeSet exset; static NodeSet nset;
static CUfunction f; static CUcontext ctx;
static void *EX[5]; static size_t SZ = 16;
static CUDA_KERNEL_NODE_PARAMS kp(P *p, int extra, int withctx) {
  CUDA_KERNEL_NODE_PARAMS k; memset(&k, 0, sizeof k);
  k.func = f; k.gridDimX = k.gridDimY = k.gridDimZ = 1; k.blockDimX = 32; k.blockDimY = k.blockDimZ = 1;
  if (extra) { EX[0] = CU_LAUNCH_PARAM_BUFFER_POINTER; EX[1] = p; EX[2] = CU_LAUNCH_PARAM_BUFFER_SIZE; EX[3] = &SZ; EX[4] = CU_LAUNCH_PARAM_END; k.extra = EX; }
  else { p->ptrs[0] = &p->y; p->ptrs[1] = &p->off; p->ptrs[2] = &p->a; k.kernelParams = p->ptrs; }
  if (withctx) k.ctx = ctx;
  return k;
}
static CUgraphNodeParams np(P *p) {
  CUgraphNodeParams n; memset(&n, 0, sizeof n);
  n.type = CU_GRAPH_NODE_TYPE_KERNEL;
  CUDA_KERNEL_NODE_PARAMS k = kp(p, 1, 0);
  memcpy(&n.kernel, &k, sizeof k);
  return n;
}
enum { NV = 6 };
static const char *bname[NV] = {"AddKernelNode kernelParams (floor)", "AddKernelNode extra (ours)", "AddNode_v2 generic, extra", "AddKernelNode extra, edges after in one call", "AddKernelNode extra, ctx given", "clone of a prototype, found, params set"};
static CUgraph proto; static CUgraphNode pnodes[10000];
static int N, FAN;
static P ps[10000];
static CUgraphNode nodes[10000], from[20000], to[20000];
static void deps_of(int i, const CUgraphNode **d, size_t *nd) {
  if (!FAN) { *d = i ? &nodes[i - 1] : NULL; *nd = i ? 1 : 0; }
  else if (i == 0) { *d = NULL; *nd = 0; }
  else if (i == N - 1) { *d = &nodes[1]; *nd = N - 2; }
  else { *d = &nodes[0]; *nd = 1; }
}
static CUgraph build(int v, CUdeviceptr y) {
  CUgraph g;
  if (v == 5) {
    CK(cuGraphClone(&g, proto));
    for (int i = 0; i < N; i++) {
      CK(cuGraphNodeFindInClone(&nodes[i], pnodes[i], g));
      ps[i].y = y; ps[i].off = FAN && i && i < N - 1 ? 32 * i : 0; ps[i].a = 1.0f;
      CUDA_KERNEL_NODE_PARAMS k = kp(&ps[i], 1, 0); CK(cuGraphKernelNodeSetParams(nodes[i], &k));
    }
    return g;
  }
  CK(cuGraphCreate(&g, 0));
  size_t ne = 0;
  for (int i = 0; i < N; i++) {
    ps[i].y = y; ps[i].off = FAN && i && i < N - 1 ? 32 * i : 0; ps[i].a = 1.0f;
    const CUgraphNode *d; size_t nd; deps_of(i, &d, &nd);
    if (v == 2) { CUgraphNodeParams n = np(&ps[i]); CK(add2(&nodes[i], g, d, NULL, nd, &n)); }
    else if (v == 3) {
      CUDA_KERNEL_NODE_PARAMS k = kp(&ps[i], 1, 0); CK(cuGraphAddKernelNode(&nodes[i], g, NULL, 0, &k));
      for (size_t j = 0; j < nd; j++) { from[ne] = d[j]; to[ne] = nodes[i]; ne++; }
    } else { CUDA_KERNEL_NODE_PARAMS k = kp(&ps[i], v != 0, v == 4); CK(cuGraphAddKernelNode(&nodes[i], g, d, nd, &k)); }
  }
  if (v == 3) CK(cuGraphAddDependencies(g, from, to, NULL, ne));
  return g;
}
int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 10; FAN = argc > 2 ? atoi(argv[2]) : 0;
  int R = argc > 3 ? atoi(argv[3]) : 20000;
  CUdevice dev; CUmodule m; CUstream s;
  CK(cuInit(0)); CK(cuDeviceGet(&dev, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CUdriverProcAddressQueryResult q;
  CK(cuGetProcAddress("cuGraphAddNode", (void **)&add2, 12030, 0, &q));
  CK(cuGetProcAddress("cuGraphExecNodeSetParams", (void **)&exset, 12020, 0, &q));
  CK(cuGetProcAddress("cuGraphNodeSetParams", (void **)&nset, 12020, 0, &q));
  CK(cuModuleLoad(&m, "k.cubin")); CK(cuModuleGetFunction(&f, m, "tiny")); CK(cuStreamCreate(&s, 0));
  CUdeviceptr y; CK(cuMemAlloc(&y, 4 * (32 * N + 64))); CK(cuMemsetD8(y, 0, 4 * (32 * N + 64)));
  proto = build(1, y); memcpy(pnodes, nodes, sizeof(CUgraphNode) * N);
  double tb[NV] = {0};
  for (int round = 0; round < R * NV; round++) {
    int v = (round + round / NV) % NV;
    double t = now();
    CUgraph g = build(v, y);
    tb[v] += now() - t;
    CK(cuGraphDestroy(g));
  }
  printf("N=%d fan=%d build, ns per graph:\n", N, FAN);
  for (int v = 0; v < NV; v++) printf("  %-45s %9.1f  (%.3fx floor)\n", bname[v], tb[v] / R, tb[v] / tb[0]);
  // setters and updates: one graph, instantiated; the middle node edited
  CUgraph g = build(1, y); CUgraphExec e; CK(cuGraphInstantiate(&e, g, 0));
  CK(cuGraphLaunch(e, s)); CK(cuStreamSynchronize(s));
  int mid = N / 2; double ts[3] = {0}, tu[2] = {0};
  for (int round = 0; round < R * 10 * 3; round++) {
    int v = (round + round / 3) % 3; ps[mid].a = (float)(round & 7);
    double t = now();
    if (v == 2) { CUgraphNodeParams n = np(&ps[mid]); CK(exset(e, nodes[mid], &n)); }
    else { CUDA_KERNEL_NODE_PARAMS k = kp(&ps[mid], v, 0); CK(cuGraphExecKernelNodeSetParams(e, nodes[mid], &k)); }
    ts[v] += now() - t;
  }
  printf("exec setter, ns: kernelParams %.1f, extra %.3fx, generic %.3fx\n", ts[0] / (R * 10), ts[1] / ts[0], ts[2] / ts[0]);
  for (int round = 0; round < R * 2; round++) {
    int v = (round + round / 2) % 2; ps[mid].a = (float)(round & 7);
    double t = now();
    if (v == 1) { CUgraphNodeParams n = np(&ps[mid]); CK(nset(nodes[mid], &n)); }
    else { CUDA_KERNEL_NODE_PARAMS k = kp(&ps[mid], 1, 0); CK(cuGraphKernelNodeSetParams(nodes[mid], &k)); }
    CUgraphExecUpdateResultInfo info; CK(cuGraphExecUpdate(e, g, &info));
    tu[v] += now() - t;
  }
  printf("template edit + update, ns: kernel %.1f, generic %.3fx\n", tu[0] / R, tu[1] / tu[0]);
  CK(cuGraphLaunch(e, s)); CK(cuStreamSynchronize(s));
  return 0;
}
