//! Runtime of [cuda-graph](https://github.com/cuda-graph/cuda-graph): explicit CUDA graphs over
//! cudarc, built node by node, with typed live-edit setters on the executable graph.
//!
//! Layers, bottom up (each uses only the ones before it):
//! - `error`, `id`: errors per operation, graph and node identities;
//! - `driver`: every CUDA driver call, and the owning types that keep alive what the driver
//!   points at (with `block`, the argument block, the only `unsafe` code);
//! - `bind` (bound buffers), `module` (kernels that know their parameter lists), and
//!   [`Topology`] (node names, kinds and edges as plain data: cycle checks, order, DOT, no GPU;
//!   from the `cuda-graph-topology` crate, which the macro uses too);
//! - `kinds`: one module per node kind: its typed handle ([`KernelNode`], [`MemsetNode`], ...),
//!   its shadow (the node's parameters, kept because CUDA cannot read them back), how it is
//!   added and sent to the driver, and its setter view ([`KernelMut`], [`MemsetMut`], ...);
//! - [`Graph`]: the template, which borrows buffers, functions, closures, events and child
//!   graphs for `'a`;
//! - [`GraphExec`]: the executable graph and the update ladder (setter, whole-graph update,
//!   re-instantiation).
//!
//! Users depend on the `cuda-graph` crate, which re-exports this one.

#![deny(missing_docs)]

mod args;
mod bind;
mod block;
mod capture;
mod driver;
mod error;
mod exec;
mod gpu;
mod graph;
mod id;
mod kinds;
mod module;

pub use args::{ArgAt, Cond, KernelArg, KernelArgs};
pub use bind::{Buf, BufMut, BufferId, DeviceBuf, HostBuf, HostBufMut};
pub use block::{ArgBlock, ArgLayout, ArgOffsets, MAX_ARGS};
pub use capture::{Capture, CaptureError, CaptureFn, Region, RegionMut, Work, WorkResult};
pub use cuda_graph_topology::{NodeKind, Reach, Topology, TopologyError};
pub use error::{
    AccessError, BuildError, DriverFailure, EditError, Error, HandleError, InstantiateReason,
    LaunchError, LaunchLimit, MemsetHalves, ModuleError, NoGpu, Result, Role, UpdateError,
    UpdateRefusal,
};
pub use exec::{BufferSlot, GraphExec, Instantiate, UpdatePath};
pub use gpu::{compile, compile_cached, context, gpu_available, nvrtc_available};
pub use graph::{Graph, DEFAULT_CAP_ABOVE, DEFAULT_LANES};
pub use id::{Dep, GraphId, NodeId};
pub use kinds::captured::{CapturedMut, CapturedNode};
pub use kinds::child::{ChildMut, ChildNode};
pub use kinds::cond::{Body, CondMut, CondNode};
pub use kinds::empty::{EmptyMut, EmptyNode};
pub use kinds::event::{EventRecordMut, EventRecordNode, EventWaitMut, EventWaitNode};
pub use kinds::host::{HostMut, HostNode};
pub use kinds::kernel::{KernelMut, KernelNode};
pub use kinds::mem::{MemAllocMut, MemAllocNode, MemFreeMut, MemFreeNode};
pub use kinds::memcpy::{Device, Host, Location, MemcpyDst, MemcpyMut, MemcpyNode, MemcpySrc};
pub use kinds::memset::{MemsetMut, MemsetNode, MemsetValue};
pub use kinds::{ChildGraph, IntoChild, NodeHandle, OnExec, OnTemplate, Parts, Side};
pub use module::{Kernel, KernelRef, Module};

/// cudarc, as this crate uses it.
pub use cudarc;
pub use cudarc::driver::LaunchConfig;
