//! Writes that reach a read on every path: both branches of an IF/ELSE, a WHILE whose body
//! runs at least once (a non-zero literal default, set only inside the body), and the same
//! inside a loop's body.
#![deny(warnings)]
use cuda_graph::prelude::*;

cuda_graph! {
    graph Flow {
        kernel fill(y: &mut [u32], n: u32);
        kernel copy(src: &[u32], dst: &mut [u32], n: u32);
        kernel pick(c: Cond);
        buffer mut out: u32;
        param n: u32;
        temp a: [u32; n];
        temp b: [u32; n];
        temp c: [u32; n];
        cond side;
        cond go = 1;
        cond inner;
        choose = pick<<<1, 1>>>(side);
        branch = if side {
            left = fill<<<1, 32>>>(a, n);
        } else {
            right = fill<<<2, 32>>>(a, n);
        }
        read_a = copy<<<1, 32>>>(a, out, n);
        choose -> branch -> read_a;
        run = while go {
            write_b = fill<<<1, 32>>>(b, n);
            pick_inner = pick<<<1, 1>>>(inner);
            both = if inner {
                one = fill<<<1, 32>>>(c, n);
            } else {
                other = fill<<<1, 32>>>(c, n);
            }
            read_c = copy<<<1, 32>>>(c, out, n);
            decide = pick<<<1, 1>>>(go);
            write_b -> pick_inner -> both -> read_c -> decide;
        }
        read_b = copy<<<1, 32>>>(b, out, n);
        read_a -> run -> read_b;
    }
}

fn main() {
    assert_eq!(Flow::TEMPORARIES.len(), 3);
}
