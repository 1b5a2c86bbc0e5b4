//! A graph the program never builds: the constants, statics and functions its expressions
//! name draw no dead-code warning.
#![deny(warnings)]
use cuda_graph::cuda_graph;

const BLOCK: u32 = 256;
static SCALE: f32 = 0.5;
fn blocks(n: u32) -> u32 {
    n.div_ceil(BLOCK)
}

cuda_graph! {
    graph Unused {
        kernel k(y: &mut [f32], a: f32, n: u32);
        buffer mut y: f32;
        param n: u32;
        temp t: [f32; n.max(BLOCK)];
        clear = memset(t, 0.0);
        fill = k<<<blocks(n), BLOCK>>>(t, SCALE * 2.0, n.min(u32::MAX));
        copy = memcpy(y, t);
        clear -> fill -> copy;
    }
}

fn main() {}
