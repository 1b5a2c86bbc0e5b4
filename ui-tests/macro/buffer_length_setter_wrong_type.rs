//! A setter of a param a length uses still takes the param's type.
use cuda_graph::cuda_graph;
cuda_graph! {
    graph G {
        kernel fill(y: &mut [f32], n: u32);
        buffer mut y: [f32; n];
        param n: u32;
        write = fill<<<1, 32>>>(y, n);
    }
}

fn main() {
    fn _set(exec: &mut GExec<'_>) -> cuda_graph::Result<()> {
        exec.set_n(-1i64)?;
        Ok(())
    }
}
