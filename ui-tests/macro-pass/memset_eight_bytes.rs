//! Memsets of 8-byte elements: values whose two 4-byte halves are equal (zero, all ones) are
//! 4-byte fills over twice the elements.
#![deny(warnings)]
use cuda_graph::cuda_graph;

cuda_graph! {
    graph Clear {
        kernel k(x: &mut [f64], i: &mut [i64], u: &mut [u64], n: u32);
        buffer mut x: f64;
        buffer mut i: i64;
        buffer mut u: u64;
        param n: u32;
        param fill: f64;
        zero = memset(x, 0.0);
        ones = memset(i, -1);
        none = memset(u, 0);
        again = memset(x, fill);
        step = k<<<1, 32>>>(x, i, u, n);
        [zero, ones, none] -> again -> step;
    }
}

fn main() {
    let _ = Clear::build;
}
