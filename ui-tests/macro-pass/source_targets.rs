//! What the source check takes beyond one kernel per name: a qualified name (`nn::rmsnorm`, and
//! one in a namespace named like a Rust keyword), an overload chosen by its parameter list, the
//! architecture that decides a branch, and a kernel a macro names.
#![deny(warnings)]
use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        source "../macro/cu/targets.cu";
        define __CUDA_ARCH__ = 900;
        kernel norm = nn::rmsnorm<f32, 256>;
        kernel ref::rmsnorm<f32, 128>;
        kernel fill(y: &mut [i32], v: i32, n: i32);
        kernel step;
        kernel relu_f32;
        buffer mut y: f32;
        buffer x: f32;
        buffer mut yi: i32;
        a = norm<<<1, 256>>>(y, x);
        b = rmsnorm<<<1, 128>>>(y, x);
        c = fill<<<1, 32>>>(yi, 3, 32);
        d = step<<<1, 32>>>(y, x, 32);
        e = relu_f32<<<1, 32>>>(y, 32);
        a -> b -> d -> e;
    }
}

fn main() {
    // Its kernels compiled as `build_from_source` will, to machine code (NVRTC alone; without
    // it, a printed skip).
    use cuda_graph::check::{self, Arch};
    if let Err(e) = check::graphs(&[("G", G::check_source)], &[Arch::SM_90]) {
        panic!("{e}");
    }
}
