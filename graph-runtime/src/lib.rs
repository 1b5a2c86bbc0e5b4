//! Runtime of [cuda-graph](https://github.com/cuda-graph/cuda-graph): explicit CUDA graphs over
//! cudarc, built node by node, with typed live-edit setters on the executable graph.
//!
//! Layers, bottom up:
//! - `driver`: one `unsafe fn` per CUDA driver call, returning `Result`;
//! - [`Topology`]: node names, kinds and edges as plain data (cycle checks, DOT), no GPU;
//! - [`Graph`]: the template, which borrows buffers, functions, closures, events and child
//!   graphs for `'a`, and keeps a shadow copy of every node's parameters;
//! - [`GraphExec`]: the executable graph, with typed setter views per node kind
//!   ([`KernelMut`], [`MemsetMut`], ...) and the update ladder (setter, whole-graph update,
//!   re-instantiation).
//!
//! Users depend on the `cuda-graph` crate, which re-exports this one.

#![warn(missing_docs)]

mod args;
mod bind;
mod driver;
mod error;
mod exec;
mod gpu;
mod graph;
mod handles;
mod host;
mod module;
mod shadow;
mod topology;
mod views;

pub use args::{ArgAt, ArgBlock, ArgLayout, ArgOffsets, KernelArg, KernelArgs, MAX_ARGS};
pub use bind::{Buf, BufMut, BufferId, DeviceBuf, HostBuf, HostBufMut};
pub use error::{Error, NoGpu, Result};
pub use exec::{BufferSlot, GraphExec, Instantiate, UpdatePath, UpdateRefusal};
pub use gpu::{compile, context, gpu_available, nvrtc_available};
pub use graph::{Graph, GraphId};
pub use handles::{
    ChildNode, Dep, Device, EmptyNode, EventRecordNode, EventWaitNode, Host, HostNode, KernelNode,
    Location, MemcpyDst, MemcpyNode, MemcpySrc, MemsetNode, MemsetValue, NodeHandle, NodeId,
};
pub use module::{Kernel, KernelRef, Module};
pub use topology::{NodeKind, Topology};
pub use views::{
    ChildMut, EmptyMut, EventRecordMut, EventWaitMut, HostMut, KernelMut, MemcpyMut, MemsetMut,
    NodeAccess, OnExec, OnTemplate, Side,
};

/// cudarc, as this crate uses it.
pub use cudarc;
pub use cudarc::driver::LaunchConfig;
