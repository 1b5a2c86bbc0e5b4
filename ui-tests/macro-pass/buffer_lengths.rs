#![deny(warnings)]
//! Buffers with declared lengths: expressions of params and constants, on device buffers,
//! host buffers and a stack. Every param keeps its setter: those a length uses check the
//! bound buffers first, the one that only shapes the grid costs nothing more.
use cuda_graph::cuda_graph;

const WIDTH: u32 = 4;

cuda_graph! {
    graph Lengths {
        kernel scale(x: &[f32], y: &mut [f32], n: u32);
        buffer x: [f32; n * WIDTH];
        buffer mut y: [f32; (n * WIDTH).div_ceil(threads) * threads];
        buffer mut w[2]: [f32; n as usize + 1];
        host_buffer mut out: [f32; n];
        param n: u32;
        param threads: u32;
        s = scale<<<n.div_ceil(threads), threads>>>(x, y, n);
        layers = repeat l in 0..2 {
            t = scale<<<1, 32>>>(x, w[l], n);
        }
        back = memcpy(out, y);
        s -> back;
    }
}

fn main() {
    fn _use<'a>(
        exec: &mut LengthsExec<'a>,
        x: &'a cuda_graph::cudarc::driver::CudaSlice<f32>,
    ) -> cuda_graph::Result<()> {
        exec.set_n(16)?;
        exec.set_threads(64)?;
        exec.set_x(x)?;
        Ok(())
    }
    let _ = Lengths::DOT;
}
