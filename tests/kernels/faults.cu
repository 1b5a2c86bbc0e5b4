// Kernels for the fault tests, apart from the others: a device-side assert leaves its context
// unusable, and the host-blocking graph needs nothing else.

// The device-side assert of the CUDA runtime (what `assert` expands to), declared for NVRTC.
extern "C" __device__ void __assertfail(const char* message, const char* file, unsigned line,
                                        const char* function, size_t char_size);

// Asserts v[0] > 0: a graph with v[0] == 0 faults the GPU.
extern "C" __global__ void check_positive(const int* v) {
    if (v[0] <= 0) {
        __assertfail("v[0] > 0", "faults.cu", 9, "check_positive", 1);
    }
}
