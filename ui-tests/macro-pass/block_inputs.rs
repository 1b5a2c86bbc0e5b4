#![deny(warnings)]
//! `inputs block;`: a graph declares every input of its blocks once, without writing them
//! out; two blocks sharing an input (one reads it, one writes it) give one `mut` input.
use cuda_graph::cuda_graph;

cuda_graph! {
    block fill {
        kernel set(x: &mut [u32], v: u32, n: u32);
        buffer mut x: u32;
        param v: u32;
        param n: u32;
        f = set<<<n.div_ceil(128), 128>>>(x, v, n);
    }

    block copy {
        kernel cp(x: &[u32], y: &mut [u32], n: u32);
        buffer x: u32;
        buffer mut y: u32;
        param n: u32;
        c = cp<<<n.div_ceil(128), 128>>>(x, y, n);
    }

    /// x = v, then y = x.
    pub graph Both {
        inputs fill;
        inputs copy;
        first = use fill;
        then = use copy;
        first -> then;
    }
}

fn main() {
    let mut x = None::<cuda_graph::cudarc::driver::CudaSlice<u32>>;
    let _build = |x: &mut cuda_graph::cudarc::driver::CudaSlice<u32>, y: &mut cuda_graph::cudarc::driver::CudaSlice<u32>| {
        BothInputs { x, y, v: 1, n: 2 }.n
    };
    x.take();
}
