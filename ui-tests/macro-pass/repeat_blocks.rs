#![deny(warnings)]
use cuda_graph::buffer::{Stack, StackMut};
use cuda_graph::cuda_graph;
use cuda_graph::kernel::Cond;

cuda_graph! {
    /// A literal count, a carry edge, the loop variable in a launch dimension and an argument,
    /// a stack indexed by a param expression, an empty and a memset node in the body.
    graph Blocks {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer w[4]: u32;
        buffer last[k]: u32;
        buffer mut x: u32;
        buffer mut scratch: u32;
        param n: u32;
        param k: u32;
        first = iota_u32<<<1, 32>>>(x, 0, n);
        body = repeat l in 0..4 {
            clear = memset(scratch, 0);
            mix = lincomb_u32<<<(l as u32 + 1, 1, 1), 32>>>(x, l as u32, w[l], 1, scratch, n);
            back = lincomb_u32<<<1, 32>>>(scratch, 1, last[k - 1], 1, x, n);
            join = empty;
            clear -> mix -> back -> join;
            carry join -> clear;
        }
        first -> body;
    }

    /// A block inside a WHILE body: every launch of the loop's body runs its iterations.
    graph Looped {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        kernel step_cond(c: Cond, y: &[u32], n: u32);
        buffer mut y[layers]: u32;
        param layers: u32;
        param n: u32;
        cond go = 1;
        lp = while go {
            inner = repeat l in 0..layers {
                fill = iota_u32<<<1, 32>>>(y[l], l as u32, n);
            }
            decide = step_cond<<<1, 1>>>(go, y[0], n);
            inner -> decide;
        }
    }
}

fn main() {
    // The inputs take stacks as slices of buffers or strided buffers.
    fn _inputs<'a>(
        w: &'a [cuda_graph::buffer::CudaSlice<u32>],
        last: &'a cuda_graph::buffer::CudaSlice<u32>,
        x: &'a mut cuda_graph::buffer::CudaSlice<u32>,
        scratch: &'a mut cuda_graph::buffer::CudaSlice<u32>,
        y: &'a mut Vec<cuda_graph::buffer::CudaSlice<u32>>,
    ) -> (BlocksInputs<'a>, LoopedInputs<'a>) {
        (
            BlocksInputs { w: Stack::slices(w), last: Stack::strided(last, 16), x, scratch, n: 16, k: 2 },
            LoopedInputs { y: StackMut::slices(y), layers: 3, n: 16 },
        )
    }
    let _ = Blocks::DOT;
    let _ = Looped::DOT;
}
