//! Runtime of `cuda-graph`: explicit CUDA graphs over
//! cudarc, built node by node, with typed live-edit setters on the executable graph.
//!
//! The public surface: [`Graph`] (the template), [`GraphExec`] (the executable graph),
//! [`Error`], [`context`], [`compile`] and [`Module`] at the root; NVRTC checks without a GPU in
//! [`check`]; node handles and views in
//! [`node`], bound buffers in [`buffer`], memcpy ends in [`memcpy`], kernel arguments in
//! [`kernel`], captured work in [`capture`], errors in [`error`], instantiation and updates in
//! [`exec`], plain topology in [`topology`].
//!
//! Layers, bottom up (each module uses only the ones before it; `docs/architecture.md` lists
//! them and `tests/layers.rs` checks it):
//! - `error`, `id`: errors per operation, graph and node identities;
//! - `driver` (with `block`, the argument block): every CUDA driver call, and the owning types
//!   that keep alive what the driver points at: the only `unsafe` code;
//! - `bind` (bound buffers), `stack` (stacks of buffers, one per iteration of a repeat block),
//!   `args` (kernel arguments), `capture` (what captured work sees), `matmul` (cuBLASLt
//!   products for captured work, feature `cublaslt`), `module` (kernels that know their
//!   parameter lists), `gpu` (finding a GPU, NVRTC);
//! - `kinds`: one module per node kind: its typed handle ([`node::KernelNode`], ...), its shadow
//!   (the node's parameters, kept because CUDA cannot read them back), how it is added and sent
//!   to the driver, and its setter view ([`node::KernelMut`], ...);
//! - `graph`: the template, which borrows buffers, functions, closures, events and child graphs
//!   for `'a`;
//! - `exec`: the executable graph and the update ladder (setter, whole-graph update,
//!   re-instantiation).
//!
//! Users depend on the `cuda-graph` crate, which re-exports this one.

#![deny(missing_docs)]

mod args;
mod bind;
mod block;
pub mod capture;
#[cfg(feature = "nccl")]
pub mod comm;
mod driver;
pub mod error;
pub mod exec;
mod gpu;
mod graph;
mod id;
mod kinds;
#[cfg(feature = "cublaslt")]
pub mod matmul;
mod module;
mod stack;

pub use error::{Error, Result};
pub use exec::GraphExec;
pub use gpu::{
    compile, compile_cached, compile_cached_with, compile_with, context, gpu_available,
    nvrtc_available,
};
pub use graph::Graph;
pub use module::{Kernel, Module};

/// cudarc, as this crate uses it.
pub use cudarc;
/// The `half` crate: `f16` (C `__half`) and `bf16` (C `__nv_bfloat16`) as buffer elements and
/// kernel arguments.
pub use half;

/// CUDA's vector types as `#[repr(C)]` Rust types of the same layout: `float4` is
/// [`Float4`](vector::Float4), `__half2` is [`Half2`](vector::Half2), ...
///
/// ```
/// use cuda_graph_runtime::vector::Float4;
/// assert_eq!(std::mem::size_of::<Float4>(), 16);
/// let v = Float4::new(1.0, 2.0, 3.0, 4.0);
/// assert_eq!(v.z, 3.0);
/// ```
pub mod vector {
    pub use crate::driver::vector::{
        BFloat162, Char4, Double2, Float2, Float3, Float4, Half2, Int2, Int3, Int4, LongLong2,
        Short2, UChar4, UInt2, UInt3, UInt4, ULongLong2, UShort2,
    };
}
/// CUDA's 8-bit floating-point types (`cuda_fp8.h`) as Rust types of the same layout, for
/// buffer elements and by-value kernel arguments: `__nv_fp8_e4m3` is [`F8E4M3`](fp8::F8E4M3),
/// `__nv_fp8_e5m2` is [`F8E5M2`](fp8::F8E5M2), `__nv_fp8_e8m0` is [`F8E8M0`](fp8::F8E8M0),
/// `__nv_fp8x4_e4m3` is [`F8E4M3x4`](fp8::F8E4M3x4), ... Conversions from `f32` round as CUDA's
/// constructors from `float` do (to nearest even, saturating to the largest finite value).
///
/// ```
/// use cuda_graph_runtime::fp8::{F8E4M3, F8E4M3x4};
/// assert_eq!(std::mem::size_of::<F8E4M3x4>(), 4);
/// let x = F8E4M3::from_f32(0.3);
/// assert_eq!(x.to_f32(), 0.3125);
/// assert_eq!(F8E4M3::from_f32(1e6), F8E4M3::MAX); // 448
/// let q = F8E4M3x4::from_f32([1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(q.to_f32(), [1.0, 2.0, 3.0, 4.0]);
/// ```
pub mod fp8 {
    pub use crate::driver::fp8::{
        F8E4M3x2, F8E4M3x4, F8E5M2x2, F8E5M2x4, F8E8M0x2, F8E8M0x4, F8E4M3, F8E5M2, F8E8M0,
    };
}
pub use cudarc::driver::LaunchConfig;

