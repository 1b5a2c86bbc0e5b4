use cuda_graph::cuda_graph;

cuda_graph! {
    pub(crate) block bump {
        kernel k(y: &mut [u32]);
        buffer mut y: u32;
        one = k<<<1, 1>>>(y);
    }
}

fn main() {}
