// A WHILE node's iteration limit: the last node of the loop's body. The graph resets `count`
// to 0 before the WHILE node (a memset); each iteration adds one, and the one that reaches
// `max` sets the loop's condition to 0, so the WHILE node checks it and ends. Launched
// <<<1, 1>>>. The count stays readable after the launch (how many iterations ran).
//
// Compiled by the runtime (graph/limit.rs) with NVRTC, once per context; cuda-graph's device
// API (pre-included) declares cudaGraphSetConditional and cudaGraphConditionalHandle.
extern "C" __global__ void cuda_graph_while_limit(cudaGraphConditionalHandle loop,
                                                  unsigned int* count, unsigned int max) {
    unsigned int c = *count + 1;
    *count = c;
    if (c >= max) cudaGraphSetConditional(loop, 0);
}
