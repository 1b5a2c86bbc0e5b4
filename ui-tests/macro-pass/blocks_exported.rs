#![deny(warnings)]
//! A block exported by one module (`pub block`) and placed by a `cuda_graph!` call in another
//! (`use crate::shared::bump;`), beside a block of its own; two imports in one call.
use cuda_graph::cuda_graph;

mod shared {
    use cuda_graph::cuda_graph;

    cuda_graph! {
        /// y = y + ones.
        pub block bump {
            kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
            buffer mut y: u32;
            buffer ones: u32;
            param n: u32;
            add = lincomb_u32<<<n.div_ceil(256), 256>>>(y, 1, ones, 1, y, n);
        }

        /// y = 2 y.
        pub block double {
            kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
            buffer mut y: u32;
            param n: u32;
            twice = lincomb_u32<<<n.div_ceil(256), 256>>>(y, 2, y, 0, y, n);
        }
    }
}

cuda_graph! {
    use crate::shared::bump;
    use crate::shared::double;

    /// y = y + ones, locally.
    block again {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer mut y: u32;
        buffer ones: u32;
        param n: u32;
        add = lincomb_u32<<<n.div_ceil(256), 256>>>(y, 1, ones, 1, y, n);
    }

    /// a = 2 (a + 1) + 1.
    pub graph Chain {
        buffer mut a: u32;
        buffer ones: u32;
        param n: u32;
        first = use bump(y = a);
        second = use double(y = a);
        third = use again(y = a);
        first -> second -> third;
    }
}

fn main() {
    let _ = std::mem::size_of::<ChainInputs<'static>>();
}
