#![deny(warnings)]
use cuda_graph::cuda_graph;

cuda_graph! {
    /// `repeat _ in 0..n`: a block whose body does not use the iteration's index, with a carry
    /// edge, and one inside a WHILE body.
    graph Steps {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer mut x: u32;
        buffer w: u32;
        param steps: u32;
        param n: u32;
        body = repeat _ in 0..steps {
            mix = lincomb_u32<<<1, 32>>>(x, 3, w, 1, x, n);
            carry mix -> mix;
        }
        twice = repeat _ in 0..2 {
            again = lincomb_u32<<<1, 32>>>(x, 1, w, 2, x, n);
            carry again -> again;
        }
        body -> twice;
    }
}

fn main() {
    fn _inputs<'a>(
        x: &'a mut cuda_graph::buffer::CudaSlice<u32>,
        w: &'a cuda_graph::buffer::CudaSlice<u32>,
    ) -> StepsInputs<'a> {
        StepsInputs { x, w, steps: 5, n: 16 }
    }
    let _ = Steps::DOT;
}