/// Buffers bound to a graph: the typed handles nodes take, and what a swapped binding leaves.
///
/// ```no_run
/// # fn demo(ctx: &std::sync::Arc<cudarc::driver::CudaContext>) -> cuda_graph_runtime::Result<()> {
/// use cuda_graph_runtime::buffer::{Buf, BufMut};
/// let stream = ctx.default_stream();
/// let x = stream.clone_htod(&[1.0f32; 256])?;        // cudarc's errors convert with `?`
/// let mut y = stream.alloc_zeros::<f32>(256)?;
/// let mut g = cuda_graph_runtime::Graph::new(ctx)?;
/// let (xb, yb): (Buf<f32>, BufMut<f32>) = (g.bind(&x)?, g.bind_mut(&mut y)?);
/// # let _ = (xb, yb); Ok(()) }
/// ```
pub mod buffer {
    pub use crate::bind::{
        Buf, BufMut, BufferId, DeviceBuf, HostBuf, HostBufMut, PeerBuf, PeerBufMut, Void,
    };
    pub use crate::driver::opaque::Addr;
    pub use crate::exec::BufferSlot;
    pub use crate::stack::{Stack, StackMut};
    pub use cudarc::driver::{CudaSlice, CudaViewMut};
}

pub use kinds::node;

/// The ends of a memcpy node: where each end lives ([`Device`](memcpy::Device) or
/// [`Host`](memcpy::Host)) is part of its type, so a setter cannot move an end between host
/// and device.
///
/// ```no_run
/// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
/// #         back: cuda_graph_runtime::node::MemcpyNode<f32, cuda_graph_runtime::memcpy::Host,
/// #                                                    cuda_graph_runtime::memcpy::Device>,
/// #         y: cuda_graph_runtime::buffer::BufMut<f32>) -> cuda_graph_runtime::Result<()> {
/// exec.node(back)?.set_src(y)?;   // a device end takes a device buffer
/// # Ok(()) }
/// ```
pub mod memcpy {
    pub use crate::kinds::memcpy::{Device, Host, Location, MemcpyDst, MemcpySrc};
}

/// What kernel nodes take: argument types ([`KernelArg`](kernel::KernelArg) for one,
/// [`KernelArgs`](kernel::KernelArgs) for a tuple), condition handles, kernels.
///
/// ```
/// use cuda_graph_runtime::kernel::KernelArgs;
/// assert_eq!(<(f32, u32) as KernelArgs>::COUNT, 2);
/// ```
pub mod kernel {
    pub use crate::args::{ArgAt, Cond, KernelArg, KernelArgs};
    pub use crate::driver::opaque::{Tag, TensorMap};
    pub use crate::gpu::Compile;
    pub use crate::module::{Kernel, KernelRef};
}

/// Kernel sources compiled as the runtime will, for an architecture, to machine code, with no
/// GPU: [`source`](check::source), and `check_source` on every graph of `cuda_graph!` that
/// names its `source` file. For a `cargo test` in CI; NVRTC and the CUDA headers come from
/// two wheels:
///
/// ```sh
/// pip install --target "$HOME/cuda" nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79
/// export LD_LIBRARY_PATH="$HOME/cuda/nvidia/cuda_nvrtc/lib:$LD_LIBRARY_PATH"
/// CUDA_GRAPH_REQUIRE_NVRTC=1 cargo test     # a missing NVRTC fails instead of skipping
/// ```
///
/// The headers (`cuda_fp16.h`, ...) are found beside the NVRTC library loaded (or set
/// `CUDA_HOME` to the folder above their `include/`).
///
/// ```
/// use cuda_graph_runtime::check::{self, Arch};
/// use cuda_graph_runtime::kernel::Compile;
/// let src = r#"extern "C" __global__ void stop(cudaGraphConditionalHandle c, const unsigned* n) {
///     cudaGridDependencySynchronize();        // no declaration: cuda-graph's device API
///     cudaGraphSetConditional(c, n[0] < 10);
/// }"#;
/// match check::source(Arch::SM_90, src, &Compile::new().file_name("stop.cu"), &["stop"]) {
///     Ok(done) => assert!(done.skipped() || matches!(done, check::Checked::Compiled { .. })),
///     Err(e) => panic!("{e}"),
/// }
/// ```
pub mod check {
    pub use crate::gpu::check::{graphs, source, Arch, Checked, Failure, GraphCheck};
}

/// Node names, kinds and edges as plain data (no GPU): cycle checks, order, reachability, DOT.
///
/// ```
/// use cuda_graph_runtime::topology::{NodeKind, Topology};
/// let mut t = Topology::new();
/// let a = t.add_node("a", NodeKind::Empty)?;
/// let b = t.add_node("b", NodeKind::Empty)?;
/// t.add_edge(a, b)?;
/// assert!(t.to_dot("g").contains("\"a\" -> \"b\""));
/// # Ok::<(), cuda_graph_runtime::topology::TopologyError>(())
/// ```
pub mod topology {
    pub use cuda_graph_topology::{NodeKind, Port, Reach, Topology, TopologyError};
}
