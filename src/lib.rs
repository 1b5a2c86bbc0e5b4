#![doc = include_str!("../README.md")]
//!
//! This facade re-exports the runtime ([`Graph`], [`GraphExec`], typed node handles and
//! setter views) and, as it lands, the `cuda_graph!` macro.

pub use cuda_graph_runtime::*;

/// What a program using cuda-graph usually needs.
pub mod prelude {
    pub use cuda_graph_runtime::{
        compile, context, gpu_available, Buf, BufMut, Dep, Graph, GraphExec, HostBuf, HostBufMut,
        Instantiate, LaunchConfig, UpdatePath,
    };
}
