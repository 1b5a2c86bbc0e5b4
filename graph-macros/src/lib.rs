//! The `cuda_graph!` macro of cuda-graph (in progress: see issue 3).
