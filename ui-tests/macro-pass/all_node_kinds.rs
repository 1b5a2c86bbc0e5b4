#![deny(warnings)]
// Every node kind, several graphs in one block, and a graph declared inside a function.
use cuda_graph::cuda_graph;

cuda_graph! {
    /// A child.
    pub graph Inner {
        kernel scale(y: &mut [f32], a: f32, n: u32);
        buffer mut y: f32;
        param n: u32;
        step = scale<<<n.div_ceil(256), 256>>>(y, 2.0, n);
    }

    /// Every node kind.
    pub(crate) graph Everything {
        kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
        kernel sum(y: &[f32], total: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        buffer mut total: f32;
        host_buffer input: f32;
        host_buffer mut output: f32;
        param a: f32;
        param n: u32;
        param block: u32;
        callback report;
        event done;
        event start;

        begin  = wait(start);
        load   = memcpy(y, input);
        clear  = memset(total, 0.0);
        step   = saxpy<<<(n.div_ceil(block), 1, 1), (block, 1), block * 4>>>(a * 2.0, x, y, n);
        sub    = child(Inner { y: y, n: 1024 });
        join   = empty;
        reduce = sum<<<1, 1024>>>(y, total, n);
        back   = memcpy(output, total);
        tell   = host(report);
        shout  = host(|| println!("done"));
        rec    = record(done);

        begin -> load -> step -> sub -> join;
        clear -> join;
        join -> reduce -> back -> [tell, shout] -> rec;
    }
}

const BLOCK: u32 = 128;

fn in_a_function() -> &'static str {
    cuda_graph! {
        graph Local {
            kernel k(y: &mut [u32], n: u32);
            buffer mut y: u32;
            param n: u32;
            only = k<<<n.div_ceil(BLOCK), BLOCK>>>(y, n);
        }
    }
    Local::DOT
}

fn main() {
    assert!(Everything::DOT.contains("\"join\" -> \"reduce\";"));
    assert!(Inner::DOT.contains("\"step\" [label=\"step\\nkernel\", shape=box];"));
    assert!(in_a_function().starts_with("digraph \"Local\""));
    assert!(Fan::DOT.contains("\"root\" -> \"l1\";"));
}

cuda_graph! {
    /// Leaves write disjoint slices of one buffer: `#[disjoint]` lifts the race check for it.
    graph Fan {
        kernel tiny(y: &mut [f32], offset: u32, a: f32);
        #[disjoint]
        buffer mut y: f32;
        param a: f32;
        root = tiny<<<1, 32>>>(y, 0, a);
        l1   = tiny<<<1, 32>>>(y, 32, a);
        l2   = tiny<<<1, 32>>>(y, 64, a);
        sink = tiny<<<1, 32>>>(y, 0, a);
        root -> [l1, l2] -> sink;
    }
}
