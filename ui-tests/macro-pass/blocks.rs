#![deny(warnings)]
//! Blocks written once and placed in several graphs: at the top level (twice, with an input
//! renamed), in a repeat body with its loop variable given, and in an IF body; edges to and
//! from a place join the block's first and last nodes; a place's nodes have views named
//! `place_node`.
use cuda_graph::cuda_graph;
use cuda_graph::kernel::Cond;

cuda_graph! {
    /// x = 2x + w[l], kept in trace[l]: one layer.
    block layer(l) {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer w[layers]: u32;
        buffer mut x: u32;
        buffer mut trace[layers]: u32;
        param n: u32;
        step = lincomb_u32<<<n.div_ceil(256), 256>>>(x, 2, w[l], 1, trace[l], n);
        keep = lincomb_u32<<<n.div_ceil(256), 256>>>(trace[l], 1, trace[l], 0, x, n);
        step -> keep;
    }

    /// y = y + ones.
    block bump {
        kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
        buffer mut y: u32;
        buffer ones: u32;
        param n: u32;
        add = lincomb_u32<<<n.div_ceil(256), 256>>>(y, 1, ones, 1, y, n);
    }

    /// The layers, in a repeat block.
    pub graph Layers {
        kernel iota_u32(y: &mut [u32], base: u32, n: u32);
        buffer w[layers]: u32;
        buffer mut x: u32;
        buffer mut trace[layers]: u32;
        param layers: u32;
        param n: u32;
        start = iota_u32<<<n.div_ceil(256), 256>>>(x, 0, n);
        stack = repeat i in 0..layers {
            one = use layer(l = i);
            carry one -> one;
        }
        start -> stack;
    }

    /// Two bumps of two buffers, then one more under a condition.
    pub graph Bumps {
        kernel decide(value: u32, c: Cond);
        buffer mut a: u32;
        buffer mut b: u32;
        buffer ones: u32;
        param n: u32;
        param go: u32;
        cond again;
        first = use bump(y = a);
        second = use bump(y = b);
        pick = decide<<<1, 1>>>(go, again);
        maybe = if again {
            third = use bump(y = a);
        }
        [first, pick] -> maybe;
    }
}

fn main() {
    let _ = std::mem::size_of::<BumpsInputs<'static>>();
}
