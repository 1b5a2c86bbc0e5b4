//! Shared by the GPU test binaries: find a GPU or skip (fail under CUDA_GRAPH_REQUIRE_GPU=1),
//! compile the test kernels, poison and read buffers.
#![allow(dead_code)]

use std::sync::Arc;

use cuda_graph::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use cuda_graph::{Kernel, Module};

/// The test kernels, embedded so the test binaries stand alone.
pub const KERNELS: &str = include_str!("../kernels/kernels.cu");

/// A value no kernel of the tests writes: outputs start as this, so an unwritten output fails.
pub const POISON: u32 = 0xDEAD_BEEF;

pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub module: Module,
}

impl Gpu {
    pub fn f(&self, name: &str) -> Kernel {
        self.module
            .function(name)
            .unwrap_or_else(|e| panic!("kernel `{name}`: {e}"))
    }

    pub fn upload<T: cuda_graph::cudarc::driver::DeviceRepr + Clone>(
        &self,
        v: &[T],
    ) -> CudaSlice<T> {
        self.stream.clone_htod(v).expect("upload")
    }

    pub fn poisoned(&self, n: usize) -> CudaSlice<u32> {
        self.upload(&vec![POISON; n])
    }

    pub fn read<T: cuda_graph::cudarc::driver::DeviceRepr + Clone + Default>(
        &self,
        s: &CudaSlice<T>,
    ) -> Vec<T> {
        self.stream.clone_dtoh(s).expect("download")
    }
}

/// A fresh context handle (its own cudarc stream bookkeeping), the legacy default stream and
/// the test kernels; or `None` with one printed line when there is no GPU.
pub fn gpu() -> Option<Gpu> {
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            if std::env::var("CUDA_GRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("CUDA_GRAPH_REQUIRE_GPU=1 but no GPU can be used: {e}");
            }
            println!("skipped: no GPU ({e})");
            return None;
        }
    };
    let module = cuda_graph::compile(&ctx, KERNELS).expect("compile the test kernels");
    let stream = ctx.default_stream();
    Some(Gpu {
        ctx,
        stream,
        module,
    })
}

#[macro_export]
macro_rules! gpu_or_skip {
    () => {
        match common::gpu() {
            Some(g) => g,
            None => return,
        }
    };
}

/// Compiles each graph's source for each of `archs` to machine code, as the runtime would for
/// such a device (no GPU needed: NVRTC alone, which CI installs). Panics with NVRTC's log.
pub fn check_sources(checks: &[cuda_graph::check::GraphCheck], archs: &[cuda_graph::check::Arch]) {
    if let Err(e) = cuda_graph::check::graphs(checks, archs) {
        panic!("{e}");
    }
}

/// sm_90 and sm_80: the architectures CI compiles every source for, where it can.
pub const ARCHS: [cuda_graph::check::Arch; 2] = [
    cuda_graph::check::Arch::SM_90,
    cuda_graph::check::Arch::SM_80,
];
