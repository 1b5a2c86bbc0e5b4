// Kernels whose parameters are more than scalars and pointers (tests/source_types.rs): a
// struct by value, an array of device addresses, a tensor map, an empty tag type, an enum
// template parameter, and 33 parameters.

// The standard library's tag types, as `<type_traits>` defines them (NVRTC is given no
// standard headers here).
namespace std {
template <class T, T v>
struct integral_constant {
    static constexpr T value = v;
};
template <bool B>
using bool_constant = integral_constant<bool, B>;
}  // namespace std

// As `cuda.h` declares it (NVRTC reads no `cuda.h`).
struct alignas(64) CUtensorMap_st {
    unsigned long long opaque[16];
};
typedef CUtensorMap_st CUtensorMap;

struct Params {
    float scale;
    int n;
    double bias;
};

extern "C" __global__ void apply(float* y, Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = p.scale * (float)i + (float)p.bias;
}

extern "C" __global__ void gather(const float* const* xs, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = xs[0][i] + 10.0f * xs[1][i];
}

extern "C" __global__ void tmap(const __grid_constant__ CUtensorMap map, unsigned long long* out) {
    if (threadIdx.x < 16) out[threadIdx.x] = map.opaque[threadIdx.x];
}

template <bool Negate>
__global__ void tagged(float* y, std::bool_constant<Negate>, float v) {
    y[threadIdx.x] = Negate ? -v : v;
}

namespace ops {
enum class Mode : int { kA = 3, kB = 7, kC };
template <Mode M>
__global__ void moded(int* out) {
    if (threadIdx.x == 0) out[0] = (int)M;
}
}  // namespace ops

extern "C" __global__ void wide(int* out, int p1, int p2, int p3, int p4, int p5, int p6, int p7,
                                int p8, int p9, int p10, int p11, int p12, int p13, int p14,
                                int p15, int p16, int p17, int p18, int p19, int p20, int p21,
                                int p22, int p23, int p24, int p25, int p26, int p27, int p28,
                                int p29, int p30, int p31, int p32) {
    int p[32] = {p1,  p2,  p3,  p4,  p5,  p6,  p7,  p8,  p9,  p10, p11,
                 p12, p13, p14, p15, p16, p17, p18, p19, p20, p21, p22,
                 p23, p24, p25, p26, p27, p28, p29, p30, p31, p32};
    if (threadIdx.x < 32) out[threadIdx.x] = p[threadIdx.x] * (int)(threadIdx.x + 1);
}
