//! A graph whose kernels are checked against CUDA source: one declared in Rust and checked,
//! one taking its parameters from the file; `PROTOTYPES` and `SOURCE` exist.
#![deny(warnings)]
use cuda_graph::cuda_graph;

cuda_graph! {
    graph Checked {
        source "../macro/cu/kernels.cu";
        kernel saxpy;
        buffer x: f32;
        buffer mut y: f32;
        param n: u32;
        step = saxpy<<<n.div_ceil(32), 32>>>(2.0, x, y, n);
    }
}

fn main() {
    // Its kernels compiled as `build_from_source` will, to machine code (NVRTC alone; without
    // it, a printed skip).
    use cuda_graph::check::{self, Arch};
    if let Err(e) = check::graphs(&[("Checked", Checked::check_source)], &[Arch::SM_90, Arch::SM_80]) {
        panic!("{e}");
    }
    assert_eq!(
        Checked::PROTOTYPES,
        "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, unsigned int n);\n"
    );
    assert!(Checked::SOURCE.contains("__global__ void saxpy"));
    let _ = Checked::build_from_source;
}
