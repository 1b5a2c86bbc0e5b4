// The peer all-reduce: one kernel, one pass, no fence. Every rank stores its part straight into
// each peer's mailbox (device memory the peer owns, reached over NVLink or PCIe), and each 4-byte
// word of data travels beside the number of the all-reduce it belongs to (its epoch) in one
// 8-byte word, which lands whole: a rank polls its own mailbox until every word it needs
// carries this epoch, then reduces the parts in rank order, so every rank computes the same
// bits. (NCCL's low-latency protocol sends data the same way.)
//
// Compiled by the runtime (driver/peer_reduce.rs) with NVRTC, one program per element type and
// reduction: it defines ELEM_<type> and OP_<op>, and the mailbox layout: MAX_RANKS,
// DATA_OFFSET, SLOT_LINES.
//
// A mailbox: from its start, this rank's count of all-reduces per block (4-byte epochs); from
// byte DATA_OFFSET, lines of 16 bytes, [2 (epoch parity)][world (sender)][SLOT_LINES], a line
// being {data word, epoch, data word, epoch}: 8 bytes of a part.
//
// Every all-reduce of a communicator runs the same number of blocks on every rank, whatever its
// size, so each block's count is the communicator's count of all-reduces and the parity of
// consecutive all-reduces alternates for every line. Block b of every rank handles the same
// lines. The parity slot lets a peer store the next all-reduce's part while this rank still
// reads the last: it cannot get two ahead, since finishing the next needs this rank's part of
// it, which this rank stores after its reads. Words are compared for equality with the epoch,
// which is never 0, and a rank sets each line it has read back to 0: a line carries either 0 or
// the number of the all-reduce it belongs to.

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;

__device__ __forceinline__ u64 least(u64 a, u64 b) { return a < b ? a : b; }

// A type reduced as itself.
#define PLAIN(T)                                                        \
    typedef T raw_t;                                                    \
    typedef T acc_t;                                                    \
    __device__ __forceinline__ acc_t up(raw_t v) { return v; }          \
    __device__ __forceinline__ raw_t down(acc_t v) { return v; }

#if defined(ELEM_F32)
PLAIN(float)
#elif defined(ELEM_F64)
PLAIN(double)
#elif defined(ELEM_I32)
PLAIN(int)
#elif defined(ELEM_U32)
PLAIN(u32)
#elif defined(ELEM_I64)
PLAIN(long long)
#elif defined(ELEM_U64)
PLAIN(u64)
#elif defined(ELEM_F16)
// Reduced in float, rounded once to the nearest half.
typedef u16 raw_t;
typedef float acc_t;
__device__ __forceinline__ acc_t up(raw_t v) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
    return f;
}
__device__ __forceinline__ raw_t down(acc_t v) {
    u16 h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
}
#elif defined(ELEM_BF16)
// Reduced in float, rounded once to the nearest bfloat16.
typedef u16 raw_t;
typedef float acc_t;
__device__ __forceinline__ acc_t up(raw_t v) { return __uint_as_float(((u32)v) << 16); }
__device__ __forceinline__ raw_t down(acc_t v) {
#if __CUDA_ARCH__ >= 800
    u16 h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
#else
    u32 u = __float_as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);                                      // to nearest even
    return (u16)(u >> 16);
#endif
}
#else
#error "define ELEM_<type>"
#endif

// Sums and products of signed integers wrap in two's complement, as NCCL's do: computed on the
// unsigned type of their width, where overflow is defined.
#if defined(ELEM_I32)
typedef u32 wrap_t;
#elif defined(ELEM_I64)
typedef u64 wrap_t;
#else
typedef acc_t wrap_t;
#endif

#if defined(OP_SUM)
__device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return (acc_t)((wrap_t)a + (wrap_t)b); }
#elif defined(OP_PROD)
__device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return (acc_t)((wrap_t)a * (wrap_t)b); }
#elif defined(OP_MAX)
__device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return a < b ? b : a; }
#elif defined(OP_MIN)
__device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return b < a ? b : a; }
#else
#error "define OP_<op>"
#endif

// A thread's unit: 8 bytes of the part.
#define PER_CHUNK (8 / sizeof(raw_t))
union Chunk {
    uint2 w;
    raw_t e[PER_CHUNK];
};

struct Peers {
    u64 box[MAX_RANKS];
};

// Element c's chunk of `p` (n elements): one 8-byte load where it is whole and aligned, else
// element by element (zero past the end).
__device__ __forceinline__ Chunk load_chunk(const raw_t* p, u64 c, u64 n, u32 aligned) {
    Chunk v;
    const u64 at = c * PER_CHUNK;
    if (aligned && at + PER_CHUNK <= n) {
        v.w = *(const uint2*)(p + at);
    } else {
        for (u32 k = 0; k < PER_CHUNK; k++) v.e[k] = at + k < n ? p[at + k] : (raw_t)0;
    }
    return v;
}

__device__ __forceinline__ void store_chunk(raw_t* p, u64 c, u64 n, u32 aligned, Chunk v) {
    const u64 at = c * PER_CHUNK;
    if (aligned && at + PER_CHUNK <= n) {
        *(uint2*)(p + at) = v.w;
    } else {
        for (u32 k = 0; k < PER_CHUNK; k++)
            if (at + k < n) p[at + k] = v.e[k];
    }
}

// A line is two 8-byte halves, each a data word with the epoch above it: {word | epoch << 32},
// so a half that carries the epoch carries its word (an aligned 8-byte access is single-copy
// atomic), whichever order the halves of the 16-byte store land in.
__device__ __forceinline__ void send(uint4* to, uint2 w, u32 epoch) {
    const u64 e = (u64)epoch << 32;
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(to), "l"(e | w.x),
                 "l"(e | w.y)
                 : "memory");
}

// The line at `at`, as {word, epoch, word, epoch}.
__device__ __forceinline__ uint4 peek(const uint4* at) {
    u64 a, b;
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(at) : "memory");
    return make_uint4((u32)a, (u32)(a >> 32), (u32)b, (u32)(b >> 32));
}

// `src` and `dst` hold `n` elements (they may be one buffer); `aligned`: both are 8-byte
// aligned. `peers`: every rank's mailbox; `stop`: a word of mapped host memory, set when the
// communicator is aborted, which ends the wait for a peer that never comes (the output is then
// not all written).
extern "C" __global__ void __launch_bounds__(256) peer_all_reduce(
    const raw_t* src, raw_t* dst, u64 n, Peers peers, const volatile u32* stop, u32 rank,
    u32 world, u32 aligned) {
    const u32 b = blockIdx.x, t = threadIdx.x;
    u32* epochs = (u32*)peers.box[rank];
    __shared__ u32 epoch_s;
    if (t == 0) {
        // Never 0, the number of a line not awaited (an even one follows the odd last).
        u32 e = epochs[b] + 1;
        if (e == 0) e = 2;
        epochs[b] = e;
        epoch_s = e;
    }
    __syncthreads();
    const u32 epoch = epoch_s;
    const u64 parity = epoch & 1;

    // This block's chunks: [lo, hi).
    const u64 chunks = (n + PER_CHUNK - 1) / PER_CHUNK;
    const u64 per = (chunks + gridDim.x - 1) / gridDim.x;
    const u64 lo = least(chunks, (u64)b * per);
    const u64 hi = least(chunks, lo + per);

    // Store this rank's part into every peer's mailbox.
    for (u64 c = lo + t; c < hi; c += blockDim.x) {
        const Chunk mine = load_chunk(src, c, n, aligned);
        for (u32 q = 0; q < world; q++) {
            if (q == rank) continue;
            uint4* lines = (uint4*)((char*)peers.box[q] + DATA_OFFSET) +
                           (parity * world + rank) * (u64)SLOT_LINES;
            send(lines + c, mine.w, epoch);
        }
    }

    // Wait for each peer's part here, and reduce in rank order.
    uint4* here = (uint4*)((char*)peers.box[rank] + DATA_OFFSET) + parity * world * (u64)SLOT_LINES;
    for (u64 c = lo + t; c < hi; c += blockDim.x) {
        acc_t acc[PER_CHUNK];
        for (u32 q = 0; q < world; q++) {
            Chunk v;
            if (q == rank) {
                v = load_chunk(src, c, n, aligned);
            } else {
                uint4* at = here + q * (u64)SLOT_LINES + c;
                uint4 line = peek(at);
                u32 spins = 0;
                while (line.y != epoch || line.w != epoch) {
                    if ((++spins & 1023) == 0 && *stop) return;
                    line = peek(at);
                }
                v.w = make_uint2(line.x, line.z);
                // Read: back to 0, so that the line never carries a number from long ago (the
                // count wraps after 2^32 all-reduces). The peer writes it again only after
                // this kernel has ended.
                send(at, make_uint2(0, 0), 0);
            }
            for (u32 k = 0; k < PER_CHUNK; k++)
                acc[k] = q == 0 ? up(v.e[k]) : combine(acc[k], up(v.e[k]));
        }
        Chunk out;
        for (u32 k = 0; k < PER_CHUNK; k++) out.e[k] = down(acc[k]);
        store_chunk(dst, c, n, aligned, out);
    }
}
